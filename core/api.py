"""The base of every spec operation view: authenticate, validate with a table, call one service,
answer in the envelope, at most once per merchantTransactionId.

A subclass sets `table`, `operation` and `entity_types` and implements `perform(principal,
flat)`, which calls one service and returns `(result, data)`; refusals are raised as
ApplicationError. An operation that keeps its own idempotency record (a payment row claims its
merchantTransactionId) implements `run` instead and returns the service's `Outcome`; `run` is
handed the request's data as sent and the path's parameters, as `reconcile` is the latter, so
nothing needs keeping on the view between the hooks.

Replays take one path, whatever keeps the record: `core.idempotency.replay` compares the stored
request fingerprint (same parameters: the stored answer; others: 800.110.100), and `respond`
answers a replay with fresh buildNumber, timestamp and ndc and the header
`Idempotent-Replayed: true`.
"""

from collections.abc import Mapping
from typing import Any, ClassVar

from rest_framework.exceptions import MethodNotAllowed
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import idempotency, results
from .auth import Principal
from .envelope import envelope, new_id
from .errors import ApplicationError, Forbidden
from .fields import FieldType
from .idempotency import Outcome
from .parsers import nest_query
from .tables import Table


class SpecView(APIView):
    table: ClassVar[Table]
    operation: ClassVar[str]
    entity_types: ClassVar[frozenset[str]] = frozenset({"PARTICIPATOR"})
    # Updates: mandatory fields may be omitted (not blanked); these stay required.
    partial: ClassVar[bool] = False
    always_required: ClassVar[tuple[str, ...]] = ()
    idempotent: ClassVar[bool] = True
    http_method_names = ["post"]
    # The OpenAPI document (core.schema.operations): a one-line summary, the types of the path's
    # parameters, the rows of the 200 answer beside the envelope, request bodies the API
    # accepts (core.schema.body_example) and the operations the answer feeds (core.schema.link).
    summary: ClassVar[str] = ""
    path_parameters: ClassVar[dict[str, FieldType]] = {}
    answer_table: ClassVar[Table | None] = None
    examples: ClassVar[dict[str, dict[str, str]]] = {}
    links: ClassVar[dict[str, dict[str, Any]]] = {}

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # APIView.initial authenticates before dispatch looks for the method's handler, so a GET
        # to a POST-only path without a token answered 401 (or 400 without entityId): the
        # method is the first thing wrong with such a request, and the cheapest to check.
        if not self.allows(request.method or "", **kwargs):
            raise MethodNotAllowed(request.method or "")
        super().initial(request, *args, **kwargs)

    def allows(self, method: str, **kwargs: Any) -> bool:
        """Whether this view answers `method` (for these path parameters)."""
        name = method.lower()
        return name in self.http_method_names and hasattr(self, name)

    def _allowed_methods(self) -> list[str]:  # the `Allow` header
        kwargs = getattr(self, "kwargs", {}) or {}
        return [m.upper() for m in self.http_method_names if self.allows(m, **kwargs)]

    def post(self, request: Request, **kwargs: Any) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        return self.answer(request, data, **kwargs)

    def answer(self, request: Request, data: Mapping[str, Any], **kwargs: Any) -> Response:
        principal: Principal = request.user  # type: ignore[assignment]
        if principal.entity_type not in self.entity_types:
            raise Forbidden(f"entityType {principal.entity_type} may not call {self.operation}")
        flat = self.validate(principal, data, **kwargs)
        return self.respond(self.run(principal, flat, data=data, **kwargs))

    def validate(
        self, principal: Principal, data: Mapping[str, Any], **kwargs: Any
    ) -> dict[str, Any]:
        """The table's values; a partial update's rules see the stored values merged with the
        change (`stored`)."""
        flat = self.table.validate(
            data, partial=self.partial, required=self.always_required, run_rules=not self.partial
        )
        flat = self.reconcile(principal, flat, **kwargs)
        if self.partial:
            self.table.check_rules({**self.stored(principal, flat), **flat}, data)
        return flat

    def reconcile(
        self, principal: Principal, flat: dict[str, Any], **kwargs: Any
    ) -> dict[str, Any]:
        """Hook: reconcile path parameters with the body."""
        return flat

    def stored(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        """Hook for partial updates: the object's stored values by dotted name."""
        return {}

    def run(
        self, principal: Principal, flat: dict[str, Any], *, data: Mapping[str, Any], **kwargs: Any
    ) -> Outcome:
        """Perform at most once per (entity, operation, merchantTransactionId). `data` is the
        request as sent and `kwargs` the path's parameters, for an override that needs them."""
        mtid = flat.get("merchantTransactionId")
        if not self.idempotent or not mtid or not self.replayable(flat):
            return Outcome(self._perform(principal, flat))

        def refusal(exc: ApplicationError) -> dict[str, Any]:
            return envelope(exc.result, description=exc.description, data=exc.data)

        return idempotency.run_once(
            entity_id=principal.entity.entity_id,
            operation=self.operation,
            merchant_transaction_id=mtid,
            request_hash=self.request_fingerprint(flat),
            perform=lambda: self._perform(principal, flat),
            refusal=refusal,
        )

    def replayable(self, flat: dict[str, Any]) -> bool:
        """Hook: whether this request is kept for replay (a read is not)."""
        return True

    def request_fingerprint(self, flat: dict[str, Any]) -> str:
        """Hook: what makes two requests "the same parameters" (`idempotency.fingerprint`
        takes card data by its keyed fingerprint, never in clear)."""
        return idempotency.fingerprint(flat)

    def _perform(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        result, data = self.perform(principal, flat)
        return envelope(result, data=data)

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        raise NotImplementedError

    def respond(self, outcome: Outcome) -> Response:
        body, headers = idempotency.answer(outcome)
        return Response(body, headers=headers)


class SpecInquiryView(SpecView):
    """A read: GET with query parameters or POST with a form; nothing stored, no replay."""

    idempotent = False
    http_method_names = ["get", "post"]

    def get(self, request: Request, **kwargs: Any) -> Response:
        return self.answer(request, nest_query(request.query_params), **kwargs)


__all__ = ["SpecInquiryView", "SpecView", "new_id"]
