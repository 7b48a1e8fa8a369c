"""PA, DB, CD and CV: payments with a card of their own.

Each use case claims its reference and, in the claim's transaction, refuses what may not go to
the network (merchant or terminal state, an expired card, a merchant not enrolled for the 3-D
Secure it needs, a risk DECLINE) or starts 3-D Secure when the payment needs it (threeds_start:
the answer is pending with a redirect; payments.threeds.services carries the authentication on
from there); otherwise the engine asks the network and finalizes (engine.submit).
"""

from datetime import datetime, timedelta
from decimal import Decimal

from django.utils import timezone

from core import cards
from core.errors import ParameterError
from core.results import Result
from core.status import OperatingStatus
from merchants.models import Merchant, ThreeDSMode, ThreeDSStatus
from merchants.selectors import amount_limit_for

from .. import results as payment_results
from .. import risk
from ..connectors import onus_port
from ..models import Payment, PaymentType, ThreeDSAuthentication
from ..registrations import instructions
from ..threeds import acs
from . import engine, network, sources
from .engine import Claim
from .sources import CardSource
from .types import (
    NO_DETAILS,
    NO_THREEDS,
    Caller,
    Card,
    Details,
    Money,
    PaymentOutcome,
    ThreeDSRequest,
)

THREEDS_TYPES = frozenset({PaymentType.PA, PaymentType.DB})
CARD_PRESENT_CATEGORIES = frozenset({"PO", "PM"})
MAIL_OR_PHONE = frozenset({"MO", "TO"})
# (POS entry mode, condition code): the spec names 01 MOTO and 81 e-commerce, with 08 MOTO, 59
# e-commerce and 00 card present; a card present is read from its chip (ISO 8583 entry mode 05).
MOTO, CARD_PRESENT, ECOMMERCE = ("01", "08"), ("05", "00"), ("81", "59")
THREEDS_LIFETIME = timedelta(minutes=10)  # how long the shopper has to authenticate


def threeds_requested(
    *, merchant: Merchant, payment_type: str, indicator: str, merchant_initiated: bool = False
) -> bool:
    """Whether a payment goes through the built-in 3-D Secure 2 flow: a PA or DB with
    threeDSecure.indicator force or true, or any PA or DB of a merchant whose 3DS is mandatory
    (the indicator is then ignored). `third` (pre-authenticated) is not a flow of ours, and a
    merchant-initiated payment (MIT) has no shopper to authenticate."""
    if payment_type not in THREEDS_TYPES or merchant_initiated:
        return False
    if merchant.threeds_mode == ThreeDSMode.MANDATORY:
        return True
    return indicator in ("force", "true")


def threeds_start(
    *, payment: Payment, card: Card, request: ThreeDSRequest
) -> ThreeDSAuthentication:
    """Create the authentication the shopper will go through (the ACS decides the flow now).
    Runs in the payment's transaction; marks the payment as authenticated by us."""
    money = request.amount
    amount: Decimal = money.amount if money else (payment.amount or Decimal("0.00"))
    currency = money.currency if money else payment.currency
    issuer = onus_port.registered()
    method = issuer.method(card.number) if issuer is not None else None
    if method is not None:
        # The platform's own card: its issuer authenticates the cardholder through the channel
        # the cardholder registered (SecureRegist), frictionless when there is none (the local
        # access control of onus_port, beside the simulated ACS).
        flow = acs.CHALLENGE if method else acs.FRICTIONLESS
        decision = acs.Decision(flow, "Y", False, "2.2.0")
    else:
        decision = acs.decide(
            pan=card.number,
            amount=amount,
            risk_decision=payment.risk_decision,
            challenge_indicator=request.challenge_indicator,
            flags=dict(request.flags),
        )
    payment.threeds_started = True
    standing = instructions.standing_of(payment)
    recurring = standing is not None and standing.type in ("RECURRING", "INSTALLMENT")
    return ThreeDSAuthentication.objects.create(
        recurring_expiry=standing.expiry if recurring and standing else None,
        recurring_frequency=standing.frequency if recurring and standing else None,
        payment=payment,
        flow=decision.flow,
        issuer_method=method or "",
        issuer_result=decision.issuer_result,
        method_required=decision.method_required,
        version=decision.version,
        amount=amount,
        currency=currency,
        challenge_indicator=request.challenge_indicator,
        challenge_window=request.challenge_window,
        shopper_result_url=request.shopper_result_url,
        browser=dict(request.browser),
        cardholder_history=dict(request.cardholder_history),
        expires_at=timezone.now() + THREEDS_LIFETIME,
    )


