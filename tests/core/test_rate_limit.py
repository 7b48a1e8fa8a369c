"""Rate limiting per entity (issue 22, core/ratelimit.py): over API_RATE_LIMIT an entity is
answered 429, 800.120.100 and Retry-After before its view runs, nothing of the request written,
while another entity goes on; the issuer API counts per requestor once its token is verified
(tests/issuer/test_api.py)."""

import uuid
from types import SimpleNamespace

import pytest
from django.core.exceptions import ImproperlyConfigured

from core import metrics, ratelimit
from payments.models import Payment
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db
RATE_LIMITED = "800.120.100"


def own_counters(settings, monkeypatch):  # type: ignore[no-untyped-def]
    """Counters of this test only (the cache, Redis on the PostgreSQL run, outlives a test and is
    shared by the suite's workers, whose entities have the same ids), in one window: the clock
    the limiter reads stands still, so no window ends in the middle of a test."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {**settings.CACHES["default"], "KEY_PREFIX": uuid.uuid4().hex},
    }
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: 1_000_000.5))


@pytest.fixture(autouse=True)
def _own_counters(settings, monkeypatch):  # type: ignore[no-untyped-def]
    own_counters(settings, monkeypatch)


def debit(client, merchant):  # type: ignore[no-untyped-def]
    return Payer(client, merchant).pay("DB")


def test_rates_are_parsed_or_refused():
    assert ratelimit.parse_rate("") is None
    assert ratelimit.parse_rate("100/s") == ratelimit.Rate(100, 1)
    assert ratelimit.parse_rate("3000/m") == ratelimit.Rate(3000, 60)
    assert ratelimit.parse_rate(" 5 / hour ") == ratelimit.Rate(5, 3600)
    for wrong in ("100", "0/s", "-1/s", "ten/s", "100/d"):
        with pytest.raises(ImproperlyConfigured, match="API_RATE_LIMIT"):
            ratelimit.parse_rate(wrong)


def test_off_by_default(settings, merchant_api, merchant):
    assert settings.API_RATE_LIMIT == ""
    for _ in range(5):
        assert debit(merchant_api, merchant).status_code == 200


def test_an_entity_over_its_rate_gets_429_and_another_goes_on(settings, merchant_api, merchant):
    settings.API_RATE_LIMIT = "3/m"
    other = MerchantFactory()
    from tests.conftest import SpecClient

    other_api = SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT")
    refused_before = metrics.RATE_LIMITED.labels(group="payments")._value.get()
    for _ in range(3):
        assert debit(merchant_api, merchant).json()["result"]["code"] == "000.000.000"
    stored = Payment.objects.count()

    refused = debit(merchant_api, merchant)
    assert refused.status_code == 429
    assert refused.json()["result"]["code"] == RATE_LIMITED
    assert int(refused["Retry-After"]) == 60 - 40  # 1,000,000.5 s is 40.5 s into its minute
    assert Payment.objects.count() == stored  # nothing of the refused request is written
    assert metrics.RATE_LIMITED.labels(group="payments")._value.get() == refused_before + 1
    # An inquiry counts too: the limit is the entity's, whatever it calls.
    inquiry = merchant_api.get("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id})
    assert inquiry.status_code == 429

    # The other merchant's budget is its own.
    assert debit(other_api, other).json()["result"]["code"] == "000.000.000"


def test_a_request_that_fails_authentication_is_not_counted(settings, merchant_api, merchant):
    settings.API_RATE_LIMIT = "2/m"
    for _ in range(5):  # someone sending the merchant's entityId with a wrong token
        wrong = merchant_api.post("/pay/v3/payments", {"paymentType": "DB"}, token="x" * 40)
        assert wrong.status_code == 401
    assert debit(merchant_api, merchant).status_code == 200
    assert debit(merchant_api, merchant).status_code == 200
    assert debit(merchant_api, merchant).status_code == 429


def test_the_window_ends_and_the_entity_is_served_again(settings):
    settings.API_RATE_LIMIT = "2/s"
    start = 1_000_000.25
    assert ratelimit.over_limit("entity:x", group="payments", now=start) is None
    assert ratelimit.over_limit("entity:x", group="payments", now=start + 0.1) is None
    assert ratelimit.over_limit("entity:x", group="payments", now=start + 0.2) == 1
    assert ratelimit.over_limit("entity:x", group="payments", now=start + 1.0) is None
