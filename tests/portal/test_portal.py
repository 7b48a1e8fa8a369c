"""The merchant portal: sign-in (throttled in the database), session expiry, sign-out and the
password; the overview; transactions with filters, CSV and a payment's chain; and nothing of
another merchant, anywhere (404)."""

import csv
import io
import re

import pytest
from django.contrib.auth.models import User

from merchants.models import PortalUser
from payments.models import Payment
from tests.conftest import SpecClient, code
from tests.factories import MerchantFactory
from tests.payments.conftest import MASTER, NO_FUNDS, Payer

pytestmark = pytest.mark.django_db
PASSWORD = "a long portal passphrase 7"


def portal_user(merchant, name):
    user = User.objects.create_user(name, password=PASSWORD)
    PortalUser.objects.create(user=user, merchant=merchant)
    return user


@pytest.fixture
def shop(merchant, payer):
    """The merchant's portal user and a few payments."""
    sale = payer.pay("DB", "100.00").json()["id"]
    assert code(payer.ref("RF", sale, "20.00")) == "000.000.000"
    payer.pay("DB", "50.00", number=MASTER)
    payer.pay("DB", "10.00", number=NO_FUNDS)
    authorization = payer.pay("PA", "40.00").json()["id"]
    assert code(payer.ref("CP", authorization, "25.00")) == "000.000.000"
    return portal_user(merchant, "shop-admin")


@pytest.fixture
def other_shop(participator):
    other = MerchantFactory(participator=participator)
    Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other).pay(
        "DB", "77.00"
    )
    return other, portal_user(other, "other-admin")


def sign_in(client, username, password=PASSWORD):
    return client.post("/portal/login/", {"username": username, "password": password})


def test_sign_in_overview_and_sign_out(client, shop, settings):
    assert client.get("/portal/").status_code == 302  # to the login page
    response = sign_in(client, "shop-admin")
    assert response.status_code == 302 and response["Location"] == "/portal/"
    assert client.session.get_expiry_age() == settings.PORTAL_SESSION_SECONDS
    page = client.get("/portal/").content.decode()
    assert page.count("<svg") == 4 and "Approval rate" in page
    assert 'href="http' not in page and 'src="http' not in page  # nothing from the network
    assert "175.00 EUR" in page  # 100 + 50 + 25 of sales today
    response = client.post("/portal/logout/")
    assert response.status_code == 302 and client.get("/portal/").status_code == 302


def test_wrong_passwords_lock_the_user_out_across_workers(client, shop, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert "Please enter a correct" in sign_in(client, "shop-admin", "wrong").content.decode()
    assert sign_in(client, "shop-admin", "wrong").status_code == 403  # the last one allowed
    locked = sign_in(client, "shop-admin")  # the right password, too late
    assert locked.status_code == 403 and "Too many failed sign-ins" in locked.content.decode()
    from axes.models import AccessAttempt  # counted in the database, not in a process

    assert AccessAttempt.objects.get().failures_since_start > settings.AXES_FAILURE_LIMIT


def test_staff_without_a_merchant_cannot_sign_in(client, db):
    User.objects.create_user("clerk", password=PASSWORD, is_staff=True)
    response = sign_in(client, "clerk")
    assert response.status_code == 200 and "Please enter a correct" in response.content.decode()


def test_the_password_is_changed(client, shop):
    sign_in(client, "shop-admin")
    response = client.post(
        "/portal/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "another long passphrase 8",
            "new_password2": "another long passphrase 8",
        },
    )
    assert response.status_code == 302
    client.post("/portal/logout/")
    assert sign_in(client, "shop-admin", "another long passphrase 8").status_code == 302