def payment_authorize(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    money: Money,
    card: CardSource,
    details: Details = NO_DETAILS,
    threeds: ThreeDSRequest = NO_THREEDS,
    now: datetime | None = None,
) -> PaymentOutcome:
    """PA: hold `money` on the card until captured (CP), reversed (RV) or its validityPeriod
    closes it. May answer pending with a 3-D Secure redirect. `card` is the card sent, or a
    registration's (card on file); `now` is the time the standing instruction rules use."""
    return _initial(
        PaymentType.PA, caller, reference, request_hash, money, card, details, threeds, now
    )


def payment_debit(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    money: Money,
    card: CardSource,
    details: Details = NO_DETAILS,
    threeds: ThreeDSRequest = NO_THREEDS,
    now: datetime | None = None,
) -> PaymentOutcome:
    """DB: authorize and capture `money` at once. May answer pending with a 3-D Secure
    redirect. `card` and `now` as for payment_authorize."""
    return _initial(
        PaymentType.DB, caller, reference, request_hash, money, card, details, threeds, now
    )


def payment_credit(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    money: Money,
    card: Card,
    details: Details = NO_DETAILS,
) -> PaymentOutcome:
    """CD: pay `money` to the card."""
    return _initial(PaymentType.CD, caller, reference, request_hash, money, card, details)


def payment_verify(
    *,
    caller: Caller,
    reference: str,
    request_hash: str,
    card: CardSource,
    money: Money | None = None,
    details: Details = NO_DETAILS,
) -> PaymentOutcome:
    """CV: check the card with the network (an amount is optional)."""
    return _initial(PaymentType.CV, caller, reference, request_hash, money, card, details)


def _initial(
    kind: str,
    caller: Caller,
    reference: str,
    request_hash: str,
    money: Money | None,
    card: CardSource,
    details: Details,
    threeds: ThreeDSRequest = NO_THREEDS,
    now: datetime | None = None,
) -> PaymentOutcome:
    moment = now or timezone.now()
    _check_initial_expiry(details, moment)

    def process() -> Claim:
        entry_mode, condition_code = entry_and_condition(caller, details.transaction_category)
        source = sources.card_source(caller, card, details)
        payment = engine.claim(
            caller=caller,
            payment_type=kind,
            reference=reference,
            request_hash=request_hash,
            money=money,
            details=details,
            entry_mode=entry_mode,
            condition_code=condition_code,
            expires_at=_expiry(details),
            **source.columns,
        )
        if source.card is None:  # a deregistered registration, a token that cannot pay
            assert source.refusal is not None
            return Claim(engine.finish_with(payment, source.refusal))
        return _decide(payment, caller, source.card, details, threeds, moment)

    return engine.submit(
        caller=caller, reference=reference, request_hash=request_hash, claim=process
    )


def _check_initial_expiry(details: Details, now: datetime) -> None:
    """An INITIAL standing instruction cannot end before it starts."""
    standing = details.standing
    if standing and standing.initial and standing.expiry and standing.expiry < now.date():
        raise ParameterError(
            [
                (
                    "standingInstruction.expiry",
                    f"{standing.expiry:%Y-%m-%d}",
                    "is in the past: an initial standing instruction must end after today",
                )
            ]
        )


