"""Services of cards, customers and accounts (the Application, Customer, Account and Card
groups). Money moves in issuer.cards.money.

| use case | function |
|---|---|
| may this product run this operation (its letter) | `require_letter` |
| a requestor's card / account / customer | `card_of`, `account_of`, `customer_of` |
| apply for a card | `card_apply` |
| change a card's status (one lifecycle, with reason and actor) | `card_set_status` |
| activate, replace, cancel | `card_activate`, `card_replace`, `card_cancel` |
| limits | `limits_set` |
| PIN | `pin_reset`, `pin_change`, `pin_verify` |
| CVV2, dCVV | `card_cvv2`, `card_cvv2_verify`, `card_dcvv` |
| 3-D Secure channel | `secure_register` |
| customer's contact | `customer_update` |
| account linkage and status | `account_link`, `account_set_status` |

Every read is scoped to the requestor (`client_id`): another requestor's card answers exactly
like an unknown reference. Every change locks the card's row (`select_for_update`) and checks
after the lock. The card number is generated in the product's BIN range with a valid Luhn
digit, stored only in the vault and as its keyed fingerprint; staff and answers see it masked.
"""

import secrets as random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from stdnum import luhn

from core import cards as core_cards
from core import results as core_results
from core.errors import ApplicationError, NotFound, ParameterError

from .. import results
from ..ledger.models import AccountKind, LedgerAccount
from ..ledger.services import held
from . import secrets
from .lookups import NEW_NUMBER_REASONS
from .models import (
    ACCOUNT_LIFECYCLE,
    CARD_LIFECYCLE,
    AccountStatus,
    BinRange,
    Card,
    CardAccount,
    CardForm,
    CardLimit,
    CardProduct,
    CardStatus,
    Customer,
    KycStatus,
    Letter,
    ProductKind,
    ProductOperation,
    SecureChannel,
)

if TYPE_CHECKING:  # the operations import these services
    from ..operations.catalogue import Entry

PAN_ATTEMPTS = 20
T = TypeVar("T")


# --- products and their letters -------------------------------------------------------------


def product_operations_create(product: CardProduct, enabled: Mapping[str, bool] | None = None):
    """The product's applicability table from the catalogue's letters: O enabled, C as
    `enabled` says (default off), M and NA fixed. Operations without letters are not listed."""
    from ..operations.catalogue import CATALOGUE

    enabled = dict(enabled or {})
    rows = []
    for entry in CATALOGUE.values():
        letter = entry.applies(product.kind)
        if letter is None:
            continue
        on = {"M": True, "O": True, "C": False, "NA": False}[letter]
        rows.append(
            ProductOperation(
                product=product,
                operation=entry.path,
                letter=letter,
                enabled=enabled.get(entry.path, on) if letter in ("O", "C") else on,
            )
        )
    ProductOperation.objects.bulk_create(rows, ignore_conflicts=True)


def product_create(
    *,
    code: str,
    name: str,
    kind: str,
    currency: str,
    bins: list[str],
    brand: str = "VISA",
    enabled: Mapping[str, bool] | None = None,
    max_balance: Decimal | None = None,
) -> CardProduct:
    with transaction.atomic():
        product = CardProduct.objects.create(
            code=code, name=name, kind=kind, currency=currency, brand=brand, max_balance=max_balance
        )
        for bin_ in bins:
            BinRange.objects.create(bin=bin_, product=product)
        product_operations_create(product, enabled)
    return product


def require_letter(product: CardProduct, entry: "Entry") -> None:
    """Refuse an operation the product does not run: NA (never), or O/C not enabled."""
    letter = entry.applies(product.kind)
    if letter is None:
        return
    row = ProductOperation.objects.filter(product=product, operation=entry.path).first()
    letter = row.letter if row is not None else letter
    if letter == Letter.NA:
        raise ApplicationError(
            results.NOT_APPLICABLE,
            f"{entry.path} is not applicable to {product.get_kind_display().lower()} product "
            f"{product.code} (NA)",
        )
    if letter == Letter.M:
        return
    if row is None or not row.enabled:
        raise ApplicationError(
            results.NOT_ENABLED,
            f"{entry.path} is not enabled for product {product.code} ({letter}"
            + (": its configuration does not allow it)" if letter == Letter.C else ")"),
        )


