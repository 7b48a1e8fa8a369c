"""At most once per reference (merchantTransactionId, requestorReference), with one replay path.

The same merchantTransactionId with the same parameters replays the stored answer (header
`Idempotent-Replayed: true`, fresh buildNumber, timestamp and ndc); with other parameters it is
refused with 800.110.100. "Same parameters" is a SHA-256 fingerprint of the validated values.

Two kinds of record claim a reference, each by a unique constraint so that concurrent twins
cannot both win:
- an operation's own row when it has one: a payment (unique per merchant and reference) is
  claimed before the network is asked, so the network is never asked twice (payments.services);
- otherwise an `IdempotentRequest` (unique per entity, operation and reference), written in the
  transaction that performs the operation (`run_once`, for the management operations).
Whatever keeps the record, one loop runs or replays (`once`), one comparison decides a replay
(`replay`), one function makes the fingerprint (`fingerprint`), and every view answers through
`answer`.

Refusals that are answers (HTTP 200 family) are stored and replayed like successes; 4xx errors
write nothing, so the reference stays free.
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar

from django.db import IntegrityError, transaction

from . import cards, results
from .build import build_number
from .context import get_ndc
from .envelope import timestamp
from .errors import ApplicationError
from .models import IdempotentRequest

# Keys never stored: a replayed create does not show merchant.token again.
SECRET_KEYS = frozenset({"token"})
REPLAYED = {"Idempotent-Replayed": "true"}
# Card data never goes into a fingerprint in clear: the number counts by its keyed fingerprint
# (the same card is the same parameter), the security code not at all (it is never kept in any
# form, and a retry may not send it again).
CARD_NUMBER, CARD_CVV = "card.number", "card.cvv"

Run = TypeVar("Run")
Replayed = TypeVar("Replayed")
Stored = TypeVar("Stored")


@dataclass(frozen=True)
class Outcome:
    """An operation's answer, and whether it is a replay of a stored one."""

    body: dict[str, Any]
    replayed: bool = False


def fingerprint(data: Mapping[str, Any]) -> str:
    """What makes two requests "the same parameters": the SHA-256 of the values as canonical
    JSON, with `card.number` replaced by its keyed fingerprint and `card.cvv` left out."""
    safe = {k: v for k, v in data.items() if k not in (CARD_NUMBER, CARD_CVV)}
    if CARD_NUMBER in data:
        safe["card.fingerprint"] = cards.fingerprint(data[CARD_NUMBER])
    canonical = json.dumps(safe, sort_keys=True, default=_json_default, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _json_default(value: Any) -> str:
    if isinstance(value, date | Decimal):
        return str(value)
    raise TypeError(type(value))


def replay(
    *,
    stored_hash: str,
    stored_body: Mapping[str, Any],
    request_hash: str,
    refusal: ApplicationError | None = None,
) -> Outcome:
    """The stored answer for a request with the same fingerprint; for other parameters
    `refusal` is raised (800.110.100 unless the operation names its own code)."""
    if stored_hash != request_hash:
        raise refusal or ApplicationError(results.DUPLICATE_TRANSACTION)
    return Outcome(dict(stored_body), replayed=True)


def once(
    *,
    find: Callable[[], Stored | None],
    run: Callable[[], Run],
    replayed: Callable[[Stored], Replayed],
    durable: bool = False,
    look_first: bool = True,
    look_after_refusal: bool = False,
) -> Run | Replayed:
    """At most once per reference, whatever record claims it: `find` returns the record of the
    reference (or None), `run` performs in one transaction whose write claims the reference by
    a unique constraint, and `replayed` answers from a found record (through `replay`).

    A known reference replays without running. A concurrent twin that committed first makes
    `run`'s write fail on the constraint: the transaction rolls back and the twin's record is
    replayed. An integrity error with no record behind it (another constraint) surfaces.
    `look_first=False` skips the first look-up where the claim is cheap to try (a payment: one
    insert), so the usual new reference costs no extra query. `look_after_refusal` (with it):
    `run` may refuse (an ApplicationError) before it reaches its claiming write, which a replay
    must not answer (the card has changed since, say): a refused run looks the reference up and
    replays what it finds, and only a new reference gets the refusal."""
    if look_first:
        existing = find()
        if existing is not None:
            return replayed(existing)
    try:
        with transaction.atomic(durable=durable):
            return run()
    except IntegrityError:
        existing = find()
        if existing is None:
            raise
        return replayed(existing)
    except ApplicationError:
        if not look_after_refusal:
            raise
        existing = find()
        if existing is None:
            raise
        return replayed(existing)


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

    def run() -> Outcome:
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
        return Outcome(body)

    def replayed(stored: IdempotentRequest) -> Outcome:
        return replay(
            stored_hash=stored.request_hash,
            stored_body=stored.response_body,
            request_hash=request_hash,
        )

    return once(
        find=lambda: IdempotentRequest.objects.filter(**key).first(), run=run, replayed=replayed
    )


def without_secrets(body: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: without_secrets(value) if isinstance(value, Mapping) else value
        for key, value in body.items()
        if key not in SECRET_KEYS
    }
