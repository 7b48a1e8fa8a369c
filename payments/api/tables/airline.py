"""Airline data (spec "Airline"): the booking, its passengers and their legs."""

from core.fields import AN, Amount, Choice, Country, Date
from core.tables import CONDITIONAL, OPTIONAL, F, Table

from .formats import TEXT255

OPT, C = OPTIONAL, CONDITIONAL

_DAY = r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
_CLOCK = r"(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]|(?:0[1-9]|1[0-2]):[0-5][0-9] ?(?:AM|PM|am|pm))"
_ZONE = r"[A-Za-z][A-Za-z_/]*(?:[+-][0-9]{1,2}(?::?[0-9]{2})?)?"
DEPARTURE_TIME = AN(
    30,
    pattern=rf"{_DAY} {_CLOCK} {_ZONE}",
    what="yyyy-MM-dd HH:mm z, yyyy-MM-dd hh:mm a z or yyyy-MM-dd hh:mma z",
    example="2024-05-01 14:30 GMT",
)
ROUTE = AN(
    255,
    pattern=r"[A-Za-z0-9]{3,4}-[A-Za-z0-9]{3,4}(?::[A-Za-z0-9]{3,4}-[A-Za-z0-9]{3,4})*",
    what="ORIG1-DEST1[:ORIG2-DEST2...]",
    example="FRA-JFK:JFK-LAX",
)

AIRLINE = [
    # The spec's spellings (Desitination, depature) are the parameter names clients send.
    F(
        "airline.actualFinalDesitination",
        AN(10, example="LAX"),
        OPT,
        meaning="IATA code of the final destination",
    ),
    F(
        "airline.completeRoute",
        ROUTE,
        OPT,
        meaning="takes precedence over the legs' origin/destination",
    ),
    F("airline.depatureTime", DEPARTURE_TIME, OPT, meaning="time zone GMT or local"),
    F("airline.journeyType", AN(30, example="ONE_WAY"), OPT),
    F("airline.totalTaxAmount", Amount(), C),
    F("airline.totalFeesAmount", Amount(), C),
    F("airline.totalFareAmount", Amount(), C),
    F("airline.ticketIssueDate", Date("yyyy-MM-dd"), C),
    *[
        F(f"airline.{name}", TEXT255, C)
        for name in (
            "ticketIssueAddress",
            "thirdPartyBooking",
            "bookingType",
            "ticketDeliveryMethod",
            "bookingRefNum",
            "agentName",
            "agentCode",
        )
    ],
    F(
        "airline.passengers[n].type",
        Choice(("ADT", "CNN", "INF", "YTH", "STU", "SCR", "MIL")),
        C,
        meaning="ADT adult, CNN child, INF infant, YTH youth, STU student, SCR senior, "
        "MIL military",
    ),
    F("airline.passengers[n].givenName", AN(48, example="Jane"), C),
    F("airline.passengers[n].surname", AN(48, example="Doe"), C),
    F("airline.passengers[n].nationality", Country(), C),
    F(
        "airline.passengers[n].status",
        AN(25, example="Gold"),
        C,
        meaning="e.g. Standard, Gold, Platinum",
    ),
    *[
        F(f"airline.passengers[n].{name}", TEXT255, C)
        for name in (
            "ticketRestricted",
            "ticketNumber",
            "phone",
            "frequentFlyerNumber",
            "email",
            "dob",
            "checkDigit",
        )
    ],
    *[
        F(f"airline.passengers[n].legs[n].{name}", TEXT255, C)
        for name in (
            "ticketNumber",
            "stopOverAllowed",
            "restrictions",
            "flightNumber",
            "fareBasis",
            "exchangeTicketNum",
            "departureCountry",
            "departureAirport",
            "airlineName",
            "airlineCode",
            "departureTime",
            "arrivalCountry",
            "arrivalAirport",
            "arrivalTime",
            "couponNumber",
            "classOfService",
            "carrierCode",
        )
    ],
    *[
        F(f"airline.passengers[n].legs[n].{name}", Amount(), C)
        for name in ("taxAmount", "feesAmount", "fareAmount", "departureTaxAmount")
    ],
    F("airline.passengers[n].legs[n].departureDate", Date("yyyy-MM-dd"), C),
    F("airline.passengers[n].legs[n].arrivalDate", Date("yyyy-MM-dd"), C),
    F("airline.passengers[n].legs[n].timeToDeparture", AN(10, example="3"), C, meaning="days"),
]


# The spec gives no maximum; 99 passengers per booking and 99 legs per passenger are far beyond
# any real ticket and keep a request's size bounded.
AIRLINE_GROUP = Table(AIRLINE, limits={"airline.passengers": 99, "airline.passengers[n].legs": 99})
