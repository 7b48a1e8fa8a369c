"""Capture, reverse and refund asked for by a person, from the admin or the portal, through the
same services as the API (payments.services.referenced), with the same result codes.

- **Once.** Each form carries a key of its own (`new_key`, rendered with the form); the operation's
  merchantTransactionId is made from it, so a double click or the same form sent again replays
  the first answer instead of making a second refund.
- **Recorded.** A `PaymentAction` row says who asked, when and why, and which CP, RV or RF it
  made; a held one also who approved or rejected it.
- **Four eyes.** A refund or reversal from the admin above BACKOFFICE_APPROVAL_AMOUNT (per
  currency) is claimed with its amount reserved on the original, as an operation in flight is,
  and held (000.200.400) until a second staff member approves it (then sent) or rejects it, or
  BACKOFFICE_APPROVAL_HOURS pass (then answered 700.400.800 or 700.400.810 and its reservation
  released). The requester cannot approve their own. The portal needs no second approval: it is
  the merchant's own money.
- **Nothing lost.** The action's decision is written first (one conditional UPDATE: approve,
  reject and expiry cannot both win); `sweep` finishes what a process that died between the
  decision and the payment left undone.
"""

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core import idempotency
from core.errors import NotFound
from core.fields.codes import minor_units, within_exponent
from core.results import REFERENCE_NOT_FOUND
from merchants.models import Merchant

from .. import results as payment_results
from ..models import Payment, PaymentState, TransactionSource
from ..services import referenced
from ..services.types import Caller, Money
from .models import PaymentAction

logger = logging.getLogger("payments.backoffice")
Kind = PaymentAction.Kind
State = PaymentAction.State
Channel = PaymentAction.Channel
HELD = (Kind.REVERSE, Kind.REFUND)  # what a second approval can be asked for


def new_key() -> str:
    """A form's key: the form sent twice makes one operation."""
    return secrets.token_hex(16)


@dataclass(frozen=True)
class ActionRequest:
    original_id: str
    kind: str
    amount: Decimal | None  # None: the whole reversal
    reason: str
    key: str
    channel: str
    actor: str  # staff:<username> or portal:<username>
    merchant: Merchant | None = None  # the portal's own merchant: only its payments
    user_id: int | None = None  # the person's user (four eyes compare it, not the name)


@dataclass(frozen=True)
class ActionOutcome:
    action: PaymentAction
    payment: Payment
    replayed: bool = False

    @property
    def held(self) -> bool:
        return self.action.state == State.AWAITING_APPROVAL


@dataclass(frozen=True)
class Said:
    """An operation's answer in words, for a page's message: `level` is "info" (the form was
    sent already), "warning" (held for a second approval), "success" or "error"."""

    level: str
    text: str


def said(outcome: "ActionOutcome") -> Said:
    action, payment = outcome.action, outcome.payment
    amount = "" if payment.amount is None else f" of {payment.amount} {payment.currency}"
    what = f"{action.get_kind_display()}{amount}"
    words = f"{payment.result_code} {payment.result_description}"
    if outcome.replayed:
        return Said("info", f"This form was sent already: {what} answered {words}.")
    if outcome.held:
        limit = approval_threshold(action.currency)
        return Said(
            "warning",
            f"{what} waits for a second staff member's approval (above {limit} "
            f"{action.currency}); its amount is held until then.",
        )
    if payment.successful:
        return Said("success", f"{what}: {words}.")
    return Said("error", f"{what} was refused: {words}.")


class ActionRefused(Exception):
    """What the page says back, in words: the operation was not asked for (a bad amount, no
    reason, the form sent with other values), or a decision that cannot be taken."""


def approval_threshold(currency: str) -> Decimal:
    amounts = settings.BACKOFFICE_APPROVAL_AMOUNT
    return amounts.get(currency, amounts.get("*", Decimal(0)))


def needs_approval(kind: str, channel: str, amount: Decimal, currency: str) -> bool:
    return channel == Channel.ADMIN and kind in HELD and amount > approval_threshold(currency)


def action_request(request: ActionRequest) -> ActionOutcome:
    """Ask for the operation (see the module's note); its outcome, the payment it made."""
    original = _original(request.original_id, request.merchant)
    amount = _checked(request, original)
    # The operation, not the words: the form sent again with its reason edited is the same one.
    fields = {"kind": request.kind, "original": original.pk, "amount": amount}
    action, created = _recorded(request, original, amount)
    if not created and (action.kind, action.original_id, action.amount) != (
        request.kind,
        original.pk,
        amount,
    ):
        raise ActionRefused(
            "this form was already sent with other values: open the payment again",
        )
    whole = amount if amount is not None else original.reversible
    hold = needs_approval(request.kind, request.channel, whole, original.currency)
    outcome = _perform(
        request.kind, original, action, amount, idempotency.fingerprint(fields), hold
    )
    payment = outcome.payment
    assert payment is not None
    if action.payment_id is None:
        _link(action, payment)
        action.refresh_from_db()
    return ActionOutcome(action, payment, replayed=not created)


