"""The acquirer's identifiers of a request to the network, assigned when the payment is claimed
(ISO 8583): the STAN (field 11), six digits from one sequence, 000001 to 999999 and round again;
and the RRN (field 37), twelve characters `YDDDhh` + the STAN: the last digit of the year, the
day of the year and the hour (UTC) of the claim. An RRN repeats only if a million payments are
claimed within one hour, or after ten years.

PostgreSQL draws the STAN from the sequence `payments_stan` (no lock: two claims never wait on
each other); SQLite, which has no sequences, from a counter row (its writes are serialized
anyway)."""

from datetime import datetime

from django.db import connection

from ..models import TraceCounter

STAN_MAX = 999999
_SQLITE_NEXT = (
    'UPDATE "payments_tracecounter" SET "value" = "value" %% %s + 1 WHERE "name" = %s'
    ' RETURNING "value"'
)


def next_stan() -> str:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT nextval('payments_stan')")
            (number,) = cursor.fetchone()
        else:
            cursor.execute(_SQLITE_NEXT, [STAN_MAX, "stan"])
            row = cursor.fetchone()
            if row is None:
                TraceCounter.objects.get_or_create(name="stan")
                cursor.execute(_SQLITE_NEXT, [STAN_MAX, "stan"])
                row = cursor.fetchone()
            (number,) = row
    return f"{number:06d}"


def retrieval_ref_no(stan: str, at: datetime) -> str:
    return f"{at.year % 10}{at.timetuple().tm_yday:03d}{at.hour:02d}{stan}"


def trace_ids(at: datetime) -> tuple[str, str]:
    """A new STAN and the RRN that goes with it, for a request claimed at `at` (UTC)."""
    stan = next_stan()
    return stan, retrieval_ref_no(stan, at)
