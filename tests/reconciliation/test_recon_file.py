"""The daily file produced from the database: read back by slicing the specification's
positions (written out here, not taken from the layout) it equals the payments; EUR, JPY and
BHD amounts in minor units; a participator's file covers its merchants; regenerating gives the
same bytes; test-mode payments stay out of production files; the commands, the beat task and
the admin."""

import hashlib
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from unittest import mock

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.utils import timezone

from payments.models import Payment
from reconciliation import services
from reconciliation.models import Chargeback, ReconFile, SettlementItem, SettlementRun
from reconciliation.recon.generate import detail_lines, produce, storage
from reconciliation.recon.parse import read
from reconciliation.settlement import settlement_run
from reconciliation.tasks import recon_files_last_day
from tests.conftest import SpecClient, code
from tests.factories import MerchantFactory
from tests.payments.conftest import Payer

pytestmark = pytest.mark.django_db

# The specification's detail positions (1-based, inclusive), copied from its table.
SPEC = {
    "filler": (1, 1),
    "mtid": (2, 33),
    "id": (34, 65),
    "type": (66, 85),
    "pan": (86, 104),
    "amount": (105, 116),
    "recon_amount": (117, 128),
    "currency": (129, 131),
    "recon_currency": (132, 134),
    "when": (135, 146),
    "merchant": (147, 161),
    "terminal": (162, 169),
    "status": (170, 180),
    "approval": (181, 186),
    "arn": (187, 209),
    "network": (210, 224),
    "eci": (225, 227),
    "advice": (228, 230),
    "stan": (231, 236),
    "entry": (237, 238),
    "condition": (239, 240),
    "reason": (241, 244),
    "cb_ref": (245, 254),
    "product": (255, 257),
}
NUMERIC = {"EUR": "978", "USD": "840", "JPY": "392", "BHD": "048"}


def sliced(line: bytes) -> dict[str, str]:
    text = line.decode("ascii")
    return {name: text[start - 1 : end] for name, (start, end) in SPEC.items()}


def file_bytes(produced) -> bytes:
    with storage().open(produced.path, "rb") as handle:
        return handle.read()


def test_a_file_read_back_by_slicing_equals_the_payments(merchant, day_of_payments):
    run_day = day_of_payments
    settlement_run(merchant=merchant, day=run_day)
    produced = produce(merchant.entity, run_day, production=True)
    content = file_bytes(produced)
    lines = content.split(b"\n")
    assert lines[-1] == b"" and all(len(line) == 257 for line in lines[:-1])
    header, *details, trailer = lines[:-1]
    assert header[:32] == b"HRECONDT_300001".ljust(32)
    assert header[32:40] == merchant.entity.entity_id.encode().ljust(8)
    assert header[40:48] == f"{run_day:%Y%m%d}".encode() and header[48:] == b" " * 209
    assert trailer[:32] == b"TRECON-D-T-30001".ljust(32)
    assert trailer[48:60] == f"{len(details):012d}".encode() and trailer[60:] == b" " * 197
    payments = list(Payment.objects.filter(merchant=merchant).order_by("created_at", "pk"))
    assert len(details) == len(payments) == 10
    settled = {item.payment_id: item for item in SettlementItem.objects.all()}
    for line, payment in zip(details, payments, strict=True):
        record = sliced(line)
        item = settled.get(payment.pk)
        assert record["filler"] == "D"
        assert record["mtid"] == payment.merchant_transaction_id.ljust(32)
        assert record["id"] == payment.pk
        assert record["type"] == payment.payment_type.ljust(20)
        assert record["pan"] == (payment.card_bin + payment.card_last4).ljust(19)
        assert int(record["amount"]) == int((payment.amount or 0) * 100)
        assert int(record["recon_amount"]) == (int(item.amount * 100) if item else 0)
        assert record["currency"] == NUMERIC[payment.currency]
        assert record["recon_currency"] == "978"
        assert record["when"] == f"{payment.created_at.astimezone(UTC):%y%m%d%H%M%S}"
        assert record["merchant"] == merchant.merchant_id.ljust(15)
        assert record["terminal"] == " " * 8
        assert record["status"] == payment.result_code
        assert record["approval"] == payment.auth_code.ljust(6)
        assert record["arn"] == payment.acquirer_ref_no.ljust(23)
        assert record["network"] == payment.network_reference[:15].ljust(15)
        assert record["eci"] == "000"  # no 3-D Secure: zero-filled
        assert record["stan"] == payment.stan.rjust(6, "0")
        assert record["entry"] == payment.entry_mode.ljust(2)
        assert record["condition"] == payment.condition_code.ljust(2)
        assert record["reason"] + record["cb_ref"] + record["product"] == " " * 17
    assert read_file(produced).valid


