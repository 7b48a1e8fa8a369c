"""Request bodies the payment API accepts, for the OpenAPI document (PaymentsView's
`request_examples`, the registrations' and checkouts' `examples`): the demo's merchant of
`make run`, its test card, a browser for 3-D Secure.
"""

from core.schema import body_example

from .tables import PAYMENT

MERCHANT = {"entityId": "10000001", "entityType": "MERCHANT", "merchant.id": "10000001"}
CARD = {
    "card.number": "4200000000000000",
    "card.holder": "Jane Doe",
    "card.expiryMonth": "12",
    "card.expiryYear": "2034",
    "card.cvv": "123",
}
BROWSER = {
    f"customer.browser.{name}": value
    for name, value in (
        ("acceptHeader", "text/html"),
        ("language", "en-US"),
        ("userAgent", "Mozilla/5.0"),
        ("javascriptEnabled", "true"),
        ("javaEnabled", "false"),
        ("screenHeight", "1080"),
        ("screenWidth", "1920"),
        ("timezone", "-60"),
        ("screenColorDepth", "24"),
        ("challengeWindow", "02"),
    )
}
BILLING = {
    "billing.street1": "1 Main Street",
    "billing.city": "Berlin",
    "billing.postcode": "10115",
    "billing.country": "DE",
}


def _payment(mtid: str, kind: str, **fields: str) -> dict[str, str]:
    return {**MERCHANT, "merchantTransactionId": mtid.ljust(32, "0"), "paymentType": kind, **fields}


def _example(values: dict[str, str]) -> dict[str, str]:
    return body_example(PAYMENT, values)


INITIAL_EXAMPLES = {
    "PA": _example(
        _payment("pa1", "PA", amount="100.00", currency="EUR", validityPeriod="86400000") | CARD
    ),
    "DB with billing address, cart and custom parameters": _example(
        _payment("db1", "DB", amount="25.00", currency="EUR")
        | CARD
        | BILLING
        | {
            "cart.items[0].name": "Fountain pen",
            "cart.items[0].quantity": "1",
            "cart.items[0].price": "25.00",
            "customParameters[SHOPPER_orderNo]": "42",
        }
    ),
    "DB through a terminal (POS)": _example(
        _payment("po1", "DB", amount="30.00", currency="EUR", transactionCategory="PO")
        | {"entityType": "POS", "pos.terminalId": "T0000001"}
        | CARD
    ),
    "DB with 3-D Secure": _example(
        _payment("ds1", "DB", amount="49.90", currency="EUR")
        | CARD
        | {"card.number": "4000000000001091"}
        | BROWSER
        | BILLING
        | {
            "threeDSecure.indicator": "true",
            "shopperResultUrl": "https://shop.example.com/3ds-result",
            "customer.email": "jane@example.com",
            "customer.givenName": "Jane",
            "customer.surname": "Doe",
            "customParameters[ReqAuthMethod]": "02",
        }
    ),
    "DB authenticated elsewhere (threeDSecure.indicator=third)": _example(
        _payment("th1", "DB", amount="19.90", currency="EUR")
        | CARD
        | {
            "threeDSecure.indicator": "third",
            "threeDSecure.authenticationStatus": "Y",
            "threeDSecure.eci": "05",
            "threeDSecure.verificationId": "AAABBEg0VhI0VniQEjRWAAAAAAA=",
            "threeDSecure.dsTransactionId": "f25084f0-5b16-4c0a-ae5d-b24808a95e4b",
        }
    ),
    "CD": _example(_payment("cd1", "CD", amount="5.00", currency="EUR") | CARD),
    "CV": _example(_payment("cv1", "CV") | CARD),
}
ORIGINAL = "8ac7a4a0817e8d2d01817f2a33a21c44"  # a payment id: substitute one of yours
REFERENCED_EXAMPLES = {
    "CP": _example(_payment("cp1", "CP", amount="60.00", currency="EUR")),
    "RF": _example(_payment("rf1", "RF", amount="15.00", currency="EUR")),
    "RV": _example(_payment("rv1", "RV", transactionSource="CARDHOLDER")),
}
REVERSAL_EXAMPLES = {
    "RV": _example(
        _payment("rv2", "RV", transactionSource="CARDHOLDER", originalTransactionId=ORIGINAL)
    )
}
