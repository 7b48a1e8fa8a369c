"""The closed loop end to end (issue 15), over real HTTP: a prepaid card is issued, activated,
loaded and registered for out-of-band 3-D Secure through the issuer's JWE API; a merchant runs
PA, two partial CPs, a DB, an RF and an RV on it, each step's effect on the card's balances
asserted through BalanceInquiry; a hosted checkout on the card is approved out of band in
Chromium (the issuer's cardholder page in a second tab); the day's settlement agrees with the
issuer's postings. Runs on SQLite and, in CI, on PostgreSQL."""

import re
import uuid
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import timezone

from issuer.cards import onus, services
from issuer.cards.models import Card, CardTransaction
from issuer.protocol.client import RequestorClient
from reconciliation.models import FeePlan, FeeRule
from reconciliation.settlement import settlement_run
from tests.browser.conftest import HttpPayer, Shop, Tab, expect, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Issuer:
    """The demo requestor's client, as `make run` registers it."""

    def __init__(self, base_url: str, key_file: str):
        self.client = RequestorClient.from_key_file(
            key_file, base_url=base_url, client_id="oob-client"
        )

    def __call__(self, group: str, name: str, **payload: Any) -> dict[str, Any]:
        answer = self.client.call(group, name, payload, scopes=[group.upper()])
        assert answer["result"]["code"] in ("000.000.000", "000.000.100"), (name, answer)
        return answer

    def balances(self, reference: str) -> tuple[str, str]:
        found = self("transaction", "BalanceInquiry", cardReference=reference)
        return found["ledgerBalance"], found["availableBalance"]


def card_fields(card: Card, cvv: str) -> dict[str, str]:
    return {
        "card.number": services.card_number(card=card),
        "card.holder": "Max Mustermann",
        "card.expiryMonth": f"{card.expiry_month:02d}",
        "card.expiryYear": str(card.expiry_year),
        "card.cvv": cvv,
    }


