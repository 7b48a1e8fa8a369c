"""The acquirer's identifiers of a request to the network, assigned when the payment is claimed
(ISO 8583), whichever network answers it: the STAN (field 11), six digits from a sequence of the
claim's day (UTC, as field 7 is), 000001 to 999999 and round again; and the RRN (field 37),
twelve characters `YDDDhh` + the STAN: the last digit of the year, the day of the year and the
hour (UTC) of the claim. An RRN repeats only if a million payments are claimed within one hour,
or after ten years.

PostgreSQL draws the STAN from the day's sequence `payments_stan_YYYYMMDD` through the function
`payments_next_stan(day)` (migration 0015), which creates the sequence on the day's first claim
(under an advisory lock, so two first claims never both create it): no row is locked, two claims
never wait on each other. SQLite, which has no sequences, counts in a row of its own per day
(its writes are serialized anyway). `purge_trace_numbers` drops the days no claim can draw from
any more."""

from datetime import date, datetime, timedelta

from django.db import connection

from ..models import TraceCounter

STAN_MAX = 999999
SEQUENCE_PREFIX = "payments_stan_"
KEEP_DAYS = 2  # today's and yesterday's (a claim a moment before midnight)
_SQLITE_NEXT = (
    'UPDATE "payments_tracecounter" SET "value" = "value" %% %s + 1 WHERE "name" = %s'
    ' RETURNING "value"'
)


def day_name(day: date) -> str:
    return f"stan_{day:%Y%m%d}"


def next_stan(day: date) -> str:
    """The next STAN of `day`'s sequence."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT payments_next_stan(%s)", [f"{day:%Y%m%d}"])
            (number,) = cursor.fetchone()
        else:
            name = day_name(day)
            cursor.execute(_SQLITE_NEXT, [STAN_MAX, name])
            row = cursor.fetchone()
            if row is None:
                TraceCounter.objects.get_or_create(name=name)
                cursor.execute(_SQLITE_NEXT, [STAN_MAX, name])
                row = cursor.fetchone()
            (number,) = row
    return f"{number:06d}"


def retrieval_ref_no(stan: str, at: datetime) -> str:
    return f"{at.year % 10}{at.timetuple().tm_yday:03d}{at.hour:02d}{stan}"


def trace_ids(at: datetime) -> tuple[str, str]:
    """A new STAN and the RRN that goes with it, for a request claimed at `at` (UTC)."""
    stan = next_stan(at.date())
    return stan, retrieval_ref_no(stan, at)


def purge_trace_numbers(today: date) -> int:
    """Drop the days' sequences (or counter rows) older than KEEP_DAYS: no claim draws from
    them any more. How many went."""
    oldest = f"{today - timedelta(days=KEEP_DAYS - 1):%Y%m%d}"
    if connection.vendor != "postgresql":
        stale = TraceCounter.objects.filter(name__startswith="stan_", name__lt=f"stan_{oldest}")
        return stale.delete()[0]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'S' AND relname LIKE %s"
            " AND relname < %s AND relnamespace = current_schema()::regnamespace",
            [f"{SEQUENCE_PREFIX}%", f"{SEQUENCE_PREFIX}{oldest}"],
        )
        names = [name for (name,) in cursor.fetchall()]
        for name in names:
            cursor.execute(f'DROP SEQUENCE IF EXISTS "{name}"')  # names from pg_class only
    return len(names)
