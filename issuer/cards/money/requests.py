"""What every money operation is given, and its idempotency.

A money request is named by its requestor (`client_id`) and its `requestorReference`, and
carries the hash of its body: the same reference and body answer the stored answer (replay,
moving nothing again), another body with the same reference is refused (800.110.110), a new
reference runs the operation in one transaction, which writes its CardTransaction. Two requests
racing on one reference meet at the transaction's unique constraint: the loser answers the
winner's stored answer.
"""

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from core import results as core_results
from core.errors import ApplicationError

from ... import results
from ..models import CardTransaction, Region

# What a money operation answers: its result, the answer's fields, the transaction's id.
Answer = tuple[core_results.Result, dict[str, Any], str | None]


@dataclass(frozen=True)
class Request:
    """What every money operation gets: the requestor, its reference and the body's hash."""

    client_id: str
    requestor_reference: str
    digest: str
    description: str = ""


@dataclass(frozen=True)
class Where:
    """Where a card pays: the merchant, its country and the channel (limits and history)."""

    channel: str = ""
    country: str = ""
    merchant_name: str = ""
    mcc: str = ""

    @property
    def region(self) -> str:
        if not self.country or self.country == settings.ISSUER_COUNTRY:
            return Region.DOMESTIC
        return Region.OVERSEAS


NOWHERE = Where()


def request_hash(*, fields: Mapping[str, Any]) -> str:
    """The hash of a request's body (its validated fields), canonical JSON."""
    canonical = json.dumps(
        {k: str(v) for k, v in fields.items()}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def _stored(row: CardTransaction, digest: str) -> Answer:
    if row.request_hash != digest:
        raise ApplicationError(
            results.DUPLICATE_REFERENCE,
            data={"transactionId": row.reference, "requestorReference": row.requestor_reference},
        )
    answer = row.answer
    return core_results.lookup(answer["code"]), answer["fields"], answer.get("id")


def _replay(client_id: str, reference: str, digest: str) -> Answer | None:
    row = CardTransaction.objects.filter(client_id=client_id, requestor_reference=reference).first()
    return None if row is None else _stored(row, digest)


def idempotent(
    *, client_id: str, requestor_reference: str, digest: str, run: Callable[[], Answer]
) -> Answer:
    """The same reference and body answer the stored answer; another body is refused; a new
    reference runs `run` (in one transaction, which writes the CardTransaction)."""
    stored = _replay(client_id, requestor_reference, digest)
    if stored is not None:
        return stored
    try:
        with transaction.atomic():
            return run()
    except IntegrityError:
        stored = _replay(client_id, requestor_reference, digest)
        if stored is None:  # another constraint: let it surface
            raise
        return stored


def once(*, request: Request, run: Callable[[], Answer]) -> Answer:
    """`idempotent` for a money request: its requestor, reference and body's hash."""
    return idempotent(
        client_id=request.client_id,
        requestor_reference=request.requestor_reference,
        digest=request.digest,
        run=run,
    )