def read_file(produced):
    return read(storage().path(produced.path))


@pytest.mark.parametrize(
    ("currency", "amount", "minor", "converted"),
    [
        ("EUR", "12.34", "000000001234", "000000001234"),
        ("JPY", "1500.00", "000000001500", "000000000900"),
        ("BHD", "12.50", "000000012500", "000000003000"),
    ],
)
def test_amounts_in_each_currencys_minor_units(
    merchant, payer, plan, currency, amount, minor, converted
):
    today = timezone.now().date()
    for code_, rate in (("JPY", "0.00600"), ("BHD", "2.40000")):
        services.rate_create(
            currency=code_,
            effective_date=today - timedelta(days=1),
            buying=Decimal(rate),
            selling=Decimal(rate),
            actor="t",
        )
    assert code(payer.pay("DB", amount, currency=currency)) == "000.000.000"
    [line] = detail_lines(merchant.entity, today, production=True)
    assert len(line) == 257  # before settlement: a reconciliation amount of 0
    call_command("settle", "--date", f"{today:%Y-%m-%d}", "--before-cutoff", stdout=io.StringIO())
    [line] = detail_lines(merchant.entity, today, production=True)
    record = sliced(line.encode())
    assert (record["amount"], record["currency"]) == (minor, NUMERIC[currency])
    assert (record["recon_amount"], record["recon_currency"]) == (converted, "978")


def test_a_participators_file_covers_its_merchants(participator, merchant, payer, plan):
    other = MerchantFactory(participator=participator)
    payer.pay("DB", "10.00")
    Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other).pay(
        "DB", "20.00"
    )
    today = timezone.now().date()
    produced = produce(participator, today, production=True)
    assert produced.record.name == f"RECONDTP{participator.entity_id}{today:%Y%m%d}01"
    assert produced.record.records == 2
    merchants = {
        sliced(line)["merchant"].strip() for line in file_bytes(produced).split(b"\n")[1:3]
    }
    assert merchants == {merchant.merchant_id, other.merchant_id}
    own = produce(merchant.entity, today, production=True)
    assert own.record.records == 1


def test_regenerating_a_day_gives_the_same_bytes(merchant, day_of_payments):
    first = produce(merchant.entity, day_of_payments, production=True)
    before = file_bytes(first)
    again = produce(merchant.entity, day_of_payments, production=True)
    assert file_bytes(again) == before and again.path == first.path
    assert ReconFile.objects.count() == 1
    assert again.record.sha256 == hashlib.sha256(before).hexdigest() == first.record.sha256
    assert again.record.size == len(before)


def test_test_mode_payments_stay_out_of_production_files(merchant, payer, plan):
    paid = payer.pay("DB", "10.00").json()["id"]
    payer.pay("DB", "11.00")
    Payment.objects.filter(pk=paid).update(test_mode=True)
    today = timezone.now().date()
    production = produce(merchant.entity, today, production=True)
    test = produce(merchant.entity, today, production=False)
    assert production.record.name.startswith("RECONDTP") and production.record.records == 1
    assert test.record.name.startswith("RECONDTT") and test.record.records == 2


def test_chargebacks_and_their_reversals_are_detail_records(merchant, day_of_payments):
    payment = Payment.objects.filter(payment_type="DB").order_by("created_at", "pk").first()
    chargeback = services.chargeback_record(
        payment_ref=payment.pk,
        reason_code="4837",
        amount=Decimal("40.00"),
        currency="EUR",
        received_on=day_of_payments,
        actor="t",
        reference="CB12345678",
    )
    services.chargeback_reverse(chargeback_id=chargeback.pk, reversed_on=day_of_payments, actor="t")
    settlement_run(merchant=merchant, day=day_of_payments)
    *_, received, won = [
        sliced(line.encode())
        for line in detail_lines(merchant.entity, day_of_payments, production=True)
    ]
    assert received["type"].strip() == "CHARGEBACK" and won["type"].strip() == "CHARGEBACK REVERSAL"
    assert received["id"] == payment.pk and received["reason"] == "4837"
    assert received["cb_ref"] == "CB12345678" and received["product"] == "   "
    assert received["amount"] == received["recon_amount"] == "000000004000"
    assert received["when"] == f"{day_of_payments:%y%m%d}000000"
    assert Chargeback.objects.get().settlement_amount == Decimal("40.00")


