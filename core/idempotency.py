"""At most once per (entity, operation, merchantTransactionId), with replay.

The same merchantTransactionId with the same parameters replays the stored answer (header
`Idempotent-Replayed: true`); with other parameters it is refused with 800.110.100. Refusals that
are answers (HTTP 200 family) are stored and replayed like successes; 4xx errors write nothing.
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction

from . import results
from .errors import ApplicationError
from .models import IdempotentRequest

# Keys never stored: a replayed create does not show merchant.token again.
SECRET_KEYS = frozenset({"token"})


def fingerprint(data: Mapping[str, Any]) -> str:
    canonical = json.dumps(data, sort_keys=True, default=_json_default, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _json_default(value: Any) -> str:
    if isinstance(value, date | Decimal):
        return str(value)
    raise TypeError(type(value))


def run_once(
    *,
    entity_id: str,
    operation: str,
    merchant_transaction_id: str,
    request_hash: str,
    perform: Callable[[], dict[str, Any]],
    refusal: Callable[[ApplicationError], dict[str, Any]],
) -> tuple[dict[str, Any], bool]:
    """Return (response body, replayed). `perform` runs inside a transaction with the record."""
    key = {
        "entity_id": entity_id,
        "operation": operation,
        "merchant_transaction_id": merchant_transaction_id,
    }
    existing = IdempotentRequest.objects.filter(**key).first()
    if existing is not None:
        return _replay(existing, request_hash), True
    try:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    body = perform()
            except ApplicationError as exc:
                if exc.http_status != 200:
                    raise
                body = refusal(exc)
            IdempotentRequest.objects.create(
                **key, request_hash=request_hash, response_body=without_secrets(body)
            )
    except IntegrityError:
        # A concurrent twin committed first: answer as its replay.
        existing = IdempotentRequest.objects.filter(**key).first()
        if existing is None:
            raise
        return _replay(existing, request_hash), True
    return body, False


def _replay(stored: IdempotentRequest, request_hash: str) -> dict[str, Any]:
    if stored.request_hash != request_hash:
        raise ApplicationError(results.DUPLICATE_TRANSACTION)
    return dict(stored.response_body)


def without_secrets(body: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: without_secrets(value) if isinstance(value, Mapping) else value
        for key, value in body.items()
        if key not in SECRET_KEYS
    }
