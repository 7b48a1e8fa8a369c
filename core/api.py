"""The base of every spec operation view: authenticate, parse with a table, call one service,
answer in the envelope, at most once per merchantTransactionId.

A subclass sets `table`, `operation`, `entity_types` and implements `perform(principal, flat)`,
which calls one service and returns `(result, data)`; refusals are raised as ApplicationError.
"""

from collections.abc import Mapping
from typing import Any, ClassVar

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from . import idempotency, results
from .build import build_number
from .context import get_ndc
from .envelope import envelope, new_id, timestamp
from .errors import ApplicationError, Forbidden
from .parsers import nest_query
from .spec import Table


class SpecView(APIView):
    table: ClassVar[Table]
    operation: ClassVar[str]
    entity_types: ClassVar[frozenset[str]] = frozenset({"PARTICIPATOR"})
    # Updates: mandatory fields may be omitted (not blanked); these stay required.
    partial: ClassVar[bool] = False
    always_required: ClassVar[tuple[str, ...]] = ()
    idempotent: ClassVar[bool] = True
    http_method_names = ["post"]

    def post(self, request: Request, **kwargs: Any) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        return self.answer(request, data, **kwargs)

    def answer(self, request: Request, data: Mapping[str, Any], **kwargs: Any) -> Response:
        principal: Any = request.user  # merchants.auth.Principal
        if principal.entity_type not in self.entity_types:
            raise Forbidden(f"entityType {principal.entity_type} may not call {self.operation}")
        flat = self.table.validate(
            data, partial=self.partial, required=self.always_required, run_rules=not self.partial
        )
        flat = self.adjust(flat, data, **kwargs)
        mtid = flat.get("merchantTransactionId")
        if not self.idempotent or not mtid:
            result, body_data = self.perform(principal, flat)
            return Response(envelope(result, data=body_data))

        def perform() -> dict[str, Any]:
            result, body_data = self.perform(principal, flat)
            return envelope(result, data=body_data)

        def refusal(exc: ApplicationError) -> dict[str, Any]:
            return envelope(exc.result, description=exc.description, data=exc.data)

        body, replayed = idempotency.run_once(
            entity_id=principal.entity.entity_id,
            operation=self.operation,
            merchant_transaction_id=mtid,
            request_hash=idempotency.fingerprint(flat),
            perform=perform,
            refusal=refusal,
        )
        if replayed:
            body.update(buildNumber=build_number(), timestamp=timestamp(), ndc=get_ndc())
            return Response(body, headers={"Idempotent-Replayed": "true"})
        return Response(body)

    def adjust(
        self, flat: dict[str, Any], data: Mapping[str, Any], **kwargs: Any
    ) -> dict[str, Any]:
        """Hook: reconcile path parameters with the body, merge stored values for rules."""
        return flat

    def perform(
        self, principal: Any, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        raise NotImplementedError


class SpecInquiryView(SpecView):
    """A read: GET with query parameters or POST with a form; nothing stored, no replay."""

    idempotent = False
    http_method_names = ["get", "post"]

    def get(self, request: Request, **kwargs: Any) -> Response:
        return self.answer(request, nest_query(request.query_params), **kwargs)


__all__ = ["SpecInquiryView", "SpecView", "new_id"]