def test_the_command_shows_progress_and_prints_the_path(merchant, day_of_payments):
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "recon_file",
        "--entity",
        merchant.entity.entity_id,
        "--date",
        f"{day_of_payments:%Y-%m-%d}",
        "--production",
        "--before-cutoff",  # the payments' day is today
        stdout=out,
        stderr=err,
    )
    path = out.getvalue().strip().splitlines()[-1]
    assert path.endswith(f"RECONDTP{merchant.entity.entity_id}{day_of_payments:%Y%m%d}01")
    assert read(path).valid and read(path).details == 10
    assert "10/10" in err.getvalue() and "10 detail records" in err.getvalue()
    assert SettlementRun.objects.filter(merchant=merchant, day=day_of_payments).exists()
    with pytest.raises(CommandError, match="has not ended"):
        call_command(
            "recon_file", "--entity", merchant.entity.entity_id, "--date", f"{day_of_payments}"
        )
    with pytest.raises(CommandError, match="no entity"):
        call_command("recon_file", "--entity", "NOBODY00", "--date", "2026-11-24")
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("recon_file", "--entity", merchant.entity.entity_id, "--date", "24.11.2026")


def test_recon_match_lists_what_differs(merchant, day_of_payments, tmp_path):
    produced = produce(merchant.entity, day_of_payments, production=True)
    path = storage().path(produced.path)
    out = io.StringIO()
    call_command("recon_match", path, stdout=out)
    assert "agrees with the platform" in out.getvalue()
    with open(path, "rb") as handle:
        header, first, second, *rest = handle.read().split(b"\n")
    changed = first[:104] + b"000000009999" + first[116:]
    trailer = rest[-2]
    forged = tmp_path / produced.record.name
    count = f"{len(rest) - 1:012d}".encode()
    forged.write_bytes(
        b"\n".join([header, changed, *rest[:-2], trailer[:48] + count + trailer[60:], b""])
    )
    out = io.StringIO()
    with pytest.raises(CommandError, match="2 difference"):
        call_command("recon_match", str(forged), stdout=out)
    report = out.getvalue()
    first_id = sliced(first)["id"]
    second_id = sliced(second)["id"]
    assert f"differs: DB {first_id}: Transaction Amount (file '000000009999'" in report
    assert (
        f"on the platform, not in the file: {sliced(second)['type'].strip()} {second_id}" in report
    )


@pytest.fixture
def eager():
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


def test_the_beat_task_produces_each_entitys_file_once(
    merchant, participator, day_of_payments, eager
):
    tomorrow = timezone.now() + timedelta(days=1)  # the payments' day has ended
    with mock.patch("reconciliation.tasks.timezone.now", return_value=tomorrow):
        assert recon_files_last_day() == 2  # the merchant's entity and its participator
        assert recon_files_last_day() == 0
    names = set(ReconFile.objects.values_list("name", flat=True))
    assert {n[8:16] for n in names} == {merchant.entity.entity_id, participator.entity_id}
    assert SettlementRun.objects.filter(merchant=merchant, day=day_of_payments).exists()


def test_a_file_read_before_the_cut_off_is_a_preview_whenever_it_is_saved(
    merchant, day_of_payments, eager
):
    """The file's moment is when its data was read (before the settlement it carries), not when
    its row was saved: a run that began just before the cut-off and ended after it is a preview,
    and beat makes the day's file again."""
    from core.business_day import business_day_bounds

    ended = business_day_bounds(day_of_payments)[1]
    read = produce(merchant.entity, day_of_payments, as_of=ended - timedelta(seconds=1)).record
    assert read.preview and read.generated_at < ended
    after = ended + timedelta(hours=1)
    with mock.patch("reconciliation.tasks.timezone.now", return_value=after):
        assert recon_files_last_day() >= 1  # made again, not taken for the day's file
    again = ReconFile.objects.get(pk=read.pk)
    assert not again.preview and again.generated_at == after


