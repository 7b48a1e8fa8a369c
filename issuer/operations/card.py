"""The Card group (docs/issuer.md): information, activation, replacement, cancellation,
status, limits, CVV2 and dCVV, 3-D Secure channel, PIN. ExpiryDateUpdate and BlacklistUpdate are
NA for both products: they always answer "not applicable"."""

from decimal import Decimal
from typing import Any

from core import results
from core.display import decimals_problem
from core.errors import ApplicationError, ParameterError
from core.fields import UN, Amount, Choice, Month, N, Year
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F, Table, given

from .. import results as issuer_results
from ..cards import services
from ..cards.lookups import REPLACEMENT_REASONS, STATUS_REASONS
from ..cards.models import CardForm, CardStatus, Channel, Region, SecureChannel
from .common import (
    CARD_BY_REFERENCE_OR_NUMBER,
    CARD_REFERENCE,
    PIN,
    address_of,
    address_rows,
    card_by_reference_or_number,
    card_fields,
    card_for,
    items,
    stamp,
)
from .registry import Answer, Call, group

card = group("card")
REASON = Choice(tuple(STATUS_REASONS))


def _limits(card_obj: Any) -> list[dict[str, Any]]:
    def text(value: Any) -> str:
        return "" if value is None else str(value)

    def amount(value: Any) -> str:
        return "" if value is None else f"{value:.2f}"

    return [
        {
            "region": limit.region,
            "channel": limit.channel,
            "perTransactionAmount": amount(limit.per_transaction),
            "dailyAmount": amount(limit.daily_amount),
            "dailyCount": text(limit.daily_count),
            "monthlyAmount": amount(limit.monthly_amount),
            "monthlyCount": text(limit.monthly_count),
        }
        for limit in card_obj.limits.all()
    ]


@card(
    "CardInfoInquiry",
    CARD_BY_REFERENCE_OR_NUMBER,
    "the card (by cardReference or its number): status, form, limits, channel",
)
def info(call: Call) -> Answer:
    found = card_by_reference_or_number(call)
    fields = {
        **card_fields(found),
        "limits": _limits(found),
        "history": [
            {
                "fromStatus": h.from_status,
                "toStatus": h.to_status,
                "reason": h.reason,
                "changedBy": h.changed_by,
                "changedAt": stamp(h.changed_at),
            }
            for h in found.history.all()
        ],
    }
    return results.REQUEST_SUCCEEDED, fields, None


@card("Activation", Table([CARD_REFERENCE]), "activate an INACTIVE card")
def activation(call: Call) -> Answer:
    found = services.card_activate(card=card_for(call), actor=call.actor)
    return results.REQUEST_SUCCEEDED, card_fields(found), None


def _replacement_rule(flat):  # type: ignore[no-untyped-def]
    specific = flat.get("replacementType") == services.REPLACE_SPECIFIC
    if specific and not given(flat, "cardNumber"):
        yield "cardNumber", "is required for replacementType SPECIFIC"
    if given(flat, "cardNumber") and not specific:
        yield "cardNumber", "is sent only with replacementType SPECIFIC"


REPLACEMENT = Table(
    [
        CARD_REFERENCE,
        F(
            "replacementType",
            Choice((services.REPLACE_SAME, services.REPLACE_SPECIFIC, services.REPLACE_RANDOM)),
            MANDATORY,
            meaning="the same number, a specific one, or a random one",
        ),
        F("reason", Choice(tuple(REPLACEMENT_REASONS)), MANDATORY),
        F(
            "cardNumber",
            N(19, min=12),
            CONDITIONAL,
            secret=True,
            meaning="SPECIFIC: the new number, in one of the product's BIN ranges",
        ),
        F("cardForm", Choice(tuple(CardForm.values)), OPTIONAL, meaning="PHYSICAL: a plastic"),
        *address_rows("deliveryAddress", "for a new physical card (default: the old card's)"),
    ],
    rules=[_replacement_rule],
)


@card("Replacement", REPLACEMENT, "replace a card (the old one becomes REPLACED)")
def replacement(call: Call) -> Answer:
    f = call.fields
    new = services.card_replace(
        card=card_for(call),
        mode=f["replacementType"],
        reason=f["reason"],
        actor=call.actor,
        number=f.get("cardNumber") or "",
        form=f.get("cardForm") or "",
        delivery=address_of(f, "deliveryAddress"),
    )
    fields = {**card_fields(new), "replacedCardReference": f["cardReference"]}
    return results.REQUEST_SUCCEEDED, fields, new.reference


