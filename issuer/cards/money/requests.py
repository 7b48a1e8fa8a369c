"""What every money operation is given, and its idempotency.

A money request is named by its requestor (`client_id`) and its `requestorReference`, and
carries the hash of its body: the same reference and body answer the stored answer (replay,
moving nothing again), another body with the same reference is refused (800.110.110), a new
reference runs the operation in one transaction, which writes its CardTransaction. No look-up
comes first: a replay runs the operation too, meets the unique constraint at its last write (or
refuses before it) and is rolled back whole, then answers the stored answer; two requests racing
on one reference meet at the same constraint and the loser answers the winner's.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from core import idempotency
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
    """The hash of a request's body (its validated fields, as text): core's one fingerprint of
    "the same parameters" (the issuer's fields carry no card.number or card.cvv)."""
    return idempotency.fingerprint({k: str(v) for k, v in fields.items()})


def idempotent(
    *, client_id: str, requestor_reference: str, digest: str, run: Callable[[], Answer]
) -> Answer:
    """The same reference and body answer the stored answer; another body is refused
    (800.110.110); a new reference runs `run` (in one transaction, which writes the
    CardTransaction): core's one run-or-replay (core.idempotency.once)."""

    def replayed(row: CardTransaction) -> Answer:
        refusal = ApplicationError(
            results.DUPLICATE_REFERENCE,
            data={"transactionId": row.reference, "requestorReference": row.requestor_reference},
        )
        body = idempotency.replay(
            stored_hash=row.request_hash,
            stored_body=row.answer,
            request_hash=digest,
            refusal=refusal,
        ).body
        return core_results.lookup(body["code"]), body["fields"], body.get("id")

    # No look-up first: the CardTransaction's insert claims the reference (its unique
    # constraint), and a run that fails there or refuses before it looks then (a replay).
    return idempotency.once(
        find=lambda: CardTransaction.objects.filter(
            client_id=client_id, requestor_reference=requestor_reference
        ).first(),
        run=run,
        replayed=replayed,
        look_first=False,
        look_after_refusal=True,
    )


def once(*, request: Request, run: Callable[[], Answer]) -> Answer:
    """`idempotent` for a money request: its requestor, reference and body's hash."""
    return idempotent(
        client_id=request.client_id,
        requestor_reference=request.requestor_reference,
        digest=request.digest,
        run=run,
    )
