"""Words, not codes (issue 25): the portal's and the admin's lists say a result's words beside
its code and a type's name, colour a pending payment as pending, mark what was reversed or
refunded, show amounts with their currency's decimals, offer "All" in filters; the daily files
page links a layout page the portal serves; the tokens page shows the whole reference; the
admin's index puts the technical apps under "Technical"."""

import re
from datetime import date
from decimal import Decimal

import pytest
from django.utils import timezone

from payments.models import Payment
from reconciliation.models import SettlementRun
from tests.conftest import SpecClient
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer
from tests.portal.day_of_payments import Day, a_day_of_payments
from tests.portal.test_portal import portal_user, sign_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def day(enrolled) -> Day:
    made = a_day_of_payments(enrolled)
    portal_user(enrolled, "shop-admin")
    return made


def rows(page: str) -> dict[str, str]:
    """The transactions list's rows by the payment id their link names."""
    found = re.findall(r'<tr class="([\w-]+)">\s*<td><a href="/portal/transactions/(\w+)/"', page)
    assert found, page[:3000]
    chunks = page.split('<tr class="')[1:]
    return {pid: f'<tr class="{chunk}' for (_, pid), chunk in zip(found, chunks, strict=True)}


def test_transactions_say_words_names_and_marks(client, day):
    sign_in(client, "shop-admin")
    page = client.get("/portal/transactions/").content.decode()
    listed = rows(page)
    ids = day.ids

    declined = listed[ids["declined"]]
    assert declined.startswith('<tr class="not-approved">')
    assert '<span class="code">800.100.203</span>' in declined
    assert "transaction declined (insufficient funds)" in declined
    pending = listed[ids["pending"]]
    assert pending.startswith('<tr class="pending">')  # not coloured as a decline
    assert '<span class="result result-pending"' in pending and "000.200." in pending
    assert listed[ids["captured"]].startswith('<tr class="approved">')
    assert '<span class="code">DB</span> debit' in listed[ids["refunded"]]
    assert '<span class="code">PA</span> preauthorization' in listed[ids["reversed"]]
    assert "Transaction succeeded" in listed[ids["refunded"]]

    assert '<span class="mark mark-refunded">refunded</span>' in listed[ids["refunded"]]
    assert "partly refunded</span>" in listed[ids["partly_refunded"]]
    assert '<span class="mark mark-reversed">reversed</span>' in listed[ids["reversed"]]
    assert 'class="mark' not in listed[ids["declined"]]
    assert "1500 JPY" in listed[ids["yen"]] and "100.00 EUR" in listed[ids["refunded"]]


def test_filters_offer_all_not_dashes(client, day):
    sign_in(client, "shop-admin")
    page = client.get("/portal/transactions/").content.decode()
    assert "---------" not in page
    assert page.count('<option value="" selected>All</option>') == 2  # Type and Result


def test_the_transactions_list_costs_no_query_per_row(
    client, day, enrolled, django_assert_max_num_queries
):
    sign_in(client, "shop-admin")
    # a page of 11 payments and one of 35 cost the same few queries (8 when written)
    with django_assert_max_num_queries(10):
        client.get("/portal/transactions/")
    payer = Payer(
        SpecClient(enrolled.entity.plain_token, enrolled.entity.entity_id, "MERCHANT"), enrolled
    )
    for _ in range(12):
        sale = payer.pay("DB", "5.00").json()["id"]
        payer.ref("RF", sale, "1.00")
    assert Payment.objects.filter(merchant=enrolled).count() == 35  # from 11
    with django_assert_max_num_queries(10):
        page = client.get("/portal/transactions/").content.decode()
    assert page.count("partly refunded</span>") == 13


def test_a_payments_page_says_its_result_and_mark(client, day):
    sign_in(client, "shop-admin")
    page = client.get(f"/portal/transactions/{day.ids['partly_refunded']}/").content.decode()
    assert '<span class="code">DB</span> debit' in page
    assert '<span class="mark mark-refunded">partly refunded</span>' in page
    assert "Transaction succeeded" in page and "80.00 EUR" in page
    assert "80.00 · 20.00 · 0.00" in page  # captured, refunded, reversed
    pending = client.get(f"/portal/transactions/{day.ids['pending']}/").content.decode()
    assert '<span class="result result-pending"' in pending


def test_amounts_have_their_currencys_decimals(client, admin_client, day, enrolled):
    yen = MerchantFactory(participator=enrolled.participator)
    for merchant, currency, amount in ((enrolled, "EUR", "219.900"), (yen, "JPY", "1500.000")):
        SettlementRun.objects.create(
            merchant=merchant,
            day=date(2026, 1, 5),
            currency=currency,
            sales_count=3,
            sales_amount=Decimal(amount),
            fees_amount=Decimal("2.125") if currency == "EUR" else Decimal("12.000"),
            net_amount=Decimal(amount),
        )
    sign_in(client, "shop-admin")
    runs = client.get("/portal/settlements/").content.decode()
    assert "219.90 (3)" in runs and "2.12" in runs  # a run keeps three decimals, EUR shows two
    assert not re.search(r"\d\.\d{3}\b", runs)
    staff = admin_client.get("/admin/reconciliation/settlementrun/").content.decode()
    assert '<span class="num">219.90</span>' in staff and '<span class="num">1500</span>' in staff
    assert '<span class="num">12</span>' in staff  # the JPY run's fees
    assert "219.900" not in staff and "1500.000" not in staff
    run = SettlementRun.objects.get(merchant=enrolled, day=date(2026, 1, 5))
    detail = admin_client.get(f"/admin/reconciliation/settlementrun/{run.pk}/change/")
    assert "219.90" in detail.content.decode() and "219.900" not in detail.content.decode()
    payments = admin_client.get("/admin/payments/payment/").content.decode()
    assert '<span class="num">1500 JPY</span>' in payments
    yen_page = admin_client.get(f"/admin/payments/payment/{day.ids['yen']}/change/")
    assert '<span class="num">1500</span>' in yen_page.content.decode()
    assert ">1500.00<" not in yen_page.content.decode()  # (the stored API answer says 1500.00)


