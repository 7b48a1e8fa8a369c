"""Produce an entity's reconciliation file of a day, streamed from the database into the
reconciliation storage.

The detail lines come formatted from SQL (recon.sql) through a server-side cursor on
PostgreSQL (a plain cursor steps through the rows on SQLite), a chunk at a time, so memory stays
flat whatever the day holds. On PostgreSQL the day's payments are fetched in
RECON_FILE_WORKERS spans at once, each on its own thread and connection. Each select's lines go
to a temporary file; the storage then reads the header, the parts and the trailer in order
(Chained), taking the SHA-256 and the size on the way, and saves them through Django's storage
API (STORAGES["recon"]: a folder by default, an S3-compatible bucket by setting) under
`YYYY/MM/DD/<name>`, replacing an earlier copy; a ReconFile row records its name, size, record
count and checksum. Regenerating a day gives the
same bytes as long as the platform's records of the day are unchanged.
"""

import hashlib
import io
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date, datetime
from typing import IO, Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.db import connection, transaction
from django.utils import timezone

from core.business_day import business_day_bounds
from merchants.models import Entity
from merchants.selectors import entities_of_merchants, merchant_pks_covered
from payments.selectors import payment_file_rows

from ..models import ReconFile
from ..settlement import settle_unsettled
from .layout import HEADER, RECORD_LENGTH, TRAILER, format_record
from .sql import Dialect, chargebacks_query, payments_query
from .write import file_name

CHUNK = 500


@dataclass(frozen=True)
class Query:
    sql: str
    params: list[Any]


class Chained:
    """The header, the parts and the trailer read one after the other, as the storage saves
    them (each part written once, read once); the SHA-256 and the size are taken on the way."""

    closed = False

    def __init__(self, pieces: list[IO[bytes]]) -> None:
        self.pieces = pieces
        for piece in pieces:
            piece.seek(0)
        self.digest = hashlib.sha256()
        self.size = 0

    def seekable(self) -> bool:
        return False

    def read(self, size: int = -1) -> bytes:
        out = bytearray()
        while self.pieces and (size < 0 or len(out) < size):
            block = self.pieces[0].read(-1 if size < 0 else size - len(out))
            if not block:
                self.pieces.pop(0)
            out += block
        data = bytes(out)
        self.digest.update(data)
        self.size += len(data)
        return data


class ReconError(RuntimeError):
    """A line the database formatted does not fit the layout (not 257 characters)."""


@dataclass(frozen=True)
class Produced:
    record: ReconFile
    path: str


def storage():  # type: ignore[no-untyped-def]
    return storages["recon"]


def _chunks(sql: str, params: list[Any]) -> Iterator[list[tuple[str]]]:
    """The rows of a query, CHUNK at a time: through a named (server-side) cursor on
    PostgreSQL, so the server keeps the result and the client holds one chunk; SQLite steps
    through the rows as they are fetched."""
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        with transaction.atomic():
            raw = connection.connection.cursor(name="recon_file", withhold=False)  # type: ignore[union-attr]
            raw.itersize = CHUNK
            try:
                raw.execute(sql, params)
                while chunk := raw.fetchmany(CHUNK):
                    yield chunk
            finally:
                raw.close()
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(CHUNK):
            yield chunk


def _queries(entity: Entity, day: date, *, production: bool, slices: int) -> list[Query]:
    """The selects of a day, in file order: the payments (in `slices` consecutive spans of the
    business day, which workers may fetch in parallel), then the chargebacks received and the
    chargebacks reversed."""
    merchants = merchant_pks_covered(entity=entity)
    if not merchants:
        return []
    dialect = Dialect(connection.vendor)
    base = settings.EXCHANGE_BASE_CURRENCY
    start, end = business_day_bounds(day)
    step = (end - start) / slices
    bounds = [start + step * n for n in range(slices)] + [end]
    queries = []
    for n in range(slices):
        rows, params = payment_file_rows(
            merchants=merchants, start=bounds[n], end=bounds[n + 1], production=production
        ).query.sql_with_params()
        queries.append(Query(payments_query(dialect, rows=rows, base_currency=base), [*params]))
    every, none = payment_file_rows().query.sql_with_params()
    assert not none, "every payment: a select without parameters"
    for reversals in (False, True):
        sql = chargebacks_query(
            dialect, rows=every, merchants=len(merchants), reversals=reversals, base_currency=base
        )
        queries.append(Query(sql, [*merchants, connection.ops.adapt_datefield_value(day)]))
    return queries


def detail_lines(entity: Entity, day: date, *, production: bool) -> Iterator[str]:
    """The detail lines of an entity's day (257 characters each, no newline), in file order."""
    for query in _queries(entity, day, production=production, slices=1):
        for chunk in _chunks(query.sql, query.params):
            for (line,) in chunk:
                yield line


