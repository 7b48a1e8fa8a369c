"""Payment endpoints: parse with the payment table, call one use case, answer.

POST /pay/v3/payments (every type) and /pay/v3/payments/{id} (CP, RV, RF, PR against id), the
reversal path /pay/v21/payments (RV only), and GET /pay/v3/payments/{id} (inquiry).
"""

from collections.abc import Mapping
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from core import idempotency
from core.api import SpecView
from core.auth import Principal
from core.errors import ParameterError
from core.fields import Choice, FieldType
from core.nesting import lookup
from core.parsers import nest_query
from core.schema import answer, link
from core.tables import Table
from merchants import selectors as merchant_selectors
from terminals import selectors as terminal_selectors

from .. import selectors, services
from ..models import REFERENCED_TYPES, PaymentType
from ..registrations.tables import authentication_problems
from ..render import payment_body
from ..services.types import Caller, PaymentOutcome
from ..threeds import acs
from ..threeds.v2 import threeds_v2_problems
from .commands import (
    card_from,
    card_source_from,
    details_from,
    money_from,
    money_of,
    threeds_from,
)
from .examples import INITIAL_EXAMPLES, REFERENCED_EXAMPLES, REVERSAL_EXAMPLES
from .tables import PAYMENT, PAYMENT_INQUIRY
from .tables.answer import PAYMENT_DOCUMENTED
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


def checked_path_id(value: str, id_type: FieldType = TRANSACTION_ID, what: str = "payment") -> str:
    """The id of the path, checked before anything looks it up (a NUL byte in it answered 500
    on PostgreSQL); 400 naming `id` when it cannot be such an id."""
    try:
        return str(id_type.parse(value))
    except ValueError as exc:
        raise ParameterError([("id", value, f"(the {what} id in the path) {exc}")]) from None


def submit(kind: str, flat: dict[str, Any], common: dict[str, Any], original: str) -> Any:
    """The use case of a paymentType, with its typed arguments."""
    if kind in (PaymentType.CV, PaymentType.RV):
        money = money_from(flat)
        if kind == PaymentType.CV:
            return services.payment_verify(**common, money=money, card=card_source_from(flat))
        source = flat["transactionSource"]
        return services.payment_reverse(**common, original_id=original, source=source, money=money)
    money = money_of(flat)
    if kind == PaymentType.PA:
        return services.payment_authorize(
            **common, money=money, card=card_source_from(flat), threeds=threeds_from(flat)
        )
    if kind == PaymentType.DB:
        return services.payment_debit(
            **common, money=money, card=card_source_from(flat), threeds=threeds_from(flat)
        )
    if kind == PaymentType.CD:
        return services.payment_credit(**common, money=money, card=card_from(flat))
    if kind == PaymentType.CP:
        return services.payment_capture(**common, original_id=original, money=money)
    if kind == PaymentType.RF:
        return services.payment_refund(**common, original_id=original, money=money)
    return services.payment_pos_refund(**common, original_id=original, money=money)


def authentication_problems_of(
    caller: Caller, flat: dict[str, Any], *, card_number: str
) -> list[tuple[str, str]]:
    """The rules that depend on whether a payment goes through 3-D Secure (the merchant's mode
    decides that too): its protocol version's fields, and what an INITIAL standing instruction
    carries."""
    three_ds = services.threeds_requested(
        merchant=caller.merchant,
        payment_type=flat["paymentType"],
        indicator=flat.get("threeDSecure.indicator", ""),
        merchant_initiated=flat.get("standingInstruction.source") == "MIT",
    )
    problems = authentication_problems(flat, three_ds=three_ds)
    if three_ds:
        problems += threeds_v2_problems(flat, version=acs.version_for(card_number))
    return problems


def check_authentication(
    caller: Caller, flat: dict[str, Any], data: Mapping[str, Any], *, card_number: str
) -> None:
    """400 for the 3-D Secure and standing-instruction rules a payment breaks, each problem with
    the value sent (`data`)."""
    problems = authentication_problems_of(caller, flat, card_number=card_number)
    if problems:
        raise ParameterError([(name, lookup(data, name), msg) for name, msg in problems])