def test_staff_download_files_and_produce_them_again(admin_client, merchant, day_of_payments):
    produced = produce(merchant.entity, day_of_payments, production=True)
    listing = admin_client.get("/admin/reconciliation/reconfile/")
    assert produced.record.name in listing.content.decode()
    download = admin_client.get(f"/admin/reconciliation/reconfile/{produced.record.pk}/download/")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == file_bytes(produced)
    assert produced.record.name in download["Content-Disposition"]
    response = admin_client.post(
        "/admin/reconciliation/reconfile/",
        {"action": "produce_again", "_selected_action": [produced.record.pk]},
        follow=True,
    )
    assert "Produced again" in response.content.decode()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="server-side cursors: PostgreSQL")
def test_postgresql_streams_through_a_server_side_cursor(merchant, day_of_payments):
    lines = detail_lines(merchant.entity, day_of_payments, production=True)
    next(lines)
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_cursors")
        assert ("recon_file",) in cursor.fetchall()
    assert len(list(lines)) == 9


@pytest.mark.skipif(connection.vendor != "postgresql", reason="parallel spans: PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_parallel_spans_give_the_same_bytes(settings, participator):
    """Committed rows (the workers' connections see only those): the day fetched in three spans
    on three connections is the file fetched in one."""
    merchant = MerchantFactory(participator=participator)
    payer = Payer(
        SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"), merchant
    )
    for amount in ("1.00", "2.00", "3.00", "4.00", "5.00"):
        assert code(payer.pay("DB", amount)) == "000.000.000"
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    for n, payment in enumerate(Payment.objects.order_by("created_at")):
        Payment.objects.filter(pk=payment.pk).update(created_at=start + timedelta(hours=5 * n))
    today = start.date()
    settings.RECON_FILE_WORKERS = 1
    one = file_bytes(produce(merchant.entity, today, production=True))
    settings.RECON_FILE_WORKERS = 3
    three = file_bytes(produce(merchant.entity, today, production=True))
    assert three == one and one.count(b"\n") == 7


def test_any_django_storage_keeps_the_files(settings, admin_client, merchant, day_of_payments):
    """Only the storage API is used: an in-memory storage (as a bucket would) keeps the file,
    the command prints its name there, and staff download it."""
    settings.STORAGES = {
        **settings.STORAGES,
        "recon": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    out = io.StringIO()
    call_command(
        "recon_file",
        *("--entity", merchant.entity.entity_id, "--date", f"{day_of_payments:%Y-%m-%d}"),
        "--test",
        "--before-cutoff",
        stdout=out,
        stderr=io.StringIO(),
    )
    name = out.getvalue().strip().splitlines()[-1]
    day, entity = day_of_payments, merchant.entity.entity_id
    assert name == f"{day:%Y/%m/%d}/RECONDTT{entity}{day:%Y%m%d}01"
    record = ReconFile.objects.get()
    download = admin_client.get(f"/admin/reconciliation/reconfile/{record.pk}/download/")
    content = b"".join(download.streaming_content)
    assert len(content) == 12 * 258 and hashlib.sha256(content).hexdigest() == record.sha256


def test_a_merchant_that_cannot_be_settled_stops_nobody(merchant, participator, payer, plan):
    """A currency without an exchange rate: that merchant is named and left unsettled, the
    others are settled, and the file is made (its reconciliation amounts 0)."""
    other = MerchantFactory(participator=participator)
    Payer(SpecClient(other.entity.plain_token, other.entity.entity_id, "MERCHANT"), other).pay(
        "DB", "20.00"
    )
    assert code(payer.pay("DB", "1500.00", currency="JPY")) == "000.000.000"  # no JPY rate
    today = timezone.now().date()
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 merchant"):
        call_command("settle", "--date", f"{today}", "--before-cutoff", stdout=out, stderr=err)
    assert f"{merchant.merchant_id}: not settled: no exchange rate" in err.getvalue()
    assert SettlementRun.objects.get().merchant == other
    err = io.StringIO()
    call_command(
        "recon_file",
        *("--entity", participator.entity_id, "--date", f"{today}", "--before-cutoff"),
        stdout=io.StringIO(),
        stderr=err,
    )
    assert f"{merchant.merchant_id}: not settled (no exchange rate" in err.getvalue()
    assert ReconFile.objects.get().records == 2


def test_recon_match_counts_records_that_share_an_id(merchant, day_of_payments, tmp_path):
    """Two chargebacks of one payment match; a record twice in the file is one too many; a file
    under another name needs --production or --test."""
    payment = Payment.objects.filter(payment_type="DB").order_by("created_at", "pk").first()
    for reference in ("CB00000001", "CB00000002"):
        services.chargeback_record(
            payment_ref=payment.pk,
            reason_code="4837",
            amount=Decimal("10.00"),
            currency="EUR",
            received_on=day_of_payments,
            actor="t",
            reference=reference,
        )
    produced = produce(merchant.entity, day_of_payments, production=True)
    path = storage().path(produced.path)
    call_command("recon_match", path, stdout=io.StringIO())  # agrees
    with open(path, "rb") as handle:
        header, first, *rest = handle.read().split(b"\n")
    trailer = rest[-2]
    count = f"{len(rest) - 1 + 1:012d}".encode()
    doubled = tmp_path / produced.record.name
    doubled.write_bytes(
        b"\n".join([header, first, first, *rest[:-2], trailer[:48] + count + trailer[60:], b""])
    )
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 difference"):
        call_command("recon_match", str(doubled), stdout=out)
    assert f"in the file, not on the platform: DB {sliced(first)['id']}" in out.getvalue()
    renamed = tmp_path / "recon.txt"
    renamed.write_bytes(open(path, "rb").read())  # noqa: SIM115
    with pytest.raises(CommandError, match="--production or --test"):
        call_command("recon_match", str(renamed), stdout=io.StringIO())
    call_command("recon_match", str(renamed), "--production", stdout=io.StringIO())
    with pytest.raises(CommandError, match="no such file"):
        call_command("recon_match", str(tmp_path / "missing"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("recon_validate", str(tmp_path / "missing"))


# --- --date yesterday and today (issue 23) ------------------------------------------------------

# 20:00 UTC on 24 November is 09:00 on the 25th in Auckland (NZDT, UTC+13): the settlement time
# zone's dates, not UTC's, name the days.
NOW = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)


@pytest.fixture
def auckland(settings):  # type: ignore[no-untyped-def]
    settings.SETTLEMENT_TIME_ZONE = "Pacific/Auckland"
    settings.SETTLEMENT_CUTOFF = "00:00"
    with mock.patch("reconciliation.management.commands.recon_file.timezone.now", return_value=NOW):
        yield


def test_date_yesterday_produces_the_previous_days_file(merchant, auckland):
    out, err = io.StringIO(), io.StringIO()
    entity = merchant.entity.entity_id

    call_command("recon_file", "--entity", entity, "--date", "yesterday", stdout=out, stderr=err)

    path = out.getvalue().strip().splitlines()[-1]
    assert path.endswith(f"{entity}2026112401")  # the 24th: yesterday in Auckland
    assert read(path).valid
    assert ReconFile.objects.get(entity=merchant.entity).day == date(2026, 11, 24)


def test_date_today_is_refused_with_the_clear_error_naming_yesterday(merchant, auckland):
    entity = merchant.entity.entity_id

    with pytest.raises(CommandError) as refused:
        call_command("recon_file", "--entity", entity, "--date", "today")

    message = str(refused.value)
    assert "the business day 2026-11-25 has not ended" in message
    assert "2026-11-26 00:00 NZDT" in message  # its cut-off, in the settlement time zone
    assert "--date yesterday" in message
    assert not ReconFile.objects.exists()


def test_the_help_says_how_to_produce_the_previous_days_file():
    from reconciliation.management.commands.recon_file import Command

    text = Command().create_parser("manage.py", "recon_file").format_help()
    assert "--date yesterday" in " ".join(text.split())
    page = (settings.BASE_DIR / "docs" / "recon-file.md").read_text()
    assert "manage.py recon_file --entity 10000001 --date yesterday" in page