def _write(query: Query, out: Any, progress: Callable[[int], None] | None) -> int:
    """Write a query's lines to `out`, a chunk at a time; returns how many. A chunk's bytes
    must be 258 a line: the database pads every field to its width, and characters outside
    ASCII become '?', one byte each."""
    count = 0
    for chunk in _chunks(query.sql, query.params):
        data = ("\n".join([row[0] for row in chunk]) + "\n").encode("ascii", "replace")
        if len(data) != len(chunk) * (RECORD_LENGTH + 1):
            for offset, (line,) in enumerate(chunk, start=count + 1):
                if len(line) != RECORD_LENGTH:
                    raise ReconError(f"detail record {offset}: {len(line)} characters, not 257")
        out.write(data)
        count += len(chunk)
        if progress:
            progress(len(chunk))
    return count


def _write_apart(query: Query, progress: Callable[[int], None] | None) -> tuple[int, IO[bytes]]:
    """In a worker thread (its own database connection): a query's lines into a temporary
    file of their own."""
    part = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the caller, who closes it
    try:
        return _write(query, part, progress), part
    except BaseException:
        part.close()
        raise
    finally:
        connection.close()


def count_details(entity: Entity, day: date, *, production: bool) -> int:
    """How many detail records the file will have (for a progress bar's total)."""
    from ..models import Chargeback

    merchants = merchant_pks_covered(entity=entity)
    start, end = business_day_bounds(day)
    payments = payment_file_rows(merchants=merchants, start=start, end=end, production=production)
    disputes = Chargeback.objects.filter(merchant__in=merchants)
    return (
        payments.count()
        + disputes.filter(received_on=day).count()
        + disputes.filter(reversed_on=day).count()
    )


def produce(
    entity: Entity,
    day: date,
    *,
    production: bool | None = None,
    progress: Callable[[int], None] | None = None,
    as_of: datetime | None = None,
) -> Produced:
    """Write the entity's file of `day` to the reconciliation storage and record it, with the
    moment its data was read (`as_of`, by default now, before the first read): a file whose
    moment is before its day's cut-off is a preview, whenever it is saved."""
    as_of = as_of or timezone.now()
    production = settings.RECON_PRODUCTION if production is None else production
    name = file_name(entity.entity_id, day, production=production)
    path = f"{day:%Y/%m/%d}/{name}"
    settlement_date = f"{day:%Y%m%d}"
    ends: dict[str, object] = {"entity_id": entity.entity_id, "settlement_date": settlement_date}
    workers = settings.RECON_FILE_WORKERS if connection.vendor == "postgresql" else 1
    queries = _queries(entity, day, production=production, slices=max(1, workers))
    with ExitStack() as parts:
        count = 0
        pieces: list[IO[bytes]] = []
        if workers <= 1:
            for query in queries:
                spool: IO[bytes] = parts.enter_context(tempfile.TemporaryFile())
                count += _write(query, spool, progress)
                pieces.append(spool)
        else:
            with ThreadPoolExecutor(workers, thread_name_prefix="recon") as pool:
                futures = [pool.submit(_write_apart, query, progress) for query in queries]
            failed = [f.exception() for f in futures if f.exception() is not None]
            for future in futures:
                if future.exception() is None:
                    written, part = future.result()
                    pieces.append(parts.enter_context(part))
                    count += written
            if failed:
                raise failed[0]  # type: ignore[misc]
        header = format_record(HEADER, ends)
        trailer = format_record(TRAILER, {**ends, "total": str(count)})
        content = Chained([io.BytesIO(header), *pieces, io.BytesIO(trailer)])
        files = storage()
        if files.exists(path):
            files.delete(path)
        saved = files.save(path, File(content, name=name))  # type: ignore[arg-type]
    size, sha256 = content.size, content.digest.hexdigest()
    record, _ = ReconFile.objects.update_or_create(
        entity=entity,
        day=day,
        production=production,
        defaults={
            "name": name,
            "path": saved,
            "records": count,
            "size": size,
            "sha256": sha256,
            "generated_at": as_of,
        },
    )
    return Produced(record, saved)


def recon_file_generate(
    *,
    entity: Entity,
    day: date,
    production: bool | None = None,
    settle: bool = True,
    progress: Callable[[int], None] | None = None,
    failures: list[tuple[str, str]] | None = None,
) -> Produced:
    """Settle, then file: the entity's merchants that had payments on `day` and have no final
    settlement run of it are settled first (the file carries the reconciliation amounts; one
    that cannot be settled, a currency without an exchange rate, is listed in `failures` and
    its records carry 0), then the entity's file of `day` is produced. The one way the
    `recon_file` command, beat's task, the admin and seed_demo make a day's file."""
    as_of = timezone.now()  # before the settlement the file carries
    if settle:
        settle_unsettled(merchant_pks_covered(entity=entity), day, failures)
    return produce(entity, day, production=production, progress=progress, as_of=as_of)


def entities_of_day(day: date) -> list[Entity]:
    """Every entity with a file to produce for `day`: the merchant entities that had payments
    or chargebacks, and the participators they belong to."""
    from ..models import Chargeback

    start, end = business_day_bounds(day)
    merchants = set(
        payment_file_rows(start=start, end=end).values_list("merchant_id", flat=True).distinct()
    )
    merchants |= set(
        Chargeback.objects.filter(received_on=day).values_list("merchant_id", flat=True)
    )
    merchants |= set(
        Chargeback.objects.filter(reversed_on=day).values_list("merchant_id", flat=True)
    )
    return entities_of_merchants(merchant_pks=merchants)