CANCELLATION = Table([CARD_REFERENCE, F("reason", REASON, MANDATORY)])


@card("Cancellation", CANCELLATION, "cancel a card, for good")
def cancellation(call: Call) -> Answer:
    found = services.card_cancel(
        card=card_for(call), reason=call.fields["reason"], actor=call.actor
    )
    return results.REQUEST_SUCCEEDED, card_fields(found), None


STATUS_TARGETS = (CardStatus.ACTIVE, CardStatus.SUSPENDED, CardStatus.LOST, CardStatus.STOLEN)
STATUS_UPDATE = Table(
    [
        CARD_REFERENCE,
        F(
            "status",
            Choice(tuple(str(s) for s in STATUS_TARGETS)),
            MANDATORY,
            meaning="ACTIVE resumes a SUSPENDED card",
        ),
        F("reason", REASON, MANDATORY),
    ]
)


@card("StatusUpdate", STATUS_UPDATE, "suspend, resume, or report a card lost or stolen")
def status_update(call: Call) -> Answer:
    found = card_for(call)
    target = call.fields["status"]
    if target == CardStatus.ACTIVE and found.status == CardStatus.INACTIVE:
        raise ApplicationError(
            issuer_results.CARD_STATUS_NOT_ALLOWED,
            "an INACTIVE card is activated with card/Activation",
            data={"status": found.status},
        )
    updated = services.card_change_status(
        client_id=call.client_id,
        reference=found.reference,
        target=target,
        reason=call.fields["reason"],
        actor=call.actor,
    )
    return results.REQUEST_SUCCEEDED, card_fields(updated), None


LIMIT = "limits[n]"
COUNT = UN(6)
LIMIT_SETTING = Table(
    [
        CARD_REFERENCE,
        F(f"{LIMIT}.region", Choice(tuple(Region.values)), CONDITIONAL, meaning="required"),
        F(f"{LIMIT}.channel", Choice(tuple(Channel.values)), CONDITIONAL, meaning="required"),
        F(f"{LIMIT}.perTransactionAmount", Amount(), OPTIONAL, meaning="blank: no limit"),
        F(f"{LIMIT}.dailyAmount", Amount(), OPTIONAL),
        F(f"{LIMIT}.dailyCount", COUNT, OPTIONAL),
        F(f"{LIMIT}.monthlyAmount", Amount(), OPTIONAL),
        F(f"{LIMIT}.monthlyCount", COUNT, OPTIONAL),
    ],
    limits={"limits": 4},
)
_LIMIT_COLUMNS = {
    "perTransactionAmount": "per_transaction",
    "dailyAmount": "daily_amount",
    "dailyCount": "daily_count",
    "monthlyAmount": "monthly_amount",
    "monthlyCount": "monthly_count",
}


@card("LimitSetting", LIMIT_SETTING, "the card's limits by region and channel")
def limit_setting(call: Call) -> Answer:
    found = card_for(call)
    rows = []
    problems = []
    for index, item in enumerate(items(call.fields, "limits")):
        for name in ("region", "channel"):
            if not item.get(name):
                problems.append((f"limits[{index}].{name}", None, "is required in every limit"))
        row: dict[str, Any] = {"region": item.get("region"), "channel": item.get("channel")}
        for name, column in _LIMIT_COLUMNS.items():
            value = item.get(name)
            row[column] = (
                None if value in (None, "") else (int(value) if "Count" in name else value)
            )
            # An amount in the card's currency: no finer than its ISO 4217 exponent (250.50 is
            # no JPY amount; 250.00 is 250).
            problem = (
                decimals_problem(Decimal(value), found.account.currency)
                if "Amount" in name and value not in (None, "")
                else ""
            )
            if problem:
                problems.append((f"limits[{index}].{name}", None, problem))
        rows.append(row)
    if not rows:
        problems.append(("limits[0].region", None, "send at least one limit"))
    if problems:
        raise ParameterError(problems)
    services.limits_set(card=found, rows=rows)
    return (
        results.REQUEST_SUCCEEDED,
        {"cardReference": found.reference, "limits": _limits(found)},
        None,
    )


