"""The acquirer without the issuer app: run by test_acquirer_alone.py in a subprocess with
config.settings_acquirer (not collected by the suite: its name has no test_ prefix).

The issuer app is out of INSTALLED_APPS, so no issuer is plugged into payments' port: a card of
the issuer's BIN range goes to the card network (the simulator), the payments API and 3-D Secure
work, and the remaining apps' migrations apply with no issuer table."""

import sys

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from payments.connectors import onus_port
from tests.payments.conftest import Payer
from tests.payments.test_threeds_flow import final, open_redirect
from tests.payments.threeds_helpers import nonce_of, threeds_fields

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        apps.is_installed("issuer"), reason="run by test_acquirer_alone.py without the issuer"
    ),
]
APPROVED = "000.000.000"
# A card number in the demo issuer's BIN range (issuer.demo.PREPAID_BIN, 45950000; the outer
# test checks it): with the issuer installed, a card issued there pays on-us.
ISSUER_RANGE_CARD = "4595000012345677"


def issuer_modules() -> list[str]:
    return sorted(name for name in sys.modules if name.split(".")[0] == "issuer")


def test_the_issuer_is_out_and_no_issuer_is_plugged_in():
    assert not apps.is_installed("issuer")
    assert onus_port.registered() is None
    assert issuer_modules() == []


def test_the_remaining_apps_migrations_apply_without_issuer_tables():
    executor = MigrationExecutor(connection)
    assert executor.migration_plan(executor.loader.graph.leaf_nodes()) == []
    applied = {app for app, _ in executor.loader.applied_migrations}
    assert {"merchants", "terminals", "payments", "tokenization", "reconciliation"} <= applied
    assert "issuer" not in applied
    tables = connection.introspection.table_names()
    assert "payments_payment" in tables
    assert [t for t in tables if t.startswith("issuer_")] == []


def test_a_card_of_the_issuers_range_goes_to_the_network(payer):
    pa = payer.pay("PA", amount="20.00", number=ISSUER_RANGE_CARD).json()
    assert pa["result"]["code"] == APPROVED, pa
    assert pa["resultDetails"]["clearingInstituteName"] == "Simulator"
    assert pa["additionalData"]["RequestId"].startswith("SIM")  # the simulator's reference

    captured = payer.ref("CP", pa["id"], "20.00").json()
    assert captured["result"]["code"] == APPROVED, captured
    refunded = payer.ref("RF", captured["id"], "5.00").json()
    assert refunded["result"]["code"] == APPROVED, refunded
    assert payer.get(pa["id"]).json()["result"]["code"] == APPROVED

    # The simulator's decline (its ISO 8583 code through payments' one table).
    declined = payer.pay("DB", number="4000000000009995").json()
    assert declined["result"]["code"] == "800.100.203", declined
    assert declined["resultDetails"]["AcquirerResponse"] == "51"
    assert issuer_modules() == []


def test_three_d_secure_on_that_card_is_the_simulated_acs(merchant_api, enrolled):
    payer = Payer(merchant_api, enrolled)
    shopper = Client()
    fields = threeds_fields(**{"threeDSecure.challengeIndicator": "04"})  # challenge mandated
    data = payer.pay("DB", "30.00", number=ISSUER_RANGE_CARD, **fields).json()
    assert data["result"]["code"] == "000.200.000", data
    page = open_redirect(shopper, data).content.decode()
    assert 'name="otp"' in page  # the simulated ACS's one-time password, not an issuer's app
    auth_id = page.split("/threeds/acs/")[1].split("/")[0]
    shopper.post(f"/threeds/acs/{auth_id}/challenge", {"nonce": nonce_of(page), "otp": "1234"})
    answer = final(payer, data["id"])
    assert answer["result"]["code"] == APPROVED, answer
    assert answer["threeDSecure"]["eci"] == "05"
    assert issuer_modules() == []


def test_the_issuer_paths_are_not_there(client):
    assert client.get("/api/schema/").status_code == 200
    assert client.post("/issuer/v1/card/CardInquiry").status_code == 404
    assert client.get("/healthz").status_code == 200
    assert issuer_modules() == []