def test_transactions_filter_export_and_chain(client, shop, merchant):
    sign_in(client, "shop-admin")
    page = client.get("/portal/transactions/").content.decode()
    assert "6 payments" in page and "420000******0000" in page
    declined = client.get("/portal/transactions/?family=declined").content.decode()
    assert "1 payment<" in declined and "800." in declined
    captures = client.get("/portal/transactions/?payment_type=CP&amount_min=0").content.decode()
    assert "1 payment<" in captures and "25.00" in captures and "100.00" not in captures
    sales = client.get("/portal/transactions/?payment_type=DB&amount_min=20&amount_max=60")
    assert "1 payment<" in sales.content.decode()  # the 50.00 debit
    export = client.get("/portal/transactions/?payment_type=DB&export=csv")
    assert export["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode())))
    assert len(rows) == 3 and {r["type"] for r in rows} == {"DB"}
    assert all(len(r["card"]) == 16 and "******" in r["card"] for r in rows)
    refund = Payment.objects.get(payment_type="RF")
    detail = client.get(f"/portal/transactions/{refund.pk}/").content.decode()
    assert refund.referenced_id in detail and "RF" in detail and "Chain" in detail
    assert merchant.entity.plain_token not in page + detail


def test_the_chain_shows_every_descendant(client, shop, payer):
    """A refund of a capture is in the chain of the PA, the capture and the refund."""
    capture = Payment.objects.get(payment_type="CP")
    assert code(payer.ref("RF", capture.pk, "5.00")) == "000.000.000"
    refund = Payment.objects.get(payment_type="RF", referenced=capture)
    authorization = capture.referenced
    sign_in(client, "shop-admin")
    for member in (authorization, capture, refund):
        page = client.get(f"/portal/transactions/{member.pk}/").content.decode()
        chain = page.split("<h2>Chain</h2>", 1)[1]
        for pk in (authorization.pk, capture.pk, refund.pk):
            assert f"/portal/transactions/{pk}/" in chain


def test_another_merchants_payments_are_not_there(client, shop, other_shop):
    other, _ = other_shop
    theirs = Payment.objects.get(merchant=other)
    sign_in(client, "shop-admin")
    assert theirs.pk not in client.get("/portal/transactions/").content.decode()
    assert client.get(f"/portal/transactions/{theirs.pk}/").status_code == 404
    export = client.get("/portal/transactions/?export=csv")
    assert theirs.pk not in b"".join(export.streaming_content).decode()


def merchant_inquiry(merchant, token):
    client = SpecClient(token, merchant.entity.entity_id, "MERCHANT")
    return client.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})


def test_the_api_token_is_rotated_or_set(client, shop, merchant):
    old = merchant.entity.plain_token
    assert merchant_inquiry(merchant, old).status_code == 200
    sign_in(client, "shop-admin")
    page = client.get("/portal/developers/").content.decode()
    assert f"…{old[-4:]}" in page and old not in page
    rotated = client.post(
        "/portal/developers/", {"action": "rotate", "confirm": "yes", "password": PASSWORD}
    )
    new = re.search(r'<code id="new-token">([^<]+)</code>', rotated.content.decode()).group(1)
    assert rotated["Cache-Control"] == "no-store"
    # No overlap chosen: the proposed day (issue 35; before, the old one stopped at once).
    assert merchant_inquiry(merchant, old).status_code == 200
    assert merchant_inquiry(merchant, new).status_code == 200
    assert new not in client.get("/portal/developers/").content.decode()  # shown once
    weak = client.post("/portal/developers/", {"action": "set", "token": "a" * 40, "overlap": "0"})
    assert weak.status_code == 400 and "not random enough" in weak.content.decode()
    short = client.post("/portal/developers/", {"action": "set", "token": "Ab1!", "overlap": "0"})
    assert short.status_code == 400 and "32 to 128" in short.content.decode()
    chosen = "Zq8#mW2$rT5&yU9*pL3@kH7!cV1^bN4%xJ6"
    unasked = client.post("/portal/developers/", {"action": "set", "token": chosen})
    assert unasked.status_code == 400 and "Choose how long" in unasked.content.decode()
    assert merchant_inquiry(merchant, new).status_code == 200  # nothing changed
    done = client.post(
        "/portal/developers/",
        {"action": "set", "token": chosen, "overlap": "0", "password": PASSWORD},
    )
    assert done.status_code == 200 and chosen not in done.content.decode()
    assert merchant_inquiry(merchant, new).status_code == 401
    assert merchant_inquiry(merchant, chosen).status_code == 200


def test_the_notification_url_is_set(client, shop, merchant, settings):
    settings.NOTIFICATION_ALLOW_INSECURE_URLS = False
    sign_in(client, "shop-admin")
    refused = client.post(
        "/portal/developers/", {"action": "notification", "notification_url": "http://10.0.0.1/n"}
    )
    assert refused.status_code == 400 and "https" in refused.content.decode()
    saved = client.post(
        "/portal/developers/",
        {"action": "notification", "notification_url": "https://shop.example.com/notify"},
    )
    assert saved.status_code == 200
    merchant.refresh_from_db()
    assert merchant.notification_url == "https://shop.example.com/notify"


