"""POST /pay/v3/tokenize (CT, DT, GT, GA) and GET /pay/v3/asset/{assetId}: every operation and
refusal on its HTTP status, result.code and the stored rows."""

import base64
import io
import re

import pytest
from PIL import Image

from core import vault
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory
from tests.payments.conftest import mtid
from tokenization.models import Token, TokenStatusChange

pytestmark = pytest.mark.django_db

VISA, MASTER = "4200000000000000", "5454545454545454"
DECLINED_CARD, AUTH_CARD = "4000000000000002", "4000000000003220"


def tokenize(client: SpecClient, merchant, kind: str, **fields):
    body = {"merchant.id": merchant.merchant_id, "token.Type": kind, **fields}
    if kind in ("CT", "DT"):
        body.setdefault("merchantTransactionId", mtid())
    return client.post(
        "/pay/v3/tokenize", {k: v for k, v in body.items() if v is not None}, mtid=False
    )


def card(number=VISA, **extra):
    return {
        "card.number": number,
        "card.holder": "Jane Doe",
        "card.expiryMonth": "12",
        "card.expiryYear": "2034",
        **extra,
    }


@pytest.fixture
def create(merchant_api, merchant):
    def make(number=VISA, **fields):
        return tokenize(merchant_api, merchant, "CT", **card(number), **fields)

    return make


# --- CT ---------------------------------------------------------------------------------------


def test_ct_approves_a_card_payments_approve(create):
    response = create()
    assert response.status_code == 200 and code(response) == "000.000.100"
    data = response.json()
    assert data["decision"] == "APPROVED" and data["status"] == "ACTIVE"
    tur = data["tokenUniqueReference"]
    assert len(tur) == 64 and re.fullmatch(r"[A-Za-z0-9]{64}", tur)
    assert re.fullmatch(r"[0-9]{4}", data["tokenInfo"]["tokenPanSuffix"])
    assert re.fullmatch(r"(0[1-9]|1[0-2])[0-9]{2}", data["tokenInfo"]["tokenExpiry"])
    extra = data["additionalData"]
    for name in ("brandLogoAssetId", "issuerLogoAssetId", "iconAssetId"):
        assert re.fullmatch(r"[0-9a-f]{64}", extra[name])
    assert extra.get("cardBackgroundCombinedAssetId") or extra.get("cardBackgroundAssetId")
    assert re.fullmatch(r"[0-9A-F]{6}", extra["foregroundColor"]) and extra["issuerName"]
    assert "addtionalData" not in data and "4200000000000000" not in response.content.decode()
    token = Token.objects.get(pk=tur)
    assert token.card_last4 == "0000" and "4200000000000000" not in token.pan_ciphertext
    assert vault.decrypt(token.pan_ciphertext, purpose="pan") == VISA
    assert TokenStatusChange.objects.get(token=token).to_status == "ACTIVE"


def test_ct_with_the_samples_names(merchant_api, merchant):
    body = {**card(MASTER), "paymentType": "CT", "paymentBrand": "MASTER"}
    response = tokenize(merchant_api, merchant, "CT", **body)
    # token.Type and paymentType name one row: sending both is refused
    assert response.status_code == 400 and "paymentType" in param_errors(response)
    body.pop("paymentType")
    response = merchant_api.post(
        "/pay/v3/tokenize",
        {
            "merchant.id": merchant.merchant_id,
            "paymentType": "CT",
            "merchantTransactionId": mtid(),
            **card(MASTER),
            "paymentBrand": "MASTER",
        },
        mtid=False,
    )
    assert code(response) == "000.000.100" and response.json()["tokenInfo"]["brand"] == "MASTER"


def test_ct_declined_card(create):
    response = create(DECLINED_CARD)
    assert response.status_code == 200 and code(response) == "800.100.160"
    assert response.json()["decision"] == "DECLINED"
    assert "tokenUniqueReference" not in response.json() and not Token.objects.exists()


def test_ct_additional_authentication_leaves_the_token_inactive(create):
    response = create(AUTH_CARD)
    assert code(response) == "000.200.103"
    data = response.json()
    assert data["decision"] == "REQUIRE_ADDITIONAL_AUTHENTICATION" and data["status"] == "INACTIVE"
    assert Token.objects.get().status == "INACTIVE"


def test_the_same_card_twice_answers_the_existing_token(create):
    first = create().json()["tokenUniqueReference"]
    second = create().json()["tokenUniqueReference"]
    assert first == second and Token.objects.count() == 1


def test_ct_is_idempotent_on_merchant_transaction_id(create):
    reference = mtid()
    first = create(merchantTransactionId=reference)
    again = create(merchantTransactionId=reference)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json()["tokenUniqueReference"] == first.json()["tokenUniqueReference"]
    other = create(MASTER, merchantTransactionId=reference)
    assert code(other) == "800.110.100"


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"card.number": None}, "card.number"),
        ({"card.number": "4200000000000001"}, "card.number"),
        ({"card.expiryMonth": "13"}, "card.expiryMonth"),
        ({"token.Brand": "MASTER"}, "token.Brand"),
        ({"merchantTransactionId": ""}, "merchantTransactionId"),
        ({"causedBy": "CARDHOLDER"}, "causedBy"),
    ],
)
def test_ct_refuses_bad_input(merchant_api, merchant, fields, named):
    response = tokenize(merchant_api, merchant, "CT", **{**card(), **fields})
    assert response.status_code == 400 and named in param_errors(response)
    assert not Token.objects.exists()
    assert "4200000000000000" not in response.content.decode()


