"""The embedded demo's issuer data (issuer_demo, run by `make run` after seed_demo): two card
products, and for the demo requestor a prepaid card with a balance and a debit card, both
ACTIVE, with fixed references so docs/issuer.md's examples name them. Made once; running it
again changes nothing."""

from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction

from tokenization import services as tokens
from tokenization.models import Token

from .cards import money, services
from .cards.models import Card, CardForm, CardProduct, KycStatus, ProductKind, SecureChannel

PREPAID_PRODUCT, DEBIT_PRODUCT = "DEMO-PREPAID-EUR", "DEMO-DEBIT-EUR"
PREPAID_BIN, DEBIT_BIN = "45950000", "45951000"
PREPAID_CARD, DEBIT_CARD = "crd_demo_prepaid", "crd_demo_debit"
DEMO_PIN = "1234"
DEMO_IBAN = "DE89370400440532013000"
PREPAID_LOAD = Decimal("500.00")
DEBIT_FUNDS = Decimal("2500.00")
# The demo products run every C operation (a product that does not answers 600.200.510).
PREPAID_CONDITIONS = {
    "transaction/Withdraw": True,
    "transaction/Purchase": True,
    "transaction/Refund": True,
    "transaction/BlockFund": True,
    "transaction/UnblockFund": True,
    "card/StatusUpdate": True,
}
DEBIT_CONDITIONS = {"card/StatusUpdate": True}


@dataclass(frozen=True)
class DemoCards:
    prepaid: Card
    debit: Card


def products() -> tuple[CardProduct, CardProduct]:
    prepaid = CardProduct.objects.filter(code=PREPAID_PRODUCT).first() or services.product_create(
        code=PREPAID_PRODUCT,
        name="Demo prepaid card",
        kind=ProductKind.PREPAID,
        currency="EUR",
        bins=[PREPAID_BIN],
        enabled=PREPAID_CONDITIONS,
        max_balance=Decimal("10000.00"),
    )
    debit = CardProduct.objects.filter(code=DEBIT_PRODUCT).first() or services.product_create(
        code=DEBIT_PRODUCT,
        name="Demo debit card",
        kind=ProductKind.DEBIT,
        currency="EUR",
        bins=[DEBIT_BIN],
        enabled=DEBIT_CONDITIONS,
    )
    return prepaid, debit


CUSTOMER = {
    "first_name": "Erika",
    "last_name": "Mustermann",
    "email": "erika@example.org",
    "mobile": "+4915112345678",
    "address_line1": "Heidestrasse 17",
    "city": "Koeln",
    "postcode": "51147",
    "country": "DE",
    "kyc_status": KycStatus.VERIFIED,
}


def _card(client_id: str, reference: str, product: str, iban: str = "") -> Card:
    found = Card.objects.filter(client_id=client_id, reference=reference).first()
    if found is not None:
        return found
    card = services.card_apply(
        client_id=client_id,
        product_code=product,
        customer_fields=CUSTOMER,
        form=CardForm.VIRTUAL,
        actor="demo",
        reference=reference,
        iban=iban,
    )
    services.card_activate(card=card, actor="demo")
    services.pin_reset(card=card, new_pin=DEMO_PIN)
    return card


def demo_cards(client_id: str) -> DemoCards:
    products()
    with transaction.atomic():
        prepaid = _card(client_id, PREPAID_CARD, PREPAID_PRODUCT)
        debit = _card(client_id, DEBIT_CARD, DEBIT_PRODUCT, iban=DEMO_IBAN)
    services.secure_register(card=prepaid, channel=SecureChannel.APP)
    services.secure_register(card=debit, channel=SecureChannel.SMS)
    request = money.Request(client_id=client_id, requestor_reference="demo-load", digest="demo")
    money.load(request=request, card=prepaid, amount=PREPAID_LOAD, currency="EUR")
    request = money.Request(client_id=client_id, requestor_reference="demo-funds", digest="demo")
    money.adjust(request=request, card=debit, amount=DEBIT_FUNDS, currency="EUR", credit=True)
    demo_token(prepaid)
    return DemoCards(Card.objects.get(pk=prepaid.pk), Card.objects.get(pk=debit.pk))


def demo_token(card: Card) -> Token | None:
    """A scheme token of the card for the first merchant (seed_demo's), for the Token group's
    examples; None when there is no merchant yet."""
    from merchants.models import Merchant

    merchant = Merchant.objects.select_related("entity").order_by("pk").first()
    if merchant is None:
        return None
    _, token = tokens.token_create(
        merchant=merchant,
        entity=merchant.entity,
        card=tokens.FundingCard(
            services.card_number(card=card),
            f"{card.expiry_month:02d}",
            str(card.expiry_year),
            card.embossed_name,
        ),
        brand=card.product.brand,
    )
    return token
