"""At most once per merchantTransactionId, with one replay path.

The same merchantTransactionId with the same parameters replays the stored answer (header
`Idempotent-Replayed: true`, fresh buildNumber, timestamp and ndc); with other parameters it is
refused with 800.110.100. "Same parameters" is a SHA-256 fingerprint of the validated values.

Two kinds of record claim a merchantTransactionId, each by a unique constraint so that
concurrent twins cannot both win:
- an operation's own row when it has one: a payment (unique per merchant and reference) is
  claimed before the network is asked, so the network is never asked twice (payments.services);
- otherwise an `IdempotentRequest` (unique per entity, operation and reference), written in the
  transaction that performs the operation (`run_once`, for the management operations).
Both replay through `replay`, and every view answers through `answer`.

Refusals that are answers (HTTP 200 family) are stored and replayed like successes; 4xx errors
write nothing, so the reference stays free.
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction

from . import results
from .build import build_number
from .context import get_ndc
from .envelope import timestamp
from .errors import ApplicationError
from .models import IdempotentRequest

# Keys never stored: a replayed create does not show merchant.token again.
SECRET_KEYS = frozenset({"token"})
REPLAYED = {"Idempotent-Replayed": "true"}


@dataclass(frozen=True)
class Outcome:
    """An operation's answer, and whether it is a replay of a stored one."""

    body: dict[str, Any]
    replayed: bool = False


def fingerprint(data: Mapping[str, Any]) -> str:
    canonical = json.dumps(data, sort_keys=True, default=_json_default, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _json_default(value: Any) -> str:
    if isinstance(value, date | Decimal):
        return str(value)
    raise TypeError(type(value))


def replay(*, stored_hash: str, stored_body: Mapping[str, Any], request_hash: str) -> Outcome:
    """The stored answer for a request with the same fingerprint; 800.110.100 otherwise."""
    if stored_hash != request_hash:
        raise ApplicationError(results.DUPLICATE_TRANSACTION)
    return Outcome(dict(stored_body), replayed=True)


def answer(outcome: Outcome) -> tuple[dict[str, Any], dict[str, str]]:
    """The body and headers of an answer: a replay gets fresh support fields and its header."""
    if not outcome.replayed:
        return outcome.body, {}
    body = {
        **outcome.body,
        "buildNumber": build_number(),
        "timestamp": timestamp(),
        "ndc": get_ndc(),
    }
    return body, dict(REPLAYED)


def run_once(
    *,
    entity_id: str,
    operation: str,
    merchant_transaction_id: str,
    request_hash: str,
    perform: Callable[[], dict[str, Any]],
    refusal: Callable[[ApplicationError], dict[str, Any]],
) -> Outcome:
    """Perform with an IdempotentRequest record. `perform` runs inside a transaction with it."""
    key = {
        "entity_id": entity_id,
        "operation": operation,
        "merchant_transaction_id": merchant_transaction_id,
    }
    existing = IdempotentRequest.objects.filter(**key).first()
    if existing is not None:
        return _replay(existing, request_hash)
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
        return _replay(existing, request_hash)
    return Outcome(body)


def _replay(stored: IdempotentRequest, request_hash: str) -> Outcome:
    return replay(
        stored_hash=stored.request_hash, stored_body=stored.response_body, request_hash=request_hash
    )


def without_secrets(body: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: without_secrets(value) if isinstance(value, Mapping) else value
        for key, value in body.items()
        if key not in SECRET_KEYS
    }