def test_the_closed_loop_end_to_end(
    live_server, issuer_keys, settings, tab: Tab, shop: Shop, payer: HttpPayer
):
    settings.ISSUER_BASE_URL = live_server.url
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000
    call_command("issuer_demo", "--base-url", live_server.url, stdout=StringIO())
    issuer = Issuer(live_server.url, str(settings.DEMO_REQUESTOR_KEY_FILE))

    # The issuer: a card issued, activated, loaded, its cardholder on the app channel.
    applied = issuer(
        "application", "CardApplication", productCode="DEMO-PREPAID-EUR", cardForm="VIRTUAL",
        customer={"firstName": "Max", "lastName": "Mustermann", "kycStatus": "VERIFIED",
                  "mobile": "+4915112345679"},
    )  # fmt: skip
    ref = applied["cardReference"]
    issuer("card", "Activation", cardReference=ref)
    issuer("transaction", "LoadFund", cardReference=ref, requestorReference="e2e-load",
           amount="300.00", currency="EUR")  # fmt: skip
    issuer("card", "SecureRegist", cardReference=ref, channel="APP")
    cvv = issuer("card", "CVV2Inquiry", cardReference=ref)["cvv2"]
    card = Card.objects.get(client_id="oob-client", reference=ref)
    assert issuer.balances(ref) == ("300.00", "300.00")

    # The acquirer: PA, two partial CPs, a DB, an RF and an RV.
    def pay(kind: str, amount: str | None, original: str = "", **extra: str) -> dict[str, Any]:
        fields = {
            "paymentType": kind,
            "merchant.id": payer.merchant.merchant_id,
            "merchantTransactionId": uuid.uuid4().hex,
            **({"amount": amount, "currency": "EUR"} if amount else {}),
            **extra,
        }
        path = f"/pay/v3/payments/{original}" if original else "/pay/v3/payments"
        if not original:
            fields.update(card_fields(card, cvv))
        answer = payer._call("POST", path, fields)
        assert answer["result"]["code"] == "000.000.000", answer
        return answer

    pa = pay("PA", "100.00")
    assert issuer.balances(ref) == ("300.00", "200.00")
    pay("CP", "30.00", pa["id"])
    assert issuer.balances(ref) == ("270.00", "200.00")
    pay("CP", "20.00", pa["id"])
    assert issuer.balances(ref) == ("250.00", "200.00")
    sale = pay("DB", "25.00")
    assert issuer.balances(ref) == ("225.00", "175.00")
    pay("RF", "10.00", sale["id"])
    assert issuer.balances(ref) == ("235.00", "185.00")
    undone = pay("DB", "15.00")
    assert issuer.balances(ref) == ("220.00", "170.00")
    pay("RV", None, undone["id"], transactionSource="CARDHOLDER")
    assert issuer.balances(ref) == ("235.00", "185.00")

    # A hosted checkout on the card, 3-D Secure approved out of band in the issuer's app.
    merchant = payer.merchant
    merchant.threeds_mode = "MANDATORY"
    merchant.save()
    checkout = payer._call(
        "POST", "/pay/v3/checkouts",
        {"merchant.id": merchant.merchant_id, "merchantTransactionId": uuid.uuid4().hex,
         "paymentType": "DB", "amount": "49.90", "currency": "EUR",
         "shopperResultUrl": shop.result_url, "customer.email": "max@example.org",
         "customer.givenName": "Max", "customer.surname": "Mustermann",
         "billing.street1": "Heidestrasse 17", "billing.city": "Koeln",
         "billing.postcode": "51147", "billing.country": "DE"},
    )  # fmt: skip
    assert checkout["result"]["code"] == "000.200.101", checkout
    page = tab.page
    page.goto(checkout["redirect"]["url"])
    page.fill("#cc-name", "Max Mustermann")
    page.fill("#cc-number", services.card_number(card=card))
    page.select_option("#cc-exp-month", f"{card.expiry_month:02d}")
    page.select_option("#cc-exp-year", str(card.expiry_year))
    page.fill("#cc-csc", cvv)
    page.click("#pay")
    expect(page.locator("#oob")).to_be_visible()
    screenshot(tab, "onus-challenge-oob.png")
    link = page.locator("#app-link").get_attribute("href")
    assert link and link.startswith(live_server.url + "/issuer/oob/")

    phone = Tab(tab.page.context.browser, viewport={"width": 390, "height": 844})
    try:
        phone.page.goto(link)
        expect(phone.page.locator("body")).to_contain_text("49.90")
        expect(phone.page.locator("#card")).to_have_text(card.masked)
        phone.page.click("#approve")
        expect(phone.page.locator("h1")).to_have_text("Payment approved")
    finally:
        phone.close()
    page.click("#submit")
    page.wait_for_url(shop.result_url)
    paid = payer._call("GET", f"/pay/v3/checkouts/{checkout['id']}/payment", {})
    assert paid["result"]["code"] == "000.000.000", paid
    assert paid["threeDSecure"]["authenticationStatus"] == "Y"
    assert issuer.balances(ref) == ("185.10", "135.10")  # 49.90 more; the PA's rest still held
    assert not tab.page_errors

    # The issuer's history shows the merchant's payments; the day's settlement agrees.
    history = issuer("transaction", "TransactionHistory", cardReference=ref, pageSize="100")
    assert {r.get("merchantName") for r in history["records"] if r["type"] == "PURCHASE"} == {
        merchant.name
    }
    plan = FeePlan.objects.create(merchant=merchant, reserve_percent=Decimal("10"), reserve_days=7)
    FeeRule.objects.create(plan=plan, mdr_percent=Decimal("2.0"), fixed=Decimal("0.20"))
    run = settlement_run(merchant=merchant, day=timezone.now().date())
    postings = CardTransaction.objects.filter(
        client_id=onus.ACQUIRER, status="APPROVED", journal__isnull=False, card=card
    )
    spent = postings.filter(type="PURCHASE", reversed=False).aggregate(s=Sum("amount"))["s"]
    given_back = postings.filter(type="REFUND").aggregate(s=Sum("amount"))["s"]
    gross = run.sales_amount - run.refunds_amount
    assert gross == spent - given_back == Decimal("114.90")  # 30 + 20 + 25 - 10 + 49.90
    fees = run.items.aggregate(s=Sum("fee"))["s"]
    assert run.net_amount == gross - fees - run.reserve_held
    assert re.fullmatch(r"\d{3}", cvv)