def _original(original_id: str, merchant: Merchant | None) -> Payment:
    payments = Payment.objects.select_related("merchant", "terminal", "entity")
    if merchant is not None:
        payments = payments.filter(merchant=merchant)
    original = payments.filter(pk=original_id).first()
    if original is None:
        raise NotFound(REFERENCE_NOT_FOUND)
    return original


def _checked(request: ActionRequest, original: Payment) -> Decimal | None:
    if request.kind not in Kind.values:
        raise ActionRefused("unknown operation")
    if not request.reason.strip():
        raise ActionRefused("say why (a reason)")
    if request.kind == Kind.REVERSE:
        return None  # a reversal (void) gives back all that remains
    amount = request.amount
    if amount is None or amount <= 0:
        raise ActionRefused("an amount above 0")
    exponent = minor_units(original.currency)
    if exponent is not None and not within_exponent(amount, exponent):
        raise ActionRefused(
            f"{original.currency} has {exponent} decimals",
        )
    return amount.quantize(Decimal("0.01"))


def _recorded(
    request: ActionRequest, original: Payment, amount: Decimal | None
) -> tuple[PaymentAction, bool]:
    found = PaymentAction.objects.filter(key=request.key).first()
    if found is not None:
        return found, False
    try:
        with transaction.atomic():
            return PaymentAction.objects.create(
                key=request.key,
                original=original,
                kind=request.kind,
                amount=amount,
                currency=original.currency,
                reason=request.reason.strip()[:255],
                channel=request.channel,
                requested_by=request.actor,
                requested_by_user_id=request.user_id,
                state=State.SENT,
            ), True
    except IntegrityError:  # the same form, sent at the same moment: the first one's
        return PaymentAction.objects.get(key=request.key), False


def _perform(
    kind: str,
    original: Payment,
    action: PaymentAction,
    amount: Decimal | None,
    request_hash: str,
    hold: bool,
) -> referenced.PaymentOutcome:
    caller = Caller(original.entity, original.entity_type, original.merchant, original.terminal)
    reference = _reference(action)
    if kind == Kind.REVERSE:
        return referenced.payment_reverse(
            caller=caller,
            reference=reference,
            request_hash=request_hash,
            original_id=original.pk,
            source=TransactionSource.CARDHOLDER,
            hold=hold,
        )
    assert amount is not None
    money = Money(amount, original.currency)
    if kind == Kind.CAPTURE:
        return referenced.payment_capture(
            caller=caller,
            reference=reference,
            request_hash=request_hash,
            original_id=original.pk,
            money=money,
        )
    return referenced.payment_refund(
        caller=caller,
        reference=reference,
        request_hash=request_hash,
        original_id=original.pk,
        money=money,
        hold=hold,
    )


# --- the second approval ------------------------------------------------------------------------


def action_approve(*, action_id: str, actor: str, user_id: int | None = None) -> Payment | None:
    """A second staff member approves a held refund or reversal: it is sent. Refused for the
    one who asked (by user, and by name), and once decided."""
    _decide(action_id, actor, State.APPROVED, note="", user_id=user_id)
    return _carry_out(PaymentAction.objects.get(pk=action_id))


def action_reject(*, action_id: str, actor: str, note: str = "") -> Payment | None:
    """A held refund or reversal rejected (by a second staff member, or withdrawn by the one
    who asked): answered 700.400.800, its amount released, nothing sent."""
    _decide(action_id, actor, State.REJECTED, note=note)
    return _carry_out(PaymentAction.objects.get(pk=action_id))


def _decide(action_id: str, actor: str, state: str, note: str, user_id: int | None = None) -> None:
    awaiting = PaymentAction.objects.filter(pk=action_id, state=State.AWAITING_APPROVAL)
    if state == State.APPROVED:
        awaiting = awaiting.exclude(requested_by=actor)
        if user_id is not None:
            awaiting = awaiting.exclude(requested_by_user_id=user_id)
    decided = awaiting.update(
        state=state, decided_by=actor, decided_at=timezone.now(), decision_note=note[:255]
    )
    if decided:
        return
    action = PaymentAction.objects.filter(pk=action_id).first()
    if action is None:
        raise NotFound(REFERENCE_NOT_FOUND)
    if action.state != State.AWAITING_APPROVAL:
        raise ActionRefused(
            f"already {action.get_state_display().lower()} by {action.decided_by}",
        )
    raise ActionRefused(
        "a second staff member must approve it: not the one who asked",
    )