# --- look-ups ---------------------------------------------------------------------------------


def _cards(client_id: str) -> QuerySet[Card]:
    return Card.objects.filter(client_id=client_id).select_related(
        "product", "customer", "account__ledger"
    )


def card_of(client_id: str, reference: str, *, lock: bool = False) -> Card:
    query = _cards(client_id).filter(reference=reference)
    if lock:
        query = query.select_for_update(of=("self",))
    card = query.first()
    if card is None:
        raise NotFound(results.CARD_NOT_FOUND)
    return card


def account_of(client_id: str, reference: str, *, lock: bool = False) -> CardAccount:
    query = CardAccount.objects.filter(
        reference=reference, customer__client_id=client_id
    ).select_related("product", "customer", "ledger")
    if lock:
        query = query.select_for_update(of=("self",))
    account = query.first()
    if account is None:
        raise NotFound(results.ACCOUNT_NOT_FOUND)
    return account


def customer_of(client_id: str, reference: str, *, lock: bool = False) -> Customer:
    query = Customer.objects.filter(reference=reference, client_id=client_id)
    if lock:
        query = query.select_for_update()
    customer = query.first()
    if customer is None:
        raise NotFound(results.CUSTOMER_NOT_FOUND)
    return customer


def card_of_number(client_id: str, number: str) -> Card:
    """The requestor's own card with this number, by its keyed fingerprint (the number itself is
    never stored in clear nor logged). Another requestor's card, like an unknown number, is
    CARD_NOT_FOUND: nobody learns which numbers the issuer holds for someone else."""
    card = _cards(client_id).filter(pan_fingerprint=core_cards.fingerprint(number)).first()
    if card is None:
        raise NotFound(results.CARD_NOT_FOUND)
    return card


def card_by_number(number: str) -> Card | None:
    """The issuer's card with this number (any requestor's), by fingerprint (issue 15)."""
    return Card.objects.filter(pan_fingerprint=core_cards.fingerprint(number)).first()


def card_number(card: Card) -> str:
    return core_cards.decrypt_pan(card.pan_ciphertext)


def card_expired(card: Card, today: date | None = None) -> bool:
    return core_cards.expired(
        f"{card.expiry_month:02d}", str(card.expiry_year), today or timezone.localdate()
    )


def product_named(code: str) -> CardProduct:
    product = CardProduct.objects.filter(code=code, active=True).first()
    if product is None:
        raise NotFound(results.PRODUCT_NOT_FOUND)
    return product


# --- applying for a card ---------------------------------------------------------------------


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


def _new_number(bin_range: BinRange) -> str:
    body_length = bin_range.pan_length - len(bin_range.bin) - 1
    body = bin_range.bin + "".join(random.choice("0123456789") for _ in range(body_length))
    return body + luhn.calc_check_digit(body)


def _expiry(product: CardProduct, today: date | None = None) -> tuple[int, int]:
    today = today or timezone.localdate()
    return today.month, today.year + product.card_years


def _ledger_account(name: str, kind: str, currency: str) -> LedgerAccount:
    return LedgerAccount.objects.create(name=name, kind=kind, currency=currency)


def account_create(
    *, customer: Customer, product: CardProduct, iban: str = "", currency: str = ""
) -> CardAccount:
    kind = AccountKind.PREPAID if product.kind == ProductKind.PREPAID else AccountKind.DEBIT
    currency = currency or product.currency
    label = iban or f"{product.code} e-money"
    ledger = _ledger_account(f"{customer.name}: {label}"[:100], kind, currency)
    return CardAccount.objects.create(customer=customer, product=product, ledger=ledger, iban=iban)


def _store_number(card: Card, number: str) -> None:
    card.pan_ciphertext = core_cards.encrypt_pan(number)
    card.pan_fingerprint = core_cards.fingerprint(number)
    card.card_bin = number[:8] if len(number) >= 16 else number[:6]
    card.last4 = number[-4:]


def _save_new_card(card: Card, bin_range: BinRange, number: str | None = None) -> str:
    """Insert `card` with `number`, or with a fresh random number of the range (another when
    one is taken). Returns the number."""
    for _ in range(PAN_ATTEMPTS if number is None else 1):
        candidate = number or _new_number(bin_range)
        _store_number(card, candidate)
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


