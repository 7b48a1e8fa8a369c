"""CardApplication: a card of a product for an existing or new customer, with its account.

The card number is generated in the product's BIN range with a valid Luhn digit (from the
operating system's CSPRNG), stored only in the vault and as its keyed fingerprint; staff and
answers see it masked. A number already issued is detected by the fingerprint's unique index,
and another is drawn. Replacement (lifecycle.py) issues its new card with the same helpers.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from secrets import choice  # the standard library's CSPRNG (../secrets.py is the card codes)
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from stdnum import luhn

from core import cards as core_cards
from core import results as core_results
from core.errors import ApplicationError, ParameterError

from ... import results
from ...ledger.models import AccountKind, LedgerAccount
from ..models import (
    CARD_LIFECYCLE,
    BinRange,
    Card,
    CardAccount,
    CardForm,
    CardProduct,
    CardStatus,
    Customer,
    ProductKind,
)
from ..selectors import product_named

PAN_ATTEMPTS = 20
DIGITS = "0123456789"


@dataclass(frozen=True)
class Address:
    line1: str = ""
    line2: str = ""
    city: str = ""
    postcode: str = ""
    country: str = ""

    @property
    def complete(self) -> bool:
        return bool(self.line1 and self.city and self.country)


NO_ADDRESS = Address()


def delivery_fields(*, address: Address) -> dict[str, str]:
    return {
        "delivery_line1": address.line1,
        "delivery_line2": address.line2,
        "delivery_city": address.city,
        "delivery_postcode": address.postcode,
        "delivery_country": address.country,
    }


def card_expiry(*, product: CardProduct, today: date | None = None) -> tuple[int, int]:
    """A new card's expiry (month, year): this month, the product's years on."""
    today = today or timezone.localdate()
    return today.month, today.year + product.card_years


def _new_number(bin_range: BinRange) -> str:
    body_length = bin_range.pan_length - len(bin_range.bin) - 1
    body = bin_range.bin + "".join(choice(DIGITS) for _ in range(body_length))
    return body + luhn.calc_check_digit(body)


def store_number(*, card: Card, number: str) -> None:
    """The number on an unsaved card: vault ciphertext, fingerprint, BIN and last four."""
    card.pan_ciphertext = core_cards.encrypt_pan(number)
    card.pan_fingerprint = core_cards.fingerprint(number)
    card.card_bin = number[:8] if len(number) >= 16 else number[:6]
    card.last4 = number[-4:]


def save_new_card(*, card: Card, bin_range: BinRange, number: str | None = None) -> str:
    """Insert `card` with `number`, or with a fresh random number of the range (another when
    one is taken). Returns the number."""
    for _ in range(PAN_ATTEMPTS if number is None else 1):
        candidate = number or _new_number(bin_range)
        store_number(card=card, number=candidate)
        try:
            with transaction.atomic():
                card.save(force_insert=True)
            return candidate
        except IntegrityError:
            if Card.objects.filter(pan_fingerprint=card.pan_fingerprint).exists():
                if number is not None:
                    raise ApplicationError(
                        core_results.DUPLICATE_ENTRY, "this card number is already issued"
                    ) from None
                continue
            raise
    raise RuntimeError(f"no free card number in BIN {bin_range.bin} after {PAN_ATTEMPTS} tries")


def account_create(
    *, customer: Customer, product: CardProduct, iban: str = "", currency: str = ""
) -> CardAccount:
    """A card account over a new ledger account: a prepaid card's e-money, or the bank
    account (`iban`) a debit card is linked to."""
    kind = AccountKind.PREPAID if product.kind == ProductKind.PREPAID else AccountKind.DEBIT
    currency = currency or product.currency
    label = iban or f"{product.code} e-money"
    ledger = LedgerAccount.objects.create(
        name=f"{customer.name}: {label}"[:100], kind=kind, currency=currency
    )
    return CardAccount.objects.create(customer=customer, product=product, ledger=ledger, iban=iban)


def card_apply(
    *,
    client_id: str,
    product_code: str,
    customer: Customer | None = None,
    customer_fields: Mapping[str, Any] | None = None,
    form: str,
    delivery: Address = NO_ADDRESS,
    embossed_name: str = "",
    iban: str = "",
    actor: str,
    reference: str = "",
) -> Card:
    """CardApplication: a card of the product for an existing or new customer, with its
    account (a prepaid card's own e-money account; a debit card's linked bank account, `iban`),
    INACTIVE until Activation. A physical card needs a delivery address."""
    product = product_named(code=product_code)
    bin_range = product.bin_ranges.filter(active=True).order_by("pk").first()
    if bin_range is None:
        raise ApplicationError(
            results.NOT_ENABLED, f"product {product.code} has no active BIN range"
        )
    if form == CardForm.PHYSICAL and not delivery.complete:
        raise ParameterError(
            [("deliveryAddress.line1", None, "a physical card needs a delivery address")]
        )
    if product.kind == ProductKind.DEBIT and not iban:
        raise ParameterError([("iban", None, "a debit card is linked to a bank account (IBAN)")])
    with transaction.atomic():
        if customer is None:
            customer = Customer.objects.create(client_id=client_id, **dict(customer_fields or {}))
        account = account_create(customer=customer, product=product, iban=iban)
        month, year = card_expiry(product=product)
        card = Card(
            product=product,
            customer=customer,
            account=account,
            client_id=client_id,
            expiry_month=month,
            expiry_year=year,
            embossed_name=(embossed_name or customer.name).upper()[:26],
            form=form,
            **delivery_fields(address=delivery if form == CardForm.PHYSICAL else NO_ADDRESS),
        )
        if reference:
            card.reference = reference
        save_new_card(card=card, bin_range=bin_range)
        CARD_LIFECYCLE.record(card, "", CardStatus.INACTIVE, actor=actor, reason="ISSUED")
    return card