@card("CVV2Inquiry", Table([CARD_REFERENCE]), "a virtual card's CVV2 (computed, never stored)")
def cvv2_inquiry(call: Call) -> Answer:
    found = card_for(call)
    return (
        results.REQUEST_SUCCEEDED,
        {"cardReference": found.reference, "cvv2": services.card_cvv2(card=found)},
        None,
    )


CVV2_VERIFY = Table([CARD_REFERENCE, F("cvv2", N(3, min=3), MANDATORY, secret=True)])


@card("CVV2Verify", CVV2_VERIFY, "check a virtual card's CVV2")
def cvv2_verify(call: Call) -> Answer:
    found = card_for(call)
    verified = services.card_cvv2_verify(card=found, candidate=call.fields["cvv2"])
    result = results.REQUEST_SUCCEEDED if verified else issuer_results.SECURITY_CODE_MISMATCH
    return result, {"cardReference": found.reference, "verified": verified}, None


@card("GenerateDCVV", Table([CARD_REFERENCE]), "a dynamic CVV for the current time window")
def generate_dcvv(call: Call) -> Answer:
    found = card_for(call)
    code, valid_until = services.card_dcvv(card=found)
    fields = {"cardReference": found.reference, "dcvv": code, "validUntil": stamp(valid_until)}
    return results.REQUEST_SUCCEEDED, fields, None


def _not_applicable(call: Call) -> Answer:
    """An NA operation for every product: card_for refuses it with 600.200.500."""
    card_for(call)
    raise AssertionError(f"{call.entry} is applicable to a product")  # pragma: no cover


card(
    "ExpiryDateUpdate",
    Table(
        [
            CARD_REFERENCE,
            F("expiryMonth", Month(), OPTIONAL),
            F("expiryYear", Year(), OPTIONAL),
        ]
    ),
    "NA for both products: always not applicable (a new expiry is a Replacement SAME)",
)(_not_applicable)
card(
    "BlacklistUpdate",
    Table([CARD_REFERENCE, F("blacklisted", Choice(("Y", "N")), OPTIONAL)]),
    "NA for both products (old, unused): always not applicable",
)(_not_applicable)


SECURE_REGIST = Table(
    [
        CARD_REFERENCE,
        F(
            "channel",
            Choice(("SMS", "EMAIL", "APP", "NONE")),
            MANDATORY,
            meaning="OTP by SMS or e-mail, out of band in the issuer's app, or NONE",
        ),
    ]
)


@card("SecureRegist", SECURE_REGIST, "the cardholder's 3-D Secure channel")
def secure_regist(call: Call) -> Answer:
    channel = call.fields["channel"]
    found = services.secure_register(
        card=card_for(call), channel="" if channel == "NONE" else SecureChannel(channel)
    )
    return results.REQUEST_SUCCEEDED, card_fields(found), None


PIN_RESET = Table(
    [CARD_REFERENCE, F("newPin", PIN, MANDATORY, secret=True, meaning="4 to 12 digits")]
)


@card("PINReset", PIN_RESET, "set a new PIN (unblocks a blocked PIN)")
def pin_reset(call: Call) -> Answer:
    found = services.pin_reset(card=card_for(call), new_pin=call.fields["newPin"])
    return results.REQUEST_SUCCEEDED, {"cardReference": found.reference, "pinTriesLeft": 3}, None


PIN_CHANGE = Table(
    [
        CARD_REFERENCE,
        F("oldPin", PIN, MANDATORY, secret=True),
        F("newPin", PIN, MANDATORY, secret=True),
    ]
)


@card("PINChange", PIN_CHANGE, "change the PIN (the old one checked: three wrong tries block)")
def pin_change(call: Call) -> Answer:
    found = card_for(call)
    outcome = services.pin_change(
        card=found, old_pin=call.fields["oldPin"], new_pin=call.fields["newPin"]
    )
    fields = {"cardReference": found.reference, "pinTriesLeft": outcome.tries_left}
    return outcome.result, fields, None


PIN_VERIFY = Table([CARD_REFERENCE, F("pin", PIN, MANDATORY, secret=True)])


@card("PINVerify", PIN_VERIFY, "check a PIN (three wrong tries block it)")
def pin_verify(call: Call) -> Answer:
    found = card_for(call)
    outcome = services.pin_verify(card=found, pin=call.fields["pin"])
    fields = {
        "cardReference": found.reference,
        "verified": outcome.result.is_success,
        "pinTriesLeft": outcome.tries_left,
    }
    return outcome.result, fields, None