def test_settlements_reports_chargebacks_and_daily_files(
    client, admin_client, shop, merchant, other_shop
):
    from django.utils import timezone

    from reconciliation import services
    from reconciliation.recon.generate import produce
    from reconciliation.settlement import settlement_run

    today = timezone.now().date()
    settlement_run(merchant=merchant, day=today)
    sale = Payment.objects.filter(merchant=merchant, payment_type="DB", successful=True).first()
    services.chargeback_record(
        payment_ref=sale.pk,
        reason_code="4853",
        amount=sale.amount,
        currency="EUR",
        received_on=today,
        actor="t",
        note="not received",
    )
    mine = produce(merchant.entity, today, production=True).record
    other, _ = other_shop
    theirs = produce(other.entity, today, production=True).record
    sign_in(client, "shop-admin")
    runs = client.get("/portal/settlements/").content.decode()
    assert f"{today:%Y-%m-%d}" in runs and "175.00 (3)" in runs
    report = client.get(f"/portal/reports/transaction/{today:%Y-%m-%d}.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(report.streaming_content).decode())))
    assert len(rows) == 6 and rows[0]["merchantId"] == merchant.merchant_id
    assert "not received" in client.get("/portal/chargebacks/").content.decode()
    settled = client.get(f"/portal/reports/settlement/{today:%Y-%m-%d}.csv")
    header = b"".join(settled.streaming_content).decode().splitlines()[0]
    assert header.endswith(",Note") and header.startswith("merchantId,merchantDBA")
    listing = client.get("/portal/files/").content.decode()
    assert mine.name in listing and theirs.name not in listing
    download = client.get(f"/portal/files/{mine.pk}/")
    assert b"".join(download.streaming_content).startswith(b"HRECONDT_300001")
    assert client.get(f"/portal/files/{theirs.pk}/").status_code == 404
    assert client.get(f"/portal/reports/daily/{today:%Y-%m-%d}.csv").status_code == 404
    # Chargebacks read like the other columns: the amount (taken back) and the count.
    assert "0.00 (0)" in runs.split("<tbody>", 1)[1]
    settlement_run(merchant=merchant, day=today)  # again: the chargeback is the day's now
    runs = client.get("/portal/settlements/").content.decode()
    assert f"−{sale.amount:.2f} (1)" in runs
    listed = admin_client.get("/admin/reconciliation/settlementrun/").content.decode()
    assert re.search(rf"−{sale.amount:.2f}</span> <span class=\"quiet\">\(1\)", listed)


def test_a_provisional_run_is_marked_in_the_portal_and_the_admin(
    client, admin_client, shop, merchant
):
    from django.utils import timezone

    from core.business_day import business_day_bounds
    from reconciliation.settlement import settlement_run

    today = timezone.now().date()
    settlement_run(merchant=merchant, day=today)  # before the day's cut-off
    sign_in(client, "shop-admin")
    runs = client.get("/portal/settlements/").content.decode()
    assert "provisional" in runs.split("<tbody>", 1)[1]
    listed = admin_client.get("/admin/reconciliation/settlementrun/").content.decode()
    assert "provisional" in listed.split('id="result_list"', 1)[1]
    settlement_run(merchant=merchant, day=today, now=business_day_bounds(today)[1])
    assert (
        "provisional"
        not in client.get("/portal/settlements/").content.decode().split("<tbody>", 1)[1]
    )
    listed = admin_client.get("/admin/reconciliation/settlementrun/").content.decode()
    assert "final" in listed.split('id="result_list"', 1)[1]


def test_a_file_made_before_its_days_cut_off_is_marked_as_a_preview(
    client, admin_client, shop, merchant
):
    from django.utils import timezone

    from core.business_day import business_day_bounds
    from reconciliation.models import ReconFile
    from reconciliation.recon.generate import produce

    today = timezone.now().date()
    made = produce(merchant.entity, today, production=True).record  # before the cut-off
    sign_in(client, "shop-admin")
    listing = client.get("/portal/files/").content.decode().split("<tbody>", 1)[1]
    assert made.name in listing and "preview" in listing
    listed = admin_client.get("/admin/reconciliation/reconfile/").content.decode()
    assert "preview (before the cut-off)" in listed.split('id="result_list"', 1)[1]
    after = business_day_bounds(today)[1]
    ReconFile.objects.filter(pk=made.pk).update(generated_at=after)  # as beat's run after it
    listing = client.get("/portal/files/").content.decode().split("<tbody>", 1)[1]
    assert made.name in listing and "preview" not in listing


def test_the_admin_opens_with_a_dashboard(admin_client, shop, merchant):
    from django.utils import timezone

    from reconciliation.settlement import settlement_run

    settlement_run(merchant=merchant, day=timezone.now().date())
    page = admin_client.get("/admin/").content.decode()
    assert "Approval rate" in page and "175.00 EUR (3)" in page
    assert "800.100.203" in page  # the decline of the day
    assert "Failed notifications" in page and "Open chargebacks" in page
    assert "Settlement runs" in page and "Recon files" in page  # the app list follows


def test_the_dashboards_today_breaks_down_by_merchant(admin_client, shop, merchant, other_shop):
    """Issue 35: a click on "By merchant" opens each merchant's Today, each a link to its
    payments of the day."""
    import html
    import re

    other, _ = other_shop
    page = admin_client.get("/admin/").content.decode()
    by_merchant = page[page.index('id="today-by-merchant"') :].split("</details>")[0]
    assert "By merchant (2)" in by_merchant
    rows = re.findall(r"<tr><td><a href=\"([^\"]+)\"[^>]*>(\d+)", by_merchant)
    assert [merchant_id for _, merchant_id in rows] == [merchant.merchant_id, other.merchant_id]
    assert "175.00 EUR (3)" in by_merchant and "77.00 EUR (1)" in by_merchant
    listed = admin_client.get(html.unescape(rows[1][0]))
    assert [p.merchant_id for p in listed.context["cl"].result_list] == [other.pk]


def test_the_dashboard_is_for_staff_only(client, shop):
    sign_in(client, "shop-admin")  # a portal user is no staff
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_stored_cards_tokens_and_terminals(client, shop, merchant, payer, other_shop):
    from payments.registrations.models import Registration
    from tests.factories import TerminalFactory

    stored = payer.pay("DB", "10.00", createRegistration="true").json()["registrationId"]
    TerminalFactory(merchant=merchant)
    other, _ = other_shop
    theirs = (
        Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other)
        .pay("DB", "10.00", createRegistration="true")
        .json()["registrationId"]
    )
    sign_in(client, "shop-admin")
    page = client.get("/portal/registrations/").content.decode()
    assert "420000******0000" in page and "Deregister" in page
    assert client.post(f"/portal/registrations/{theirs}/deregister/").status_code == 404
    assert Registration.objects.get(pk=theirs).status == "ACTIVE"
    done = client.post(f"/portal/registrations/{stored}/deregister/", follow=True)
    assert "deregistered" in done.content.decode()
    assert Registration.objects.get(pk=stored).status == "DEREGISTERED"
    assert "No scheme tokens" in client.get("/portal/tokens/").content.decode()
    terminals = client.get("/portal/terminals/").content.decode()
    assert merchant.terminals.get().terminal_id in terminals