def card_apply(
    *,
    client_id: str,
    product_code: str,
    customer: Customer | None = None,
    customer_fields: Mapping[str, Any] | None = None,
    form: str,
    delivery: Address = Address(),
    embossed_name: str = "",
    iban: str = "",
    actor: str,
    reference: str = "",
) -> Card:
    """CardApplication: a card of the product for an existing or new customer, with its
    account (a prepaid card's own e-money account; a debit card's linked bank account, `iban`),
    INACTIVE until Activation. A physical card needs a delivery address."""
    product = product_named(product_code)
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
        month, year = _expiry(product)
        card = Card(
            product=product,
            customer=customer,
            account=account,
            client_id=client_id,
            expiry_month=month,
            expiry_year=year,
            embossed_name=(embossed_name or customer.name).upper()[:26],
            form=form,
            **_delivery_fields(delivery if form == CardForm.PHYSICAL else Address()),
        )
        if reference:
            card.reference = reference
        _save_new_card(card, bin_range)
        CARD_LIFECYCLE.record(card, "", CardStatus.INACTIVE, actor=actor, reason="ISSUED")
    return card


def _delivery_fields(address: Address) -> dict[str, str]:
    return {
        "delivery_line1": address.line1,
        "delivery_line2": address.line2,
        "delivery_city": address.city,
        "delivery_postcode": address.postcode,
        "delivery_country": address.country,
    }


# --- status -------------------------------------------------------------------------------------


def _refuse_transition(card: Card, target: str) -> None:
    if not CARD_LIFECYCLE.allows(card.status, target):
        raise ApplicationError(
            results.CARD_STATUS_NOT_ALLOWED,
            f"a card in status {card.status} cannot become {target}",
            data={"status": card.status},
        )


def card_set_status(card: Card, target: str, *, reason: str, actor: str) -> Card:
    """Move a locked card to `target` (the lifecycle's map), recording who, when and why."""
    _refuse_transition(card, target)
    card.status_reason = reason
    CARD_LIFECYCLE.apply(
        card, target, actor=actor, save_fields=["status_reason"], history={"reason": reason}
    )
    return card


def card_change_status(
    *, client_id: str, reference: str, target: str, reason: str, actor: str
) -> Card:
    with transaction.atomic():
        card = card_of(client_id, reference, lock=True)
        return card_set_status(card, target, reason=reason, actor=actor)


def card_activate(*, card: Card, actor: str) -> Card:
    """Activation: INACTIVE -> ACTIVE, once the customer's KYC is VERIFIED and the card is in
    date."""
    with transaction.atomic():
        card = Card.objects.select_for_update().select_related("customer").get(pk=card.pk)
        _refuse_transition(card, CardStatus.ACTIVE)
        if card.status != CardStatus.INACTIVE:
            raise ApplicationError(
                results.CARD_STATUS_NOT_ALLOWED,
                f"only an INACTIVE card is activated (this one is {card.status})",
                data={"status": card.status},
            )
        if card.customer.kyc_status != KycStatus.VERIFIED:
            raise ApplicationError(results.KYC_NOT_VERIFIED)
        if card_expired(card):
            raise ApplicationError(results.CARD_EXPIRED)
        return card_set_status(card, CardStatus.ACTIVE, reason="ACTIVATED", actor=actor)


def card_cancel(*, card: Card, reason: str, actor: str) -> Card:
    with transaction.atomic():
        card = Card.objects.select_for_update().get(pk=card.pk)
        return card_set_status(card, CardStatus.CANCELLED, reason=reason, actor=actor)


REPLACE_SAME, REPLACE_SPECIFIC, REPLACE_RANDOM = "SAME", "SPECIFIC", "RANDOM"


