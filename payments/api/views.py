"""Payment endpoints: thin views over payments.services."""

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import idempotency
from core.build import build_number
from core.context import get_ndc
from core.envelope import timestamp
from core.errors import ParameterError
from core.nesting import lookup
from core.parsers import nest_query
from merchants import selectors as merchant_selectors
from merchants.auth import Principal
from terminals import selectors as terminal_selectors

from .. import cards, selectors, services
from ..models import REFERENCED_TYPES
from ..render import payment_body
from ..threeds import issuer
from .serializers import PAYMENT, PAYMENT_INQUIRY


def request_hash(flat: dict[str, Any]) -> str:
    """What makes two requests "the same parameters": all fields, with the card number replaced
    by its keyed fingerprint and the CVV left out (neither is stored in any form)."""
    safe = {k: v for k, v in flat.items() if k not in ("card.number", "card.cvv")}
    if "card.number" in flat:
        safe["card.fingerprint"] = cards.fingerprint(flat["card.number"])
    return idempotency.fingerprint(safe)


def caller_for(principal: Principal, flat: dict[str, Any], base_url: str = "") -> services.Caller:
    merchant = merchant_selectors.merchant_get(
        entity=principal.entity, merchant_id=flat["merchant.id"]
    )
    terminal = principal.terminal
    terminal_id = flat.get("pos.terminalId")
    if terminal is None and terminal_id:
        terminal = terminal_selectors.terminal_get(entity=principal.entity, terminal_id=terminal_id)
    if terminal is not None and terminal.merchant_id != merchant.pk:
        raise ParameterError(
            [
                (
                    "pos.terminalId",
                    terminal_id,
                    f"is not a terminal of merchant.id {merchant.merchant_id}",
                )
            ]
        )
    return services.Caller(principal.entity, principal.entity_type, merchant, terminal, base_url)


class PaymentsView(APIView):
    """POST /pay/v3/payments (all types) and /pay/v3/payments/{id} (CP, RV, RF, PR against id);
    GET /pay/v3/payments/{id} (inquiry)."""

    http_method_names = ["get", "post"]
    only_types: frozenset[str] | None = None
    table = PAYMENT  # for the OpenAPI schema (core.schema)
    inquiry_table = PAYMENT_INQUIRY
    operation = "payments.submit"

    def post(self, request: Request, payment_id: str | None = None) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        flat = PAYMENT.validate(data)
        kind = flat["paymentType"]
        if self.only_types is not None and kind not in self.only_types:
            raise ParameterError(
                [("paymentType", kind, "this path takes " + ", ".join(sorted(self.only_types)))]
            )
        original_id = self._original_id(flat, payment_id)
        caller = caller_for(request.user, flat, request.build_absolute_uri("/"))  # type: ignore[arg-type]
        if services.threeds_requested(caller.merchant, flat):
            from ..threeds.fields import threeds_v2_problems

            version = issuer.version_for(flat["card.number"])
            problems = threeds_v2_problems(flat, version=version)
            if problems:
                raise ParameterError([(name, lookup(data, name), msg) for name, msg in problems])
        outcome = services.payment_submit(
            caller=caller, flat=flat, request_hash=request_hash(flat), original_id=original_id
        )
        if outcome.replayed:
            body = {
                **outcome.body,
                "buildNumber": build_number(),
                "timestamp": timestamp(),
                "ndc": get_ndc(),
            }
            return Response(body, headers={"Idempotent-Replayed": "true"})
        return Response(outcome.body)

    @staticmethod
    def _original_id(flat: dict[str, Any], payment_id: str | None) -> str | None:
        kind, given = flat["paymentType"], flat.get("originalTransactionId")
        if kind not in REFERENCED_TYPES:
            if payment_id:
                raise ParameterError(
                    [("paymentType", kind, "only CP, RV, RF and PR are posted to /payments/{id}")]
                )
            return None
        if payment_id and given and given != payment_id:
            raise ParameterError(
                [
                    (
                        "originalTransactionId",
                        given,
                        f"does not match the path's payment id {payment_id}",
                    )
                ]
            )
        if not (payment_id or given):
            raise ParameterError(
                [("originalTransactionId", None, f"is required for paymentType {kind}")]
            )
        return payment_id or given

    def get(self, request: Request, payment_id: str | None = None) -> Response:
        if payment_id is None:
            return self.http_method_not_allowed(request)
        flat = PAYMENT_INQUIRY.validate(nest_query(request.query_params))
        principal: Any = request.user  # merchants.auth.Principal
        payment = selectors.payment_get(
            entity=principal.entity,
            payment_id=payment_id,
            merchant_transaction_id=flat.get("merchantTransactionId"),
        )
        return Response(
            payment_body(payment, inquiry=True, base_url=request.build_absolute_uri("/"))
        )


class ReversalView(PaymentsView):
    """/pay/v21/payments: the reversal path as the spec prints it."""

    only_types = frozenset({"RV"})
    operation = "payments.reverse"