def original_id_of(flat: dict[str, Any], payment_id: str | None) -> str | None:
    """The payment a referenced type (CP, RV, RF, PR) acts on: the path's id or the body's
    originalTransactionId, which must agree; None for the other types (which /payments/{id}
    refuses)."""
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


class PaymentsView(SpecView):
    """Every payment type; the payment row itself is the idempotency record (services.engine).
    GET is the inquiry of one payment: the URL conf allows it on /payments/{id} only."""

    http_method_names = ["post"]
    only_types: frozenset[str] | None = None
    table = PAYMENT
    inquiry_table = PAYMENT_INQUIRY  # GET's query parameters
    operation = "payments.submit"
    inquiry_operation = "payments.inquiry"
    entity_types = ANYONE
    summary = "Pay: PA, DB, CD, CV; CP, RV, RF, PR against originalTransactionId"
    inquiry_summary = "Read a payment: its answer, with merchantTransactionId and merchantMemo"
    path_parameters = {"payment_id": TRANSACTION_ID}
    answer_table = PAYMENT_DOCUMENTED

    def request_table(self, path: str) -> tuple[Table, dict[str, Any]]:
        """/payments/{id} takes the referenced types; the reversal path RV only."""
        types = self.only_types or (REFERENCED_TYPES if "{payment_id}" in path else None)
        if types is None:
            return self.table, {}
        ordered = tuple(kind for kind in PaymentType.values if kind in types)
        return self.table, {"paymentType": Choice(ordered)}

    def request_examples(self, path: str) -> dict[str, dict[str, str]]:
        if self.only_types is not None:
            return REVERSAL_EXAMPLES
        return REFERENCED_EXAMPLES if "{payment_id}" in path else INITIAL_EXAMPLES

    def answer_links(self, path: str, method: str) -> dict[str, Any]:
        """A payment's id feeds its inquiry and the operations that reference it; a pending
        3-D Secure payment's session the 3-D Secure page."""
        if method != "POST":
            return {}
        paid = answer("id")
        return {
            "Inquiry": link(
                "payments_inquiry_get_path", "Read it", parameters={"payment_id": paid}
            ),
            "Referenced": link(
                "payments_submit_post_path",
                "Capture, refund or reverse it (CP, RF, RV, PR)",
                parameters={"payment_id": paid},
            ),
            "ReferencedByBody": link(
                "payments_submit_post",
                "Capture, refund or reverse it by originalTransactionId",
                body={"originalTransactionId": paid},
            ),
            "Reversal": link(
                "payments_reverse_post",
                "Reverse it on the reversal path",
                body={"originalTransactionId": paid},
            ),
            "ThreeDSecure": link(
                "threeds_start_post",
                "A pending 3-D Secure payment: the shopper's page (threeDSSessionData)",
                parameters={"auth_id": answer("redirect", "parameters", "0", "value")},
            ),
        }

    def post(self, request: Request, payment_id: str | None = None, **kwargs: Any) -> Response:
        if payment_id is not None:
            payment_id = checked_path_id(payment_id)
        data = request.data if isinstance(request.data, dict) else {}
        return self.answer(request, data, payment_id=payment_id)

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], payment_id: str | None = None, **kw: Any
    ) -> dict[str, Any]:
        kind = flat["paymentType"]
        if self.only_types is not None and kind not in self.only_types:
            raise ParameterError(
                [("paymentType", kind, "this path takes " + ", ".join(sorted(self.only_types)))]
            )
        original_id_of(flat, payment_id)  # refused here, before the merchant is looked up
        return flat

    def run(
        self,
        principal: Principal,
        flat: dict[str, Any],
        *,
        data: Mapping[str, Any],
        payment_id: str | None = None,
        **kwargs: Any,
    ) -> PaymentOutcome:
        caller = caller_for(principal, flat, self.request.build_absolute_uri("/"))
        check_authentication(caller, flat, data, card_number=flat.get("card.number", ""))
        common = {
            "caller": caller,
            "reference": flat["merchantTransactionId"],
            "request_hash": idempotency.fingerprint(flat),
            "details": details_from(flat),
        }
        return submit(flat["paymentType"], flat, common, original_id_of(flat, payment_id) or "")

    def get(self, request: Request, payment_id: str) -> Response:
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
    summary = "Reverse a payment (RV), on the reversal path as the specification prints it"