@pytest.fixture
def eager():
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


def test_a_test_notification_and_the_delivery_log(
    client, shop, merchant, settings, eager, django_capture_on_commit_callbacks
):
    from core.models import OutboxMessage
    from tests.tokenization.test_notifications import Receiver

    settings.NOTIFICATION_ALLOW_INSECURE_URLS = True
    receiver = Receiver(statuses=[500])
    try:
        sign_in(client, "shop-admin")
        none = client.post("/portal/developers/", {"action": "test"}, follow=True)
        assert "No test notification: no notification URL is set" in none.content.decode()
        client.post(
            "/portal/developers/", {"action": "notification", "notification_url": receiver.url}
        )
        with django_capture_on_commit_callbacks(execute=True):  # delivered after commit
            client.post("/portal/developers/", {"action": "test"})
        page = client.get("/portal/developers/").content.decode()
        assert "merchant.test" in page and "500 in" in page  # refused once, retried later
        [sent] = receiver.requests
        assert sent["body"]["test"] is True
        assert sent["headers"]["Authorization"] == f"Bearer {merchant.entity.plain_token}"
        message = OutboxMessage.objects.get()
        with django_capture_on_commit_callbacks(execute=True):
            client.post("/portal/developers/", {"action": "redeliver", "event_id": message.pk})
        assert len(receiver.requests) == 2
        assert OutboxMessage.objects.get().status == "DELIVERED"
        other = client.post("/portal/developers/", {"action": "redeliver", "event_id": "f" * 32})
        assert other.status_code == 404
    finally:
        receiver.close()


def test_every_portal_url_with_another_merchants_ids_is_404(client, shop, other_shop):
    """Every portal path that names an object, tried with the other merchant's: 404 each; a
    new such path must be added here (the set of names is compared)."""
    from django.urls import reverse
    from django.utils import timezone

    from config.portal import urlpatterns
    from reconciliation.recon.generate import produce

    other, _ = other_shop
    theirs = Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other)
    registration = theirs.pay("DB", "10.00", createRegistration="true").json()["registrationId"]
    payment = Payment.objects.filter(merchant=other).first()
    their_file = produce(other.entity, timezone.now().date(), production=True).record
    tried = {
        "transaction": ("get", {"payment_id": payment.pk}),
        "act": ("post", {"payment_id": payment.pk, "kind": "RF"}),
        "deregister": ("post", {"registration_id": registration}),
        "file": ("get", {"file_id": their_file.pk}),
    }
    naming = {p.name for p in urlpatterns if p.pattern.converters} - {"report"}  # no ids
    assert naming == set(tried)
    sign_in(client, "shop-admin")
    for name, (method, kwargs) in tried.items():
        response = getattr(client, method)(reverse(f"portal:{name}", kwargs=kwargs))
        assert response.status_code == 404, name
