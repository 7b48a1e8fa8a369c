"""Hosted checkouts: create one, and pay it once from its page.

| use case | function |
|---|---|
| create a checkout (the merchant's server) | `checkout_create` |
| pay it (the shopper's browser, through the page) | `checkout_pay` |
| read it (its payment, or why there is none) | `selectors.checkout_get` |

The payment goes through the same use cases as an API payment (`payment_authorize`,
`payment_debit`) with the checkout's merchantTransactionId; a 3-D Secure authentication returns
the shopper to the checkout's own result page, which sends them on to the merchant's
shopperResultUrl.
"""

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import idempotency
from core.errors import ApplicationError
from core.lookups import one
from core.results import DUPLICATE_TRANSACTION

from ..models import Payment
from ..services import initial
from ..services.types import (
    Caller,
    Card,
    Details,
    Money,
    PaymentOutcome,
    StoredCard,
    ThreeDSRequest,
)
from .lock_objects import checkout_lock
from .models import CHECKOUT_LIFECYCLE, Checkout, CheckoutStatus


def checkout_create(
    *,
    caller: Caller,
    reference: str,
    payment_type: str,
    money: Money,
    shopper_result_url: str,
    create_registration: bool,
    merchant_customer_id: str,
    fields: Mapping[str, str],
    now: datetime | None = None,
) -> Checkout:
    """A checkout of `money` for the caller's merchant. `fields` are the payment's other fields
    as the API takes them (text by dotted name: groups, standing instruction, descriptor, ...),
    validated again with the card when the shopper pays. 800.110.100 when the merchant already
    used `reference` for a payment or another checkout."""
    moment = now or timezone.now()
    with transaction.atomic():
        taken = Payment.objects.filter(merchant=caller.merchant, merchant_transaction_id=reference)
        if one(taken) is not None or one(
            Checkout.objects.filter(merchant=caller.merchant, merchant_transaction_id=reference)
        ):
            raise ApplicationError(DUPLICATE_TRANSACTION)
        return Checkout.objects.create(
            merchant=caller.merchant,
            entity=caller.entity,
            entity_type=caller.entity_type,
            merchant_transaction_id=reference,
            payment_type=payment_type,
            amount=money.amount,
            currency=money.currency,
            shopper_result_url=shopper_result_url,
            create_registration=create_registration,
            merchant_customer_id=merchant_customer_id,
            data=dict(fields),
            expires_at=moment + timedelta(minutes=settings.CHECKOUT_LIFETIME_MINUTES),
        )


def checkout_use(*, checkout_id: str, now: datetime | None = None) -> Checkout:
    """Take an OPEN checkout for its one payment (OPEN -> USED). Refused with 409: 100.396.104
    when it has expired (recorded as EXPIRED, whether or not anything tidied up before), and
    700.400.730 when it was used already."""
    moment = now or timezone.now()
    with transaction.atomic():
        checkout = checkout_lock(checkout_id)
        if checkout.status == CheckoutStatus.OPEN and checkout.expires_at <= moment:
            CHECKOUT_LIFECYCLE.apply(checkout, CheckoutStatus.EXPIRED)
            expired = True
        else:
            expired = False
            CHECKOUT_LIFECYCLE.apply(checkout, CheckoutStatus.USED)
    if expired:
        CHECKOUT_LIFECYCLE.check(CheckoutStatus.EXPIRED, CheckoutStatus.USED)  # raises
    return checkout


def checkout_pay(
    *,
    checkout_id: str,
    card: Card | StoredCard,
    details: Details,
    threeds: ThreeDSRequest,
    base_url: str,
    now: datetime | None = None,
) -> PaymentOutcome:
    """Pay a checkout once with the shopper's card or one of the merchant's stored cards. The
    checkout is taken first (a second submission, or one after expiry, is refused before any
    payment); the payment carries its merchantTransactionId, amount and fields. With 3-D Secure
    the shopper comes back to the checkout's result page."""
    checkout = checkout_use(checkout_id=checkout_id, now=now)
    caller = Caller(checkout.entity, checkout.entity_type, checkout.merchant, None, base_url)
    use_case = initial.payment_authorize if checkout.payment_type == "PA" else initial.payment_debit
    outcome = use_case(
        caller=caller,
        reference=checkout.merchant_transaction_id,
        request_hash=idempotency.fingerprint({"checkout": checkout.pk}),
        money=Money(checkout.amount, checkout.currency),
        card=card,
        details=replace(details, create_registration=checkout.create_registration),
        threeds=replace(
            threeds, shopper_result_url=f"{base_url.rstrip('/')}/checkout/{checkout.pk}/result"
        ),
        now=now,
    )
    if outcome.payment is not None:
        with transaction.atomic():
            Checkout.objects.filter(pk=checkout.pk).update(payment=outcome.payment)
    return outcome