def test_an_unknown_type_is_refused(merchant_api, merchant):
    response = tokenize(merchant_api, merchant, "XX")
    assert response.status_code == 400 and "token.Type" in param_errors(response)


# --- GT, GA, DT -------------------------------------------------------------------------------


def test_gt_answers_status_and_card_art(merchant_api, merchant, create):
    tur = create().json()["tokenUniqueReference"]
    response = tokenize(merchant_api, merchant, "GT", tokenUniqueReferences=tur)
    assert response.status_code == 200 and code(response) == "000.000.100"
    data = response.json()
    assert data["status"] == "ACTIVE" and "suspendedBy" not in data
    assert re.fullmatch(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z", data["statusTimestamp"]
    )
    assert data["additionalData"]["brandLogoAssetId"]
    assert "Idempotent-Replayed" not in response


def test_ga_answers_the_asset_ids(merchant_api, merchant, create):
    tur = create().json()["tokenUniqueReference"]
    data = tokenize(merchant_api, merchant, "GA", tokenUniqueReferences=tur).json()
    assert data["tokenUniqueReference"] == tur and set(data["additionalData"]) >= {
        "brandLogoAssetId",
        "issuerLogoAssetId",
        "iconAssetId",
    }


def test_dt_deactivates_for_good(merchant_api, merchant, create):
    one = create().json()["tokenUniqueReference"]
    two = create(MASTER).json()["tokenUniqueReference"]
    response = tokenize(
        merchant_api,
        merchant,
        "DT",
        **{
            "tokenUniqueReferences[0]": one,
            "tokenUniqueReferences[1]": two,
            "causedBy": "CARDHOLDER",
        },
    )
    assert code(response) == "000.000.100"
    assert sorted(
        (t["tokenUniqueReference"], t["status"]) for t in response.json()["tokens"]
    ) == sorted([(one, "DEACTIVATED"), (two, "DEACTIVATED")])
    history = TokenStatusChange.objects.filter(token_id=one).order_by("pk").last()
    assert (history.to_status, history.reason) == ("DEACTIVATED", "OTHER")
    assert (
        tokenize(merchant_api, merchant, "GT", tokenUniqueReferences=one).json()["status"]
        == "DEACTIVATED"
    )
    # a new token for the same card is a new token
    assert create().json()["tokenUniqueReference"] not in (one, two)


def test_dt_needs_caused_by(merchant_api, merchant, create):
    tur = create().json()["tokenUniqueReference"]
    response = tokenize(merchant_api, merchant, "DT", tokenUniqueReferences=tur)
    assert response.status_code == 400 and "causedBy" in param_errors(response)
    assert Token.objects.get().status == "ACTIVE"


def test_another_merchant_gets_404(create):
    tur = create().json()["tokenUniqueReference"]
    other = MerchantFactory()
    client = SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT")
    for kind, extra in (("GT", {}), ("GA", {}), ("DT", {"causedBy": "TOKEN_REQUESTOR"})):
        response = tokenize(client, other, kind, tokenUniqueReferences=tur, **extra)
        assert response.status_code == 404 and code(response) == "700.150.100"
    assert Token.objects.get().status == "ACTIVE"


def test_the_channel_reaches_its_merchants_tokens(api, merchant, create):
    tur = create().json()["tokenUniqueReference"]
    assert code(tokenize(api, merchant, "GT", tokenUniqueReferences=tur)) == "000.000.100"


def test_another_participator_gets_404(other_api, merchant, create):
    tur = create().json()["tokenUniqueReference"]
    response = tokenize(other_api, merchant, "GT", tokenUniqueReferences=tur)
    assert response.status_code == 404


# --- assets -------------------------------------------------------------------------------------


def test_assets_decode_as_pngs_with_alpha_of_the_stated_size(merchant_api, create):
    extra = create().json()["additionalData"]
    for name in (
        "brandLogoAssetId",
        "issuerLogoAssetId",
        "iconAssetId",
        "cardBackgroundCombinedAssetId",
    ):
        response = merchant_api.get(f"/pay/v3/asset/{extra[name]}")
        assert response.status_code == 200 and code(response) == "000.000.100"
        assert re.fullmatch(r"[0-9a-f]{32}", response.json()["id"])  # the request's id
        assert response["Cache-Control"] == "private, max-age=31536000, immutable"
        assert response["ETag"] == f'"{extra[name]}"'
        [content] = response.json()["mediaContents"]
        assert content["type"] == "image/png"
        image = Image.open(io.BytesIO(base64.b64decode(content["data"])))
        assert image.format == "PNG" and image.mode == "RGBA"
        assert image.size == (int(content["width"]), int(content["height"]))


def test_an_asset_answers_304_to_its_etag(merchant_api, create):
    asset = create().json()["additionalData"]["iconAssetId"]
    response = merchant_api.client.get(
        f"/pay/v3/asset/{asset}",
        {"entityId": merchant_api.entity_id, "entityType": "MERCHANT"},
        HTTP_AUTHORIZATION=f"Bearer {merchant_api.token}",
        HTTP_IF_NONE_MATCH=f'"{asset}"',
    )
    assert response.status_code == 304 and response["ETag"] == f'"{asset}"'


def test_an_unknown_asset(merchant_api):
    response = merchant_api.get(f"/pay/v3/asset/{'b' * 64}")
    assert response.status_code == 404 and code(response) == "700.150.400"
    bad = merchant_api.get("/pay/v3/asset/not-an-id")
    assert bad.status_code == 400 and "assetId" in param_errors(bad)


def test_assets_need_authentication(create, client):
    asset = create().json()["additionalData"]["iconAssetId"]
    assert client.get(f"/pay/v3/asset/{asset}").status_code == 401
