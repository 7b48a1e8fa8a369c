"""Standing instructions (card on file): the chain a CIT sets up and the rules its MITs meet.

`reserve` runs in the claim transaction of a merchant-initiated payment (MIT), before the
network is asked: it locks the chain the MIT names and refuses, with a result code and nothing
written, an MIT that names no successful CIT of this merchant and card, comes after the
instruction's expiry, exceeds its installments, comes sooner than its frequency allows, or
resubmits without a declined MIT before it. It then counts the MIT as in flight, so a second MIT
of the chain claimed meanwhile sees it (two MITs at once never both pass the frequency rule).

`settle` runs in the finalize transaction of every PA, DB and CV (with the network's answer):
an approved CIT with mode INITIAL creates the chain (its initialTransactionId is the network's
transaction id of the CIT); an MIT's reservation is released, and counted when approved.

Time: `now` is an argument wherever a rule depends on it, so tests move the clock. Frequencies
are whole days between the dates (UTC) of two authorizations; a multiple of 28 days counts
calendar months (28 = monthly, 168 = six months): the day of the month comes round again, or the
month's last day when it has fewer days.
"""

import calendar
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

from django.utils import timezone

from core.errors import ApplicationError

from .. import results
from ..models import Payment, PaymentState
from .lock_objects import instruction_lock, instruction_lock_for
from .models import InstructionType, StandingInstruction
from .types import StandingInstructionRequest

SI = "standingInstruction."
MONTH_DAYS = 28


def reserve(
    *, payment: Payment, standing: StandingInstructionRequest, now: datetime
) -> StandingInstruction:
    """Lock the chain an MIT names, check its rules and count the MIT in flight on it."""
    chain = instruction_lock_for(
        merchant_id=payment.merchant_id, initial_transaction_id=standing.initial_transaction_id
    )
    if chain is None or chain.pan_fingerprint != payment.pan_fingerprint:
        raise ApplicationError(results.INSTRUCTION_UNKNOWN)
    if standing.type and standing.type != chain.type:
        raise ApplicationError(
            results.INSTRUCTION_TYPE_MISMATCH,
            f"standingInstruction.type {standing.type} differs from the initial transaction's "
            f"{chain.type}",
        )
    today = now.date()
    if chain.expiry is not None and today > chain.expiry:
        raise ApplicationError(
            results.INSTRUCTION_EXPIRED,
            f"standing instruction expired on {chain.expiry:%Y-%m-%d}: no authorization after it",
        )
    if (
        chain.type == InstructionType.INSTALLMENT
        and chain.number_of_installments is not None
        and chain.authorizations + chain.in_flight >= chain.number_of_installments
    ):
        raise ApplicationError(
            results.INSTRUCTION_INSTALLMENTS_USED,
            f"standing instruction complete: {chain.number_of_installments} installments "
            "authorized (or in flight)",
        )
    previous = _previous_authorization(chain)
    if chain.frequency_days and previous is not None:
        allowed = next_allowed(previous.date(), chain.frequency_days)
        if today < allowed:
            raise ApplicationError(
                results.INSTRUCTION_TOO_SOON,
                f"standing instruction: the next authorization may come on {allowed:%Y-%m-%d} "
                f"(frequency {chain.frequency_days} days)",
            )
    if standing.industry_practice == "RESUBMISSION" and not _follows_declined_mit(chain):
        raise ApplicationError(results.INSTRUCTION_NO_DECLINE_TO_RESUBMIT)
    chain.in_flight += 1
    chain.in_flight_since = now if chain.in_flight == 1 else chain.in_flight_since
    chain.save(update_fields=["in_flight", "in_flight_since"])
    return chain


def _previous_authorization(chain: StandingInstruction) -> datetime | None:
    """The last approved authorization of the chain, or an MIT still in flight (it may yet be
    approved: the next one is measured from it)."""
    moments = [m for m in (chain.last_authorized_at, chain.in_flight_since) if m is not None]
    return max(moments) if moments else None