def card_replace(
    *,
    card: Card,
    mode: str,
    reason: str,
    actor: str,
    number: str = "",
    form: str = "",
    delivery: Address = Address(),
) -> Card:
    """Replacement: a new card for the same customer and account; the old one becomes
    REPLACED (after LOST or STOLEN when that is the reason) and points at the new one. The new
    number is the same (SAME: not for a lost, stolen or compromised card), one the requestor
    chose in the product's BIN range (SPECIFIC) or a random one (RANDOM). `form` PHYSICAL turns
    a virtual card into a physical one (delivery address needed). The new card keeps the
    limits, the PIN and the 3-D Secure channel, and starts INACTIVE."""
    with transaction.atomic():
        old = Card.objects.select_for_update().select_related("product").get(pk=card.pk)
        _refuse_transition(old, CardStatus.REPLACED)
        if mode == REPLACE_SAME and (
            reason in NEW_NUMBER_REASONS or old.status in (CardStatus.LOST, CardStatus.STOLEN)
        ):
            why = old.status if old.status in (CardStatus.LOST, CardStatus.STOLEN) else reason
            raise ParameterError(
                [("replacementType", mode, f"a card replaced as {why} gets a new number")]
            )
        form = form or old.form
        if form == CardForm.PHYSICAL and not delivery.complete:
            if old.form == CardForm.PHYSICAL:
                delivery = Address(
                    old.delivery_line1,
                    old.delivery_line2,
                    old.delivery_city,
                    old.delivery_postcode,
                    old.delivery_country,
                )
            else:
                raise ParameterError(
                    [("deliveryAddress.line1", None, "a physical card needs a delivery address")]
                )
        if old.form == CardForm.PHYSICAL and form == CardForm.VIRTUAL:
            raise ParameterError(
                [("cardForm", form, "a physical card is replaced by a physical card")]
            )
        bin_range = _bin_range_for(old.product, number) if mode == REPLACE_SPECIFIC else None
        if reason in ("LOST", "STOLEN") and CARD_LIFECYCLE.allows(old.status, reason):
            card_set_status(old, reason, reason=reason, actor=actor)
        month, year = _expiry(old.product)
        new = Card(
            product=old.product,
            customer_id=old.customer_id,
            account_id=old.account_id,
            client_id=old.client_id,
            expiry_month=month,
            expiry_year=year,
            embossed_name=old.embossed_name,
            form=form,
            pin_hash=old.pin_hash,
            secure_channel=old.secure_channel,
            **_delivery_fields(delivery if form == CardForm.PHYSICAL else Address()),
        )
        if mode == REPLACE_SAME:
            # The same number on a new card: the old card's fingerprint moves to the new one.
            same = card_number(old)
            old.pan_fingerprint = f"replaced:{old.pk}"
            old.save(update_fields=["pan_fingerprint"])
            _store_number(new, same)
            new.save(force_insert=True)
        elif mode == REPLACE_SPECIFIC:
            assert bin_range is not None
            _save_new_card(new, bin_range, number)
        else:
            bin_range = old.product.bin_ranges.filter(active=True).order_by("pk").first()
            if bin_range is None:
                raise ApplicationError(
                    results.NOT_ENABLED, f"product {old.product.code} has no active BIN range"
                )
            _save_new_card(new, bin_range)
        CARD_LIFECYCLE.record(new, "", CardStatus.INACTIVE, actor=actor, reason=reason)
        CardLimit.objects.bulk_create(
            CardLimit(
                card=new,
                region=limit.region,
                channel=limit.channel,
                per_transaction=limit.per_transaction,
                daily_amount=limit.daily_amount,
                daily_count=limit.daily_count,
                monthly_amount=limit.monthly_amount,
                monthly_count=limit.monthly_count,
            )
            for limit in old.limits.all()
        )
        old.replaced_by = new
        old.save(update_fields=["replaced_by"])
        card_set_status(old, CardStatus.REPLACED, reason=reason, actor=actor)
    return new


def _bin_range_for(product: CardProduct, number: str) -> BinRange:
    if not (number.isdigit() and luhn.is_valid(number)):
        raise ParameterError([("cardNumber", "***", "not a card number (Luhn check)")])
    for bin_range in product.bin_ranges.filter(active=True):
        if number.startswith(bin_range.bin) and len(number) == bin_range.pan_length:
            return bin_range
    raise ParameterError([("cardNumber", "***", f"not in a BIN range of product {product.code}")])


# --- limits -------------------------------------------------------------------------------------

LIMIT_FIELDS = ("per_transaction", "daily_amount", "daily_count", "monthly_amount", "monthly_count")


