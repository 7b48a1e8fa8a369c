import itertools
import uuid

import pytest

from tests.conftest import SpecClient

VISA, MASTER = "4200000000000000", "5454545454545454"
INVALID_CARD, NO_FUNDS, BAD_CVV, TIMEOUT = (
    "4000000000000002",
    "4000000000009995",
    "4000000000000127",
    "4000000000000119",
)

_n = itertools.count()


def mtid() -> str:
    return uuid.uuid4().hex


def card(number=VISA, **extra):
    return {
        "card.number": number,
        "card.holder": "Jane Doe",
        "card.expiryMonth": "12",
        "card.expiryYear": "2034",
        "card.cvv": "123",
        **extra,
    }


class Payer:
    """Pays as one merchant: `pay(type, **fields)`, `ref(type, original_id, **fields)`."""

    def __init__(self, client: SpecClient, merchant):
        self.client, self.merchant = client, merchant

    def pay(self, kind="DB", amount="10.00", currency="EUR", number=VISA, **fields):
        body = {
            "paymentType": kind,
            "merchant.id": self.merchant.merchant_id,
            "merchantTransactionId": fields.pop("merchantTransactionId", mtid()),
            **({"amount": amount, "currency": currency} if amount else {}),
            **(card(number) if number else {}),
            **fields,
        }
        return self.client.post("/pay/v3/payments", body, mtid=False)

    def ref(self, kind, original_id, amount="10.00", currency="EUR", path=True, **fields):
        body = {
            "paymentType": kind,
            "merchant.id": self.merchant.merchant_id,
            "merchantTransactionId": fields.pop("merchantTransactionId", mtid()),
            **({"amount": amount, "currency": currency} if amount else {}),
            **fields,
        }
        if path:
            return self.client.post(f"/pay/v3/payments/{original_id}", body, mtid=False)
        return self.client.post(
            "/pay/v3/payments", {**body, "originalTransactionId": original_id}, mtid=False
        )

    def get(self, payment_id, **query):
        return self.client.get(f"/pay/v3/payments/{payment_id}", query)


@pytest.fixture
def payer(merchant_api, merchant):
    return Payer(merchant_api, merchant)


@pytest.fixture
def channel_payer(api, merchant):
    """The participator paying for its merchant (entityId = the participator)."""
    return Payer(api, merchant)


@pytest.fixture
def enrolled(merchant):
    """The merchant, enrolled in 3-D Secure."""
    merchant.threeds_status = "ENROLLED"
    merchant.save()
    return merchant


from tests.payments.network_host import (  # noqa: E402, F401 - fixtures
    _payments_over_the_link,
    network,
    network_log_path,
    shared_network_host,
)
