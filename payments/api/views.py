"""Payment endpoints: parse with the payment table, call one use case, answer.

POST /pay/v3/payments (every type) and /pay/v3/payments/{id} (CP, RV, RF, PR against id), the
reversal path /pay/v21/payments (RV only), and GET /pay/v3/payments/{id} (inquiry).
"""

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from core.api import SpecView
from core.auth import Principal
from core.errors import ParameterError
from core.nesting import lookup
from core.parsers import nest_query
from merchants import selectors as merchant_selectors
from terminals import selectors as terminal_selectors

from .. import selectors, services
from ..models import REFERENCED_TYPES, PaymentType
from ..render import payment_body
from ..services.types import Caller, PaymentOutcome
from ..threeds import acs
from ..threeds.v2 import threeds_v2_problems
from .commands import (
    card_from,
    details_from,
    money_from,
    money_of,
    request_hash,
    threeds_from,
)
from .tables import PAYMENT, PAYMENT_INQUIRY
from .tables.payment import TRANSACTION_ID

ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})


def caller_for(principal: Principal, flat: dict[str, Any], base_url: str = "") -> Caller:
    """The merchant the entity reaches (404 otherwise) and, for POS, the terminal."""
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
    return Caller(principal.entity, principal.entity_type, merchant, terminal, base_url)


def checked_path_id(payment_id: str) -> str:
    """The payment id of the path, checked before anything looks it up (a NUL byte in it
    answered 500 on PostgreSQL); 400 naming `id` when it cannot be a payment id."""
    try:
        return str(TRANSACTION_ID.parse(payment_id))
    except ValueError as exc:
        raise ParameterError([("id", payment_id, f"(the payment id in the path) {exc}")]) from None


def submit(kind: str, flat: dict[str, Any], common: dict[str, Any], original: str) -> Any:
    """The use case of a paymentType, with its typed arguments."""
    if kind in (PaymentType.CV, PaymentType.RV):
        money = money_from(flat)
        if kind == PaymentType.CV:
            return services.payment_verify(**common, money=money, card=card_from(flat))
        source = flat["transactionSource"]
        return services.payment_reverse(**common, original_id=original, source=source, money=money)
    money = money_of(flat)
    if kind == PaymentType.PA:
        return services.payment_authorize(
            **common, money=money, card=card_from(flat), threeds=threeds_from(flat)
        )
    if kind == PaymentType.DB:
        return services.payment_debit(
            **common, money=money, card=card_from(flat), threeds=threeds_from(flat)
        )
    if kind == PaymentType.CD:
        return services.payment_credit(**common, money=money, card=card_from(flat))
    if kind == PaymentType.CP:
        return services.payment_capture(**common, original_id=original, money=money)
    if kind == PaymentType.RF:
        return services.payment_refund(**common, original_id=original, money=money)
    return services.payment_pos_refund(**common, original_id=original, money=money)


class PaymentsView(SpecView):
    """Every payment type; the payment row itself is the idempotency record (services.engine)."""

    http_method_names = ["get", "post"]
    only_types: frozenset[str] | None = None
    table = PAYMENT
    inquiry_table = PAYMENT_INQUIRY  # GET's query parameters, for the OpenAPI schema
    operation = "payments.submit"
    entity_types = ANYONE

    def allows(self, method: str, **kwargs: Any) -> bool:
        """GET is the inquiry of one payment: /payments/{id} only."""
        if method.upper() == "GET" and not kwargs.get("payment_id"):
            return False
        return super().allows(method, **kwargs)

    def post(self, request: Request, payment_id: str | None = None, **kwargs: Any) -> Response:
        if payment_id is not None:
            payment_id = checked_path_id(payment_id)
        data = request.data if isinstance(request.data, dict) else {}
        self.data = data
        return self.answer(request, data, payment_id=payment_id)

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], payment_id: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        kind = flat["paymentType"]
        if self.only_types is not None and kind not in self.only_types:
            raise ParameterError(
                [("paymentType", kind, "this path takes " + ", ".join(sorted(self.only_types)))]
            )
        self.original_id = self._original_id(flat, payment_id)
        return flat

    def run(self, principal: Principal, flat: dict[str, Any]) -> PaymentOutcome:
        caller = caller_for(principal, flat, self.request.build_absolute_uri("/"))
        kind = flat["paymentType"]
        indicator = flat.get("threeDSecure.indicator", "")
        if services.threeds_requested(
            merchant=caller.merchant, payment_type=kind, indicator=indicator
        ):
            version = acs.version_for(flat["card.number"])
            problems = threeds_v2_problems(flat, version=version)
            if problems:
                raise ParameterError(
                    [(name, lookup(self.data, name), msg) for name, msg in problems]
                )
        common = {
            "caller": caller,
            "reference": flat["merchantTransactionId"],
            "request_hash": request_hash(flat),
            "details": details_from(flat),
        }
        return submit(kind, flat, common, self.original_id or "")

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
        if payment_id is None:  # refused by `allows` before authentication
            return self.http_method_not_allowed(request)
        payment_id = checked_path_id(payment_id)
        flat = PAYMENT_INQUIRY.validate(nest_query(request.query_params))
        principal: Principal = request.user  # type: ignore[assignment]
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
