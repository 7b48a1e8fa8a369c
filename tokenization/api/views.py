"""POST /pay/v3/tokenize (CT, DT, GT, GA) and GET /pay/v3/asset/{assetId}.

CT and DT are idempotent on merchantTransactionId as every write; GT and GA are plain reads,
never replayed. A token is reached only through its merchant (the token requestor) or that
merchant's channel: any other caller gets 404 for its reference.
"""

import base64
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from core import cards, results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.envelope import envelope
from core.errors import ParameterError
from core.fields import Base64, Choice, N
from core.schema import answer, body_example, link
from core.tables import F, Table
from core.tables.common import ENTITY_ID, ENTITY_TYPE
from merchants import selectors as merchant_selectors

from .. import results as token_results
from .. import selectors, services
from ..models import Asset, MediaType
from ..render import CARD_ART_ROWS, token_view
from .tables import ASSET_ID, TOKEN_ANSWER, TOKENIZE, references

ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})
MERCHANT = {"entityId": "10000001", "entityType": "MERCHANT", "merchant.id": "10000001"}
EXAMPLE_TUR = "DTKN" + "0" * 60


class TokenizeView(SpecView):
    table = TOKENIZE
    operation = "tokens.tokenize"
    entity_types = ANYONE
    summary = "Scheme tokens: create (CT), delete (DT), get (GT), get assets (GA)"
    answer_table = TOKEN_ANSWER
    examples = {
        "CT create": body_example(
            TOKENIZE,
            {
                **MERCHANT,
                "merchantTransactionId": "ct0001",
                "token.Type": "CT",
                "card.number": "4200000000000000",
                "card.holder": "Jane Doe",
                "card.expiryMonth": "12",
                "card.expiryYear": "2034",
            },
        ),
        "GT get": body_example(
            TOKENIZE, {**MERCHANT, "token.Type": "GT", "tokenUniqueReferences": EXAMPLE_TUR}
        ),
    }
    links = {
        "Get": link(
            "tokens_tokenize_post",
            "Read, delete or get the assets of the token (GT, DT, GA)",
            body={"tokenUniqueReferences": answer("tokenUniqueReference")},
        ),
        "BrandLogo": link(
            "tokens_asset_get_path",
            "The brand logo",
            parameters={"asset_id": answer("additionalData", "brandLogoAssetId")},
        ),
    }

    def replayable(self, flat: dict[str, Any]) -> bool:
        return flat["token.Type"] in ("CT", "DT")

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = merchant_selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchant.id"]
        )
        kind = flat["token.Type"]
        if kind == "CT":
            return self._create(principal, merchant, flat)
        tokens = [
            selectors.token_get(entity=principal.entity, reference=ref) for ref in references(flat)
        ]
        if any(token.merchant_id != merchant.pk for token in tokens):
            raise ParameterError(
                [("merchant.id", flat["merchant.id"], "is not the merchant of these tokens")]
            )
        if kind == "DT":
            deleted = services.tokens_delete(
                tokens=tokens,
                caused_by=flat["causedBy"],
                reason=flat.get("reasonCode") or "OTHER",
                actor=principal.actor,
            )
            listed = [{"tokenUniqueReference": t.pk, "status": t.status} for t in deleted]
            return results.REQUEST_SUCCEEDED, {"tokens": listed}
        token = tokens[0]
        if kind == "GA":
            flat_answer = TOKEN_ANSWER.render(token, names=["tokenUniqueReference", *CARD_ART_ROWS])
            return results.REQUEST_SUCCEEDED, flat_answer
        return results.REQUEST_SUCCEEDED, token_view(token)

    def _create(
        self, principal: Principal, merchant: Any, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        number = flat["card.number"]
        decision, token = services.token_create(
            merchant=merchant,
            entity=principal.entity,
            card=services.FundingCard(
                number=number,
                expiry_month=flat["card.expiryMonth"],
                expiry_year=flat["card.expiryYear"],
                holder=flat.get("card.holder", ""),
            ),
            brand=flat.get("token.Brand") or cards.detect_brand(number),
        )
        if token is None:
            return token_results.TOKEN_DECLINED, {"decision": decision}
        result = (
            results.REQUEST_SUCCEEDED
            if decision == services.APPROVED
            else token_results.TOKEN_NEEDS_AUTHENTICATION
        )
        return result, {"decision": decision, **token_view(token)}


ASSET_ANSWER = Table(
    [
        F("mediaContents[n].type", Choice(tuple(MediaType.values))),
        F("mediaContents[n].data", Base64(4_000_000), meaning="the content, base64"),
        F("mediaContents[n].height", N(6), meaning="pixels (images)"),
        F("mediaContents[n].width", N(6), meaning="pixels (images)"),
    ]
)


class AssetView(SpecInquiryView):
    """GET /pay/v3/asset/{assetId}: the media contents of a card-art asset. Assets never change
    once published, so answers may be cached for good (a strong ETag is the asset's id)."""

    http_method_names = ["get"]
    table = Table([ENTITY_ID, ENTITY_TYPE])
    operation = "tokens.asset"
    inquiry_operation = "tokens.asset"
    entity_types = ANYONE
    summary = "A card-art asset: its media contents (PNG with alpha, vector, text)"
    inquiry_summary = summary
    path_parameters = {"asset_id": ASSET_ID}
    answer_table = ASSET_ANSWER

    def get(self, request: Request, asset_id: str = "", **kwargs: Any) -> Response:
        try:
            asset_id = str(ASSET_ID.parse(asset_id))
        except ValueError as exc:
            raise ParameterError([("assetId", asset_id, str(exc))]) from None
        etag = f'"{asset_id}"'
        response = super().get(request, asset_id=asset_id, **kwargs)
        if response.status_code == 200 and request.headers.get("If-None-Match") == etag:
            response = Response(status=304)
        if response.status_code in (200, 304):
            response["ETag"] = etag
            response["Cache-Control"] = "private, max-age=31536000, immutable"
        return response

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], asset_id: str = "", **kw: Any
    ) -> dict[str, Any]:
        self.asset_id = asset_id
        return flat

    def _perform(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        asset: Asset = selectors.asset_get(asset_id=self.asset_id)
        contents = [
            {
                "type": content.type,
                "data": base64.b64encode(bytes(content.data)).decode(),
                **({"height": str(content.height)} if content.height else {}),
                **({"width": str(content.width)} if content.width else {}),
            }
            for content in asset.contents.all()
        ]
        return envelope(results.REQUEST_SUCCEEDED, data={"mediaContents": contents})
