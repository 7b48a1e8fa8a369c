"""Staff read and set a card's limits in the admin with the card's currency's ISO 4217 exponent
(EUR 250.00, JPY 250, BHD 250.000), the currency named in the column, though the model keeps
three decimals for every currency; an amount with more decimals than the currency has is
refused by the form, and nothing is written."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse

from issuer import demo
from issuer.cards import services
from issuer.cards.models import Card, CardForm, CardLimit, CardProduct, ProductKind

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("quick_pin_hash")]
BINS = {"EUR": "45960100", "JPY": "45960200", "BHD": "45960300"}


def card_in(currency: str) -> Card:
    """A prepaid card whose account is in `currency`, with a 250 per-transaction limit."""
    services.product_create(
        code=f"PREPAID-{currency}",
        name=f"Prepaid {currency}",
        kind=ProductKind.PREPAID,
        currency=currency,
        bins=[BINS[currency]],
    )
    card = services.card_apply(
        client_id="oob-client",
        product_code=f"PREPAID-{currency}",
        customer_fields=demo.CUSTOMER,
        form=CardForm.VIRTUAL,
        actor="test",
    )
    services.limits_set(
        card=card, rows=[{"region": "DOMESTIC", "channel": "POS", "per_transaction": "250"}]
    )
    return card


def limits_form(card: Card, **amounts: str) -> dict[str, object]:
    limit = card.limits.get()
    return {
        "limits-TOTAL_FORMS": "1", "limits-INITIAL_FORMS": "1",
        "limits-0-id": limit.pk, "limits-0-card": card.pk,
        "limits-0-region": "DOMESTIC", "limits-0-channel": "POS",
        **{f"limits-0-{name}": value for name, value in amounts.items()},
        "history-TOTAL_FORMS": "0", "history-INITIAL_FORMS": "0",
    }  # fmt: skip


def input_value(html: str, name: str) -> str:
    found = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    assert found, name
    value = re.search(r'value="([^"]*)"', found.group(0))
    return value.group(1) if value else ""


@pytest.mark.parametrize(
    ("currency", "shown", "step"),
    [("EUR", "250.00", "0.01"), ("JPY", "250", "1"), ("BHD", "250.000", "0.001")],
)
def test_the_limits_show_amounts_with_the_currencys_decimals_and_name_it(
    admin_client, currency, shown, step
):
    card = card_in(currency)
    html = admin_client.get(reverse("admin:issuer_card_change", args=[card.pk])).content.decode()
    assert input_value(html, "limits-0-per_transaction") == shown
    assert re.search(rf'name="limits-0-per_transaction"[^>]*step="{step}"', html)
    for header in ("Per transaction", "Daily amount", "Monthly amount"):
        assert f"{header} ({currency})" in html
    assert "Domestic, Point of sale limits" in html  # the row's title, not DOMESTIC POS


@pytest.mark.parametrize(
    ("currency", "typed", "stored"),
    [
        ("EUR", "99.99", Decimal("99.99")),
        ("JPY", "1500", Decimal("1500")),
        ("JPY", "1500.00", Decimal("1500")),  # zeros beyond the exponent are no decimals
        ("BHD", "1.234", Decimal("1.234")),
    ],
)
def test_staff_set_a_limit_in_the_cards_currency(admin_client, currency, typed, stored):
    card = card_in(currency)
    url = reverse("admin:issuer_card_change", args=[card.pk])
    response = admin_client.post(url, limits_form(card, per_transaction=typed, daily_amount=""))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert CardLimit.objects.get(card=card).per_transaction == stored


@pytest.mark.parametrize(
    ("currency", "typed", "message"),
    [
        ("EUR", "250.005", "EUR has 2 decimals: 250.005 has more."),
        ("EUR", "250.0001", "EUR has 2 decimals: 250.0001 has more."),
        ("JPY", "250.5", "JPY has no decimals: enter a whole amount, not 250.5."),
        ("BHD", "250.0005", "BHD has 3 decimals: 250.0005 has more."),
        ("EUR", "-5", "Ensure this value is greater than or equal to 0."),
    ],
)
def test_an_amount_with_more_decimals_than_the_currency_is_refused_and_nothing_written(
    admin_client, currency, typed, message
):
    card = card_in(currency)
    url = reverse("admin:issuer_card_change", args=[card.pk])
    response = admin_client.post(url, limits_form(card, per_transaction="100", daily_amount=typed))
    assert response.status_code == 200
    assert message in response.content.decode()
    limit = CardLimit.objects.get(card=card)
    assert (limit.per_transaction, limit.daily_amount) == (Decimal("250"), None)


def test_staff_who_may_only_look_read_the_amounts_with_their_currency(client):
    card = card_in("EUR")
    viewer = User.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.set(
        Permission.objects.filter(codename__in=["view_card", "view_cardlimit"])
    )
    client.force_login(viewer)
    html = client.get(reverse("admin:issuer_card_change", args=[card.pk])).content.decode()
    assert "250.00 EUR" in html and "250.000" not in html
    assert 'name="limits-0-per_transaction"' not in html


def test_a_products_maximum_balance_has_its_currencys_decimals(admin_client):
    prepaid, _ = demo.products()
    html = admin_client.get(reverse("admin:issuer_cardproduct_changelist")).content.decode()
    assert "10000.00" in html and "10000.000" not in html
    url = reverse("admin:issuer_cardproduct_change", args=[prepaid.pk])
    assert input_value(admin_client.get(url).content.decode(), "max_balance") == "10000.00"

    data = {
        "code": prepaid.code, "name": prepaid.name, "brand": prepaid.brand,
        "currency": "JPY", "card_years": prepaid.card_years, "max_balance": "10000.50",
        "active": "on",
        "bin_ranges-TOTAL_FORMS": "0", "bin_ranges-INITIAL_FORMS": "0",
        "operations-TOTAL_FORMS": "0", "operations-INITIAL_FORMS": "0",
    }  # fmt: skip
    refused = admin_client.post(url, data)
    assert refused.status_code == 200
    assert "JPY has no decimals: enter a whole amount, not 10000.50." in refused.content.decode()
    assert CardProduct.objects.get(pk=prepaid.pk).currency == "EUR"


def test_the_api_refuses_a_limit_finer_than_the_cards_currency_and_writes_nothing():
    """LimitSetting's amounts have two decimals on the wire; a JPY card's limit has none: 250.50
    is refused by name (nothing written), 250.00 is 250."""
    from issuer import operations

    card = card_in("JPY")
    operation = operations.lookup("card", "LimitSetting")
    assert operation is not None

    def limit_setting(amount: str) -> dict[str, object]:
        limits = [{"region": "DOMESTIC", "channel": "POS", "perTransactionAmount": amount}]
        payload = {"cardReference": card.reference, "limits": limits}
        return operations.perform(operation, client_id="oob-client", payload=payload)

    refused = limit_setting("250.50")
    assert refused["result"]["code"].startswith("200.300.")  # the parameter family
    assert "limits[0].perTransactionAmount" in str(refused)
    assert "JPY has no decimals" in str(refused)
    assert card.limits.get().per_transaction == Decimal("250")  # as it was
    accepted = limit_setting("300.00")
    assert accepted["result"]["code"] == "000.000.100"  # a request that succeeded
    assert card.limits.get().per_transaction == Decimal("300")


@pytest.mark.parametrize("operation", ["Purchase", "LoadFund", "Withdraw", "BlockFund"])
def test_a_money_operation_refuses_an_amount_finer_than_its_currency(operation):
    """As the acquirer's payments are checked (core.tables.fits_currency): 250.50 is no JPY
    amount, refused by name before anything is looked up or written."""
    from issuer import operations
    from issuer.cards.models import CardTransaction

    card = card_in("JPY")
    found = operations.lookup("transaction", operation)
    assert found is not None
    payload = {
        "cardReference": card.reference,
        "requestorReference": f"fine-{operation}",
        "amount": "250.50",
        "currency": "JPY",
        **({"channel": "POS"} if operation == "Purchase" else {}),
    }
    refused = operations.perform(found, client_id="oob-client", payload=payload)
    assert refused["result"]["code"].startswith("200.300."), refused
    assert "JPY" in str(refused) and "amount" in str(refused)
    assert not CardTransaction.objects.filter(card=card).exists()