def limits_set(*, card: Card, rows: list[dict[str, Any]]) -> list[CardLimit]:
    """LimitSetting: each row (region, channel and any of LIMIT_FIELDS; None clears a limit)
    replaces that region's and channel's limits. Under the card's lock, like the money that
    the limits count."""
    with transaction.atomic():
        Card.objects.select_for_update().get(pk=card.pk)
        for row in rows:
            CardLimit.objects.update_or_create(
                card=card,
                region=row["region"],
                channel=row["channel"],
                defaults={name: row.get(name) for name in LIMIT_FIELDS},
            )
    return list(card.limits.all())


def under_card_lock(card: Card, change: Callable[[], T]) -> T:
    """Run `change` in a transaction holding the card's row lock (staff's limit edits)."""
    with transaction.atomic():
        Card.objects.select_for_update().get(pk=card.pk)
        return change()


# --- PIN, CVV2, dCVV ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PinOutcome:
    result: core_results.Result
    tries_left: int


def _pin_tries_left(card: Card) -> int:
    return max(0, secrets.MAX_PIN_FAILURES - card.pin_failures)


def pin_reset(*, card: Card, new_pin: str) -> Card:
    """PINReset: a new PIN (the issuer's reset, e.g. after it was blocked); the tries start
    again."""
    with transaction.atomic():
        card = Card.objects.select_for_update().get(pk=card.pk)
        card.pin_hash = secrets.pin_hash(new_pin)
        card.pin_failures = 0
        card.save(update_fields=["pin_hash", "pin_failures", "updated_at"])
    return card


def _check_pin(card: Card, pin: str) -> PinOutcome:
    """On a locked card: a wrong PIN uses one of the three tries (stored: it is an outcome)."""
    if not card.pin_hash:
        return PinOutcome(results.PIN_NOT_SET, _pin_tries_left(card))
    if card.pin_blocked:
        return PinOutcome(results.PIN_BLOCKED, 0)
    if secrets.pin_matches(pin, card.pin_hash):
        if card.pin_failures:
            card.pin_failures = 0
            card.save(update_fields=["pin_failures", "updated_at"])
        return PinOutcome(core_results.REQUEST_SUCCEEDED, _pin_tries_left(card))
    card.pin_failures += 1
    card.save(update_fields=["pin_failures", "updated_at"])
    blocked = card.pin_blocked
    return PinOutcome(results.PIN_BLOCKED if blocked else results.WRONG_PIN, _pin_tries_left(card))


def pin_verify(*, card: Card, pin: str) -> PinOutcome:
    with transaction.atomic():
        locked = Card.objects.select_for_update().get(pk=card.pk)
        return _check_pin(locked, pin)


def pin_change(*, card: Card, old_pin: str, new_pin: str) -> PinOutcome:
    with transaction.atomic():
        locked = Card.objects.select_for_update().get(pk=card.pk)
        outcome = _check_pin(locked, old_pin)
        if outcome.result.is_success:
            locked.pin_hash = secrets.pin_hash(new_pin)
            locked.save(update_fields=["pin_hash", "updated_at"])
        return outcome


def _virtual_only(card: Card) -> None:
    if card.form != CardForm.VIRTUAL:
        raise ApplicationError(results.VIRTUAL_ONLY)
    _codes_allowed(card)


def _codes_allowed(card: Card) -> None:
    """Security codes only for a card that can still pay (INACTIVE, ACTIVE or SUSPENDED): never
    for one lost, stolen, expired or ended."""
    refusal = {
        CardStatus.LOST: results.CARD_LOST,
        CardStatus.STOLEN: results.CARD_STOLEN,
        CardStatus.EXPIRED: results.CARD_EXPIRED,
        CardStatus.CANCELLED: results.CARD_NOT_ACTIVE,
        CardStatus.REPLACED: results.CARD_NOT_ACTIVE,
    }.get(CardStatus(card.status))
    if refusal is not None:
        raise ApplicationError(refusal, f"no security code for a card in status {card.status}")


def card_cvv2(card: Card) -> str:
    _virtual_only(card)
    return secrets.cvv2(card_number(card), card.expiry_month, card.expiry_year)


def card_cvv2_verify(card: Card, candidate: str) -> bool:
    _virtual_only(card)
    return secrets.cvv2_matches(card_number(card), card.expiry_month, card.expiry_year, candidate)