def _carry_out(action: PaymentAction) -> Payment | None:
    """What the decision means for the held payment (None: it is no longer held)."""
    assert action.payment_id is not None
    if action.state == State.APPROVED:
        return referenced.held_send(payment_id=action.payment_id)
    result = (
        payment_results.APPROVAL_REJECTED
        if action.state == State.REJECTED
        else payment_results.APPROVAL_EXPIRED
    )
    return referenced.held_release(payment_id=action.payment_id, result=result)


def sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Beat: take in held operations whose action a dying process left unlinked, expire what
    waited longer than BACKOFFICE_APPROVAL_HOURS, and finish any decision whose payment is
    still held (a process died between the two). One that fails is logged and left to the next
    pass; it holds up no other."""
    now = now or timezone.now()
    _adopt_orphans(now)
    cutoff = now - timedelta(hours=settings.BACKOFFICE_APPROVAL_HOURS)
    expired = PaymentAction.objects.filter(
        state=State.AWAITING_APPROVAL, requested_at__lt=cutoff
    ).update(state=State.EXPIRED, decided_by="expired", decided_at=now)
    unfinished = PaymentAction.objects.filter(
        state__in=[State.APPROVED, State.REJECTED, State.EXPIRED],
        payment__state=PaymentState.PENDING,
    )
    finished = 0
    for action in unfinished:
        try:
            if _carry_out(action) is not None:
                finished += 1
        except Exception:  # noqa: BLE001 - the next pass tries again
            logger.exception("payment operation %s: its decision not carried out", action.pk)
    return {"expired": expired, "finished": finished}


ORPHAN_AFTER = timedelta(minutes=1)


def _adopt_orphans(now: datetime) -> None:
    """An action still without its payment a minute after it was asked: the process died
    between the claim (which committed, a held one with its amount reserved) and linking it.
    Its payment is found by the reference the key made and linked, so that a held one is
    decided (or expires) and releases what it holds."""
    for action in PaymentAction.objects.filter(
        payment__isnull=True, requested_at__lt=now - ORPHAN_AFTER
    ).select_related("original"):
        payment = Payment.objects.filter(
            merchant_id=action.original.merchant_id, merchant_transaction_id=_reference(action)
        ).first()
        if payment is not None:
            _link(action, payment)


def _link(action: PaymentAction, payment: Payment) -> None:
    held = payment.result_code == payment_results.APPROVAL_AWAITED.code
    PaymentAction.objects.filter(pk=action.pk, payment__isnull=True).update(
        payment=payment, state=State.AWAITING_APPROVAL if held else State.SENT
    )


def _reference(action: PaymentAction) -> str:
    """The merchantTransactionId of the operation an action asks for."""
    return f"bo-{action.key[:29]}"


# --- what a page offers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Possible:
    kind: str
    label: str
    up_to: Decimal | None  # None: no amount asked (a reversal gives back all that remains)


def possible_actions(payment: Payment) -> list[Possible]:
    """The operations a payment's page offers, with what each may still take (the services
    check again under the lock: this only decides which buttons to show)."""
    if not payment.successful or payment.state != PaymentState.DONE:
        return []
    kind = payment.payment_type
    found = []
    if kind == "PA" and payment.closed_at is None and payment.capturable > 0:
        found.append(Possible(Kind.CAPTURE, "Capture", payment.capturable))
    given_back = payment.refunded_amount + payment.refunding_amount
    captured = payment.captured_amount + payment.capturing_amount if kind == "PA" else 0
    if kind in ("PA", "DB", "CD") and payment.reversible > 0 and not (given_back or captured):
        # As the reversal's workflow has it: nothing refunded (or being refunded), a PA not
        # captured (refund it instead).
        found.append(Possible(Kind.REVERSE, "Reverse (void)", None))
    refundable = payment.refundable - (payment.reversed_amount if kind == "DB" else 0)
    if kind in ("PA", "DB") and refundable > 0:
        found.append(Possible(Kind.REFUND, "Refund", refundable))
    return found


def awaiting(original: Payment) -> list[PaymentAction]:
    """The held refunds and reversals of a payment, oldest first."""
    return list(original.actions.filter(state=State.AWAITING_APPROVAL).order_by("requested_at"))
