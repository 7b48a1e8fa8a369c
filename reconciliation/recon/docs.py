"""docs/recon-file.md, generated from the layout (`manage.py recon_layout --write`), with a
sample file; a test fails when the page is out of date."""

from datetime import date

from .layout import RECORDS
from .write import file_name, lines

SAMPLE_DETAILS: list[dict[str, object]] = [
    {
        "merchant_transaction_id": "order000000000000000000000000042",
        "id": "8ac7a4a0817e8d2d01817f2a33a21c44",
        "type": "DB",
        "pan": "4200000000",
        "amount": "2500",
        "reconciliation_amount": "2500",
        "currency": "978",
        "reconciliation_currency": "978",
        "when": "261124101502",
        "merchant_id": "10000001",
        "terminal_id": "",
        "status": "000.000.000",
        "approval_code": "K7Q2ZP",
        "arn": "74938201938475610293847",
        "network_id": "SIM123456789012",
        "eci": "05",
        "advice_code": "",
        "stan": "604213",
        "entry_mode": "81",
        "condition_code": "59",
    }
]


def markdown() -> str:
    out = [
        "# The daily reconciliation file",
        "",
        "Generated from `reconciliation/recon/layout.py` by `.venv/bin/python manage.py "
        "recon_layout --write docs/recon-file.md`; do not edit by hand.",
        "",
        "One file per entity and day, named `RECONDT` + `P` (production) or `T` + the entity id "
        "+ `YYYYMMDD` + `01`. Every record is exactly 257 bytes of ASCII, then a newline. Text "
        "(A, AN) is left-justified and space-padded, numbers (N) right-justified and "
        "zero-filled; NS is digits or spaces. Amounts are in the currency's minor units (ISO "
        "4217 exponent: JPY 0, EUR 2, BHD 3); currencies are ISO 4217 numeric codes.",
        "",
        "Each merchant entity gets a file of its own, and each participator one covering all its "
        "merchants. The detail records are the payments of the business day in the order they "
        "were made (whatever their result: the status is the result code), then a `CHARGEBACK` "
        "record for each chargeback received that day and a `CHARGEBACK REVERSAL` record for "
        "each reversed that day (with the original payment's ids, the reason code and the "
        "chargeback reference). The Reconciliation Amount is what the day's settlement credited "
        "for the payment in the merchant's settlement currency, fees included; 0 for a payment "
        "settlement does not count. Production (`P`) files leave out payments made in connector "
        "test mode. Characters outside ASCII are written as `?`.",
        "",
        "Producing, checking and comparing files: `manage.py recon_file`, `recon_validate` and "
        "`recon_match` ([operations.md](operations.md)); the decisions behind the layout are in "
        '[decisions.md](decisions.md) ("Money out").',
        "",
        "A day's file is made once the business day has ended: at its cut-off "
        "(`SETTLEMENT_CUTOFF` in `SETTLEMENT_TIME_ZONE`; midnight by default), beat makes every "
        "entity's file within the hour. A day that has not ended (today's, until the cut-off) is "
        "refused with an error naming its cut-off. The previous day's file, by hand:",
        "",
        "```sh",
        ".venv/bin/python manage.py recon_file --entity 10000001 --date yesterday",
        "```",
        "",
        "`--date` takes `YYYY-MM-DD`, `yesterday` or `today` (dates in `SETTLEMENT_TIME_ZONE`); "
        "`--before-cutoff` makes a preview of a day that has not ended, which beat replaces once "
        "it has. The file is a production file (`RECONDTP...`, the one banks reconcile and the "
        "runbook's alert watches) where `RECON_PRODUCTION` is on, the default with "
        "`DJANGO_DEBUG=false`; the demo (`make run`) makes test files (`RECONDTT...`). "
        "`--production` or `--test` chooses either. The entity's id (`--entity`) is its "
        "8-character entityId: Admin › Merchants › Entities, or the merchant's page.",
        "",
    ]
    for record in RECORDS:
        out += [
            f"## {record.name} record",
            "",
            "| # | Position | Field | Format | Value |",
            "|---|---|---|---|---|",
        ]
        for item in record.fields:
            out.append(
                f"| {item.number} | {item.start}-{item.end} | {item.name} | {item.spec_type} "
                f"| {item.meaning} |"
            )
        out.append("")
    sample_day = date(2026, 11, 24)
    sample = b"".join(lines("10000001", sample_day, SAMPLE_DETAILS)).decode()
    out += [
        "## Sample",
        "",
        f"`{file_name('10000001', sample_day, production=False)}`:",
        "",
        "```",
        sample.rstrip("\n"),
        "```",
        "",
    ]
    return "\n".join(out)