def card_dcvv(card: Card, moment: datetime | None = None) -> tuple[str, datetime]:
    _codes_allowed(card)
    window = secrets.dcvv_window(moment)
    code = secrets.dcvv(card_number(card), card.expiry_month, card.expiry_year, window)
    return code, secrets.dcvv_valid_until(window)


def security_code_matches(card: Card, candidate: str) -> bool:
    """A CVV2 or a current dCVV (transaction/Verification, issue 15's on-us connector)."""
    number = card_number(card)
    return secrets.cvv2_matches(
        number, card.expiry_month, card.expiry_year, candidate
    ) or secrets.dcvv_matches(number, card.expiry_month, card.expiry_year, candidate)


def expiry_matches(card: Card, month: int, year: int) -> bool:
    return (card.expiry_month, card.expiry_year) == (month, year)


# --- 3-D Secure channel, customer, account ------------------------------------------------------


def secure_register(*, card: Card, channel: str) -> Card:
    """SecureRegist: the channel of the cardholder's 3-D Secure challenges: a one-time
    password by SMS (the customer's mobile) or e-mail, or out of band in the issuer's app;
    NONE unregisters."""
    customer = card.customer
    if (channel == SecureChannel.SMS and not customer.mobile) or (
        channel == SecureChannel.EMAIL and not customer.email
    ):
        raise ApplicationError(results.NO_CONTACT_FOR_CHANNEL)
    with transaction.atomic():
        card = Card.objects.select_for_update().get(pk=card.pk)
        card.secure_channel = channel
        card.save(update_fields=["secure_channel", "updated_at"])
    return card


CUSTOMER_UPDATABLE = (
    "email",
    "mobile",
    "address_line1",
    "address_line2",
    "city",
    "postcode",
    "country",
    "kyc_status",
)


def customer_update(*, customer: Customer, changes: Mapping[str, str]) -> Customer:
    with transaction.atomic():
        customer = Customer.objects.select_for_update().get(pk=customer.pk)
        for name, value in changes.items():
            assert name in CUSTOMER_UPDATABLE, name
            setattr(customer, name, value)
        customer.save()
    return customer


def account_link(*, card: Card, iban: str = "", account: CardAccount | None = None) -> Card:
    """AccountLinkage: a debit card to a bank account (its IBAN: the customer's account with it,
    made when new); a prepaid card to another e-money account of the same customer and
    currency."""
    with transaction.atomic():
        card = (
            Card.objects.select_for_update().select_related("product", "customer").get(pk=card.pk)
        )
        if card.product.kind == ProductKind.DEBIT:
            if not iban:
                raise ParameterError([("iban", None, "a debit card is linked to an IBAN")])
            found = CardAccount.objects.filter(
                customer=card.customer, product=card.product, iban=iban
            ).first()
            account = found or account_create(
                customer=card.customer, product=card.product, iban=iban
            )
        else:
            if account is None:
                raise ParameterError(
                    [("accountReference", None, "a prepaid card is linked to an account")]
                )
            if account.customer_id != card.customer_id or account.currency != card.product.currency:
                raise ParameterError(
                    [
                        (
                            "accountReference",
                            account.reference,
                            "an account of the card's customer in the product's currency",
                        )
                    ]
                )
        card.account = account
        card.save(update_fields=["account", "updated_at"])
    return card


def account_set_status(*, account: CardAccount, target: str, actor: str) -> CardAccount:
    with transaction.atomic():
        account = CardAccount.objects.select_for_update().get(pk=account.pk)
        if not ACCOUNT_LIFECYCLE.allows(account.status, target):
            raise ApplicationError(
                results.ACCOUNT_STATUS_NOT_ALLOWED,
                f"an account in status {account.status} cannot become {target}",
            )
        money = LedgerAccount.objects.select_for_update().get(pk=account.ledger_id)
        if target == AccountStatus.CLOSED and (money.balance != 0 or held(money) != 0):
            raise ApplicationError(
                results.ACCOUNT_STATUS_NOT_ALLOWED,
                f"the account still holds {money.balance:.2f} {money.currency} (or blocked "
                "funds): pay it out before closing it",
            )
        ACCOUNT_LIFECYCLE.apply(account, target, actor=actor)
    return account