def test_daily_files_link_a_page_the_portal_serves(client, day):
    sign_in(client, "shop-admin")
    files = client.get("/portal/files/").content.decode()
    assert "docs/recon-file.md" not in files
    assert 'href="/portal/files/layout/"' in files
    layout = client.get("/portal/files/layout/")
    assert layout.status_code == 200
    page = layout.content.decode()
    for text in ("Header record", "Detail record", "Trailer record", "merchantTransactionId"):
        assert text in page
    assert "<td>2–33</td><td>merchantTransactionId</td><td><code>AN32</code></td>" in page
    client.post("/portal/logout/")
    assert client.get("/portal/files/layout/").status_code == 302  # signed in only


def test_the_tokens_page_shows_the_whole_reference_with_copy(client, day):
    sign_in(client, "shop-admin")
    page = client.get("/portal/tokens/").content.decode()
    assert len(day.tur) == 64
    assert f'<code class="ref">{day.tur}</code>' in page
    assert f'data-copy="{day.tur}"' in page
    assert '<script src="/static/portal/copy.js" defer></script>' in page


def test_the_admin_index_puts_the_technical_apps_under_technical(admin_client, day):
    page = admin_client.get("/admin/").content.decode()
    heading = page.index('<h2 class="technical">Technical</h2>')
    for staff_app in ("app-payments", "app-merchants", "app-reconciliation", "app-issuer"):
        assert page.index(staff_app) < heading, staff_app
    for technical in ("app-axes", "app-oauth2_provider", "app-django_celery_beat", "app-auth"):
        assert page.index(technical) > heading, technical
    assert page.index("app-payments") < page.index("app-merchants") < page.index("app-core")


def test_admin_filters_are_closed_dropdowns_naming_the_choice(admin_client, day):
    page = admin_client.get("/admin/payments/payment/", {"payment_type__exact": "DB"})
    text = page.content.decode()
    assert '<details data-filter-title="payment type">' in text  # closed until opened
    assert re.search(r"By payment type\s*: <strong>DB debit", text)
    assert 'href="/static/staff/admin.css"' in text and 'src="/static/staff/admin.js"' in text


def test_the_dashboards_amounts_have_their_currencys_decimals(admin_client, day):
    page = admin_client.get("/admin/").content.decode()
    assert "1500 JPY (1)" in page
    assert "1500.00 JPY" not in page
    assert timezone.now()  # the day's payments are today's


def test_the_admins_token_list_names_status_and_suspenders(admin_client, day):
    from tokenization.models import Token

    Token.objects.filter(pk=day.tur).update(status="SUSPENDED", suspended_by=["ISSUER"])
    page = admin_client.get("/admin/tokenization/token/").content.decode()
    assert day.tur in page  # the whole reference
    row = page.split(day.tur, 1)[1].split("</tr>", 1)[0]
    assert '<td class="field-status_display">Suspended' in row and "(ISSUER)</td>" in row


def test_the_admin_names_families_and_types_in_words(admin_client, day):
    """The result-family filter, a payment's family and its chain speak the result-code table's
    and the type's names, not `rejected_external_bank` or a bare `CP`."""
    listed = admin_client.get("/admin/payments/payment/").content.decode()
    assert "external bank declines" in listed
    assert (
        ">rejected_external_bank<" not in listed and 'title="rejected external bank"' not in listed
    )
    declined = admin_client.get(
        f"/admin/payments/payment/{day.ids['declined']}/change/"
    ).content.decode()
    assert "external bank declines" in declined and ">rejected_external_bank<" not in declined
    chain = admin_client.get(
        f"/admin/payments/payment/{day.ids['captured']}/change/"
    ).content.decode()
    assert '<span class="code">CP</span> capture' in chain
    assert "preauthorization …" in chain  # the capture refers to its preauthorization by name


def test_the_checkout_admin_shows_the_type_by_name_and_the_amount_by_its_currency(
    admin_client, enrolled
):
    from payments.checkouts.models import Checkout

    Checkout.objects.create(
        merchant=enrolled,
        entity=enrolled.entity,
        entity_type="MERCHANT",
        merchant_transaction_id="yen-checkout",
        shopper_result_url="https://shop.example.com/result",
        payment_type="DB",
        amount=Decimal("1500"),
        currency="JPY",
        expires_at=timezone.now(),
    )
    page = admin_client.get("/admin/payments/checkout/").content.decode()
    assert '<span class="code">DB</span> debit' in page
    assert "1500 JPY" in page and "1500.00" not in page
