"""Produce an entity's reconciliation file of a day, streamed from the database into the
reconciliation storage.

The detail lines come formatted from SQL (recon.sql) through a server-side cursor on
PostgreSQL (a plain cursor steps through the rows on SQLite), a chunk at a time, so memory stays
flat whatever the day holds. The file is written to a temporary file while its SHA-256 is
computed, then saved through Django's storage API (STORAGES["recon"]: a folder by default, an
S3-compatible bucket by setting) under `YYYY/MM/DD/<name>`, replacing an earlier copy; a
ReconFile row records its name, size, record count and checksum. Regenerating a day gives the
same bytes as long as the platform's records of the day are unchanged.
"""

import hashlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.db import connection, transaction

from merchants.models import Entity, EntityType, Merchant

from ..models import ReconFile
from ..settlement import business_day_bounds
from .layout import HEADER, RECORD_LENGTH, TRAILER, format_record
from .sql import Dialect, chargebacks_query, payments_query
from .write import file_name

CHUNK = 10_000


class ReconError(RuntimeError):
    """A line the database formatted does not fit the layout (not 257 characters)."""


@dataclass(frozen=True)
class Produced:
    record: ReconFile
    path: str


def storage():  # type: ignore[no-untyped-def]
    return storages["recon"]


def merchants_of(entity: Entity) -> list[int]:
    """The merchants an entity's file covers: its own, or a participator's."""
    if entity.entity_type == EntityType.PARTICIPATOR:
        found = Merchant.objects.filter(entity__owner=entity)
    else:
        found = Merchant.objects.filter(entity=entity)
    return list(found.order_by("pk").values_list("pk", flat=True))


def _rows(sql: str, params: list[Any]) -> Iterator[str]:
    """The single column of every row, fetched CHUNK rows at a time (a named, server-side
    cursor on PostgreSQL)."""
    connection.ensure_connection()
    if connection.vendor == "postgresql":
        with transaction.atomic():
            raw = connection.connection.cursor(name="recon_file", withhold=False)  # type: ignore[union-attr]
            raw.itersize = CHUNK
            try:
                raw.execute(sql, params)
                while chunk := raw.fetchmany(CHUNK):
                    for (line,) in chunk:
                        yield line
            finally:
                raw.close()
        return
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(CHUNK):
            for (line,) in chunk:
                yield line


def detail_lines(entity: Entity, day: date, *, production: bool) -> Iterator[str]:
    """The detail lines of an entity's day (257 characters each, no newline), in file order."""
    merchants = merchants_of(entity)
    if not merchants:
        return
    dialect = Dialect(connection.vendor)
    base = settings.EXCHANGE_BASE_CURRENCY
    start, end = business_day_bounds(day)
    adapt = connection.ops.adapt_datetimefield_value
    yield from _rows(
        payments_query(
            dialect, merchants=len(merchants), production=production, base_currency=base
        ),
        [*merchants, adapt(start), adapt(end)],
    )
    for reversals in (False, True):
        yield from _rows(
            chargebacks_query(
                dialect, merchants=len(merchants), reversals=reversals, base_currency=base
            ),
            [*merchants, connection.ops.adapt_datefield_value(day)],
        )


def count_details(entity: Entity, day: date, *, production: bool) -> int:
    """How many detail records the file will have (for a progress bar's total)."""
    from payments.models import Payment

    from ..models import Chargeback

    merchants = merchants_of(entity)
    start, end = business_day_bounds(day)
    payments = Payment.objects.filter(
        merchant__in=merchants, created_at__gte=start, created_at__lt=end
    )
    if production:
        payments = payments.filter(test_mode=False)
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
) -> Produced:
    """Write the entity's file of `day` to the reconciliation storage and record it."""
    production = settings.RECON_PRODUCTION if production is None else production
    name = file_name(entity.entity_id, day, production=production)
    path = f"{day:%Y/%m/%d}/{name}"
    digest = hashlib.sha256()
    settlement_date = f"{day:%Y%m%d}"
    count = 0
    with tempfile.TemporaryFile() as spool:

        def put(data: bytes) -> None:
            digest.update(data)
            spool.write(data)

        put(
            format_record(
                HEADER, {"entity_id": entity.entity_id, "settlement_date": settlement_date}
            )
        )
        chunk: list[str] = []
        for line in detail_lines(entity, day, production=production):
            if len(line) != RECORD_LENGTH:
                raise ReconError(f"detail record {count + 1}: {len(line)} characters, not 257")
            chunk.append(line)
            if len(chunk) == CHUNK:
                put(("\n".join(chunk) + "\n").encode("ascii", "replace"))
                count += len(chunk)
                chunk.clear()
                if progress:
                    progress(CHUNK)
        if chunk:
            put(("\n".join(chunk) + "\n").encode("ascii", "replace"))
            count += len(chunk)
            if progress:
                progress(len(chunk))
        put(
            format_record(
                TRAILER,
                {
                    "entity_id": entity.entity_id,
                    "settlement_date": settlement_date,
                    "total": str(count),
                },
            )
        )
        size = spool.tell()
        spool.seek(0)
        files = storage()
        if files.exists(path):
            files.delete(path)
        saved = files.save(path, File(spool, name=name))
    record, _ = ReconFile.objects.update_or_create(
        entity=entity,
        day=day,
        production=production,
        defaults={
            "name": name,
            "path": saved,
            "records": count,
            "size": size,
            "sha256": digest.hexdigest(),
        },
    )
    return Produced(record, saved)


def entities_of_day(day: date) -> list[Entity]:
    """Every entity with a file to produce for `day`: the merchant entities that had payments
    or chargebacks, and the participators they belong to."""
    from payments.models import Payment

    from ..models import Chargeback

    start, end = business_day_bounds(day)
    merchants = set(
        Payment.objects.filter(created_at__gte=start, created_at__lt=end)
        .values_list("merchant_id", flat=True)
        .distinct()
    )
    merchants |= set(
        Chargeback.objects.filter(received_on=day).values_list("merchant_id", flat=True)
    )
    merchants |= set(
        Chargeback.objects.filter(reversed_on=day).values_list("merchant_id", flat=True)
    )
    entities = Entity.objects.filter(merchant__pk__in=merchants)
    owners = Entity.objects.filter(owned_entities__merchant__pk__in=merchants)
    return list((entities | owners).distinct().order_by("entity_id"))