def next_allowed(previous: date, frequency_days: int) -> date:
    """The first date an authorization may come after one on `previous`."""
    if frequency_days % MONTH_DAYS:
        return previous + timedelta(days=frequency_days)
    months = previous.month - 1 + frequency_days // MONTH_DAYS
    year, month = previous.year + months // 12, months % 12 + 1
    return date(year, month, min(previous.day, calendar.monthrange(year, month)[1]))


def _follows_declined_mit(chain: StandingInstruction) -> bool:
    latest = (
        Payment.objects.filter(standing_instruction=chain, state=PaymentState.DONE)
        .exclude(pk=chain.initial_payment_id)
        .order_by("-created_at")
        .only("successful")
        .first()
    )
    return latest is not None and not latest.successful


def settle(payment: Payment, *, approved: bool, network_transaction_id: str) -> None:
    """In the finalize transaction: create the chain of an approved CIT INITIAL, or settle an
    MIT's reservation."""
    if payment.standing_instruction_id is not None:
        chain = instruction_lock(payment.standing_instruction_id)
        chain.in_flight = max(chain.in_flight - 1, 0)
        if approved:
            chain.authorizations += 1
            moment = chain.in_flight_since or timezone.now()
            chain.last_authorized_at = max(filter(None, (chain.last_authorized_at, moment)))
        if chain.in_flight == 0:
            chain.in_flight_since = None
        chain.save(
            update_fields=["in_flight", "in_flight_since", "authorizations", "last_authorized_at"]
        )
        payment.standing_instruction = chain
        return
    standing = standing_of(payment)
    if not approved or standing is None or standing.source != "CIT" or not standing.initial:
        return
    authorized = payment.payment_type != "CV"  # a verification moves no money
    payment.standing_instruction = StandingInstruction.objects.create(
        merchant_id=payment.merchant_id,
        initial_payment=payment,
        initial_transaction_id=network_transaction_id,
        registration=payment.registration,
        pan_fingerprint=payment.pan_fingerprint,
        type=standing.type or InstructionType.UNSCHEDULED,
        frequency_days=standing.frequency,
        number_of_installments=standing.installments,
        expiry=standing.expiry,
        authorizations=1 if authorized else 0,
        last_authorized_at=timezone.now() if authorized else None,
    )


def standing_of(payment: Payment) -> StandingInstructionRequest | None:
    """A payment's standing instruction as it was sent (kept with its data groups)."""
    return standing_from(payment.data)


def standing_from(values: Mapping[str, Any]) -> StandingInstructionRequest | None:
    """standingInstruction.* of a request's validated values (or of a payment's stored data,
    where the date is text); None without a source. The mode defaults to REPEATED for an MIT and
    INITIAL for a CIT."""
    source = values.get(SI + "source")
    if not source:
        return None
    expiry = values.get(SI + "expiry")
    frequency = values.get(SI + "frequency")
    installments = values.get(SI + "numberOfInstallments")
    return StandingInstructionRequest(
        source=source,
        mode=values.get(SI + "mode") or ("REPEATED" if source == "MIT" else "INITIAL"),
        type=values.get(SI + "type") or "",
        initial_transaction_id=values.get(SI + "initialTransactionId") or "",
        industry_practice=values.get(SI + "industryPractice") or "",
        expiry=date.fromisoformat(expiry) if isinstance(expiry, str) and expiry else expiry or None,
        frequency=int(frequency) if frequency else None,
        installments=int(installments) if installments else None,
    )


def standing_data(standing: StandingInstructionRequest) -> dict[str, str]:
    """standingInstruction.* as a payment keeps them with its data groups (the inverse of
    `standing_from`): what the network is told and the answers echo."""
    values = {
        "source": standing.source,
        "mode": standing.mode,
        "type": standing.type,
        "initialTransactionId": standing.initial_transaction_id,
        "industryPractice": standing.industry_practice,
        "expiry": f"{standing.expiry:%Y-%m-%d}" if standing.expiry else "",
        "frequency": str(standing.frequency or ""),
        "numberOfInstallments": str(standing.installments or ""),
    }
    return {SI + name: value for name, value in values.items() if value}