def _expiry(details: Details) -> datetime | None:
    if not details.validity_period_ms:
        return None
    return timezone.now() + timedelta(milliseconds=details.validity_period_ms)


def _decide(
    payment: Payment,
    caller: Caller,
    card: Card,
    details: Details,
    threeds: ThreeDSRequest,
    now: datetime,
) -> Claim:
    standing = details.standing
    merchant_initiated = bool(standing and standing.merchant_initiated)
    three_ds = threeds_requested(
        merchant=caller.merchant,
        payment_type=payment.payment_type,
        indicator=threeds.indicator,
        merchant_initiated=merchant_initiated,
    )
    refusal = merchant_refusal(caller) or amount_refusal(caller, payment)
    if refusal is None and cards.expired(
        payment.card_expiry_month, payment.card_expiry_year, timezone.now().date()
    ):
        refusal = payment_results.CARD_EXPIRED
    if refusal is None and three_ds and caller.merchant.threeds_status != ThreeDSStatus.ENROLLED:
        refusal = payment_results.THREEDS_MERCHANT_NOT_ENROLLED
    if refusal is None:
        # indicator=force: through the risk system, then 3DS (INTERNAL when none is named).
        system = details.get("risk.systemID") or (
            risk.INTERNAL if threeds.indicator == "force" else ""
        )
        assessment = risk.assess(system_id=system, amount=payment.amount, data=details.data)
        if assessment is not None:
            payment.risk_score, payment.risk_decision = assessment.score, assessment.decision
            if assessment.decision == risk.DECLINE:
                refusal = payment_results.RISK_DECLINED
    if refusal is not None:
        return Claim(engine.finish_with(payment, refusal))
    if three_ds:
        threeds_start(payment=payment, card=card, request=threeds)
        pending = engine.finish_with(
            payment, payment_results.THREEDS_PENDING, base_url=caller.base_url
        )
        return Claim(pending)
    kept = ["risk_score", "risk_decision"] if payment.risk_decision else []
    if standing is not None and merchant_initiated:
        # The chain it names: checked and reserved (a refusal rolls the claim back: nothing
        # written); settled with the network's answer.
        payment.standing_instruction = instructions.reserve(
            payment=payment, standing=standing, now=now
        )
        kept.append("standing_instruction")
    if kept:
        payment.save(update_fields=kept)  # kept for the finalize
    return Claim(
        payment,
        ask=lambda connector, claimed: network.authorize(
            connector, claimed, pan=card.number, cvv=card.cvv
        ),
        settle=network.settle_authorization,
    )


def entry_and_condition(caller: Caller, category: str) -> tuple[str, str]:
    """POS Entry Mode and Condition Code (spec "additionalData"): a mail or telephone order
    (01, 08), a card present at a terminal or in a POS category (05 integrated circuit card,
    00), or e-commerce (81, 59). docs/decisions.md."""
    if category in MAIL_OR_PHONE:
        return MOTO
    if caller.terminal is not None or category in CARD_PRESENT_CATEGORIES:
        return CARD_PRESENT
    return ECOMMERCE


def amount_refusal(caller: Caller, payment: Payment) -> Result | None:
    """A payment above the merchant's or the platform's maximum per payment in its currency
    (merchants.AmountLimit, kept by bank staff) is refused before the network is asked. A card
    verification moves no money and has no such limit."""
    if payment.payment_type == PaymentType.CV or payment.amount is None:
        return None
    limit = amount_limit_for(merchant=caller.merchant, currency=payment.currency)
    if limit is not None and payment.amount > limit:
        return payment_results.AMOUNT_ABOVE_LIMIT
    return None


def merchant_refusal(caller: Caller) -> Result | None:
    if not caller.merchant.can_transact:
        return payment_results.MERCHANT_CANNOT_TRANSACT
    if caller.terminal is not None and caller.terminal.status != OperatingStatus.NORMAL:
        return payment_results.TERMINAL_CANNOT_TRANSACT
    return None
