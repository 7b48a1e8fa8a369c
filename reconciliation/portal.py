"""The merchant portal's money pages: settlement runs, chargebacks, the reports of a day as CSV,
and the merchant entity's daily reconciliation files to download. Only the signed-in user's
merchant's (another's file or run is 404)."""

from datetime import date
from typing import Any

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import path

from core.csvstream import csv_response
from core.portal import list_operations, list_page, page_methods, portal_view
from core.replica import reads_from_replica
from core.schema.pages import documented, html, portal_page
from merchants.services.merchants import masked_account

from . import reports
from .api.records import COLUMNS, records_csv
from .models import Chargeback, ReconFile, SettlementRun
from .recon.generate import storage
from .recon.layout import RECORD_LENGTH, RECORDS

NAV = [
    ("Settlements", "portal:settlements"),
    ("Chargebacks", "portal:chargebacks"),
    ("Daily files", "portal:files"),
]
REPORTS = {
    "transaction": (reports.transactions, "transactions"),
    "settlement": (reports.settlement, "settlement"),
    "chargeback": (reports.chargebacks, "chargebacks"),
}


@page_methods("GET")
@portal_view
@reads_from_replica
def settlements(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    runs = SettlementRun.objects.filter(merchant=merchant).order_by("-day")
    account = {
        "holder": merchant.bank_account_holder,
        "number": masked_account(merchant.bank_account_number)
        if merchant.bank_account_number
        else "",
        "bic": merchant.bank_account_bic,
        "currency": merchant.settlement_currency,
    }
    return list_page(
        request,
        runs,
        "portal/settlements.html",
        "Settlements",
        per_page=31,
        extra={"account": account},
    )


@page_methods("GET")
@portal_view
@reads_from_replica
def chargebacks(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    disputes = (
        Chargeback.objects.filter(merchant=merchant)
        .select_related("payment")
        .order_by("-received_on", "-pk")
    )
    return list_page(request, disputes, "portal/chargebacks.html", "Chargebacks")


@page_methods("GET")
@portal_view
@reads_from_replica
def report(request: HttpRequest, kind: str, day: str) -> HttpResponseBase:
    """A report of a day as CSV (the records of getReport or getChargeback)."""
    merchant = request.merchant  # type: ignore[attr-defined]
    if kind not in REPORTS:
        raise Http404("no such report")
    try:
        when = date.fromisoformat(day)
    except ValueError:
        raise Http404("no such day") from None
    read, name = REPORTS[kind]
    lines = records_csv(COLUMNS[kind], read(merchant=merchant, day=when).all())
    return csv_response(lines, f"{name}-{merchant.merchant_id}-{when:%Y%m%d}.csv")


@page_methods("GET")
@portal_view
def files(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    made = ReconFile.objects.filter(entity=merchant.entity).order_by("-day", "name")
    return list_page(request, made, "portal/files.html", "Daily files", per_page=31)


@page_methods("GET")
@portal_view
def file_layout(request: HttpRequest) -> HttpResponse:
    """The daily file's record layout, from the declaration the writer and the parser read."""
    context = {"title": "The daily file's layout", "records": RECORDS, "length": RECORD_LENGTH}
    return render(request, "portal/file_layout.html", context)


@page_methods("GET")
@portal_view
def file_download(request: HttpRequest, file_id: int) -> FileResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    record = ReconFile.objects.filter(entity=merchant.entity, pk=file_id).first()
    if record is None or not storage().exists(record.path):
        raise Http404("no such file")
    return FileResponse(
        storage().open(record.path, "rb"),
        as_attachment=True,
        filename=record.name,
        content_type="text/plain; charset=us-ascii",
    )


def _report_operations() -> dict[str, dict[str, Any]]:
    csv_answer = html("The report's records as CSV, a header line first.")
    csv_answer["content"] = {"text/csv": {"schema": {"type": "string"}}}
    parameters = [
        {
            "name": "kind",
            "in": "path",
            "required": True,
            "schema": {"type": "string", "enum": list(REPORTS)},
        },
        {
            "name": "day",
            "in": "path",
            "required": True,
            "schema": {"type": "string", "format": "date", "example": "2026-11-24"},
        },
    ]
    return {
        "get": portal_page(
            "portal_report",
            "Portal: a report of a day as CSV",
            {"200": csv_answer},
            parameters=parameters,
        )
    }


def _layout_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("The header, detail and trailer records: positions, formats, values.")}
    return {"get": portal_page("portal_file_layout", "Portal: the daily file's layout", page)}


def _download_operations() -> dict[str, dict[str, Any]]:
    answer = html("The file (257-byte records).")
    answer["content"] = {"text/plain": {"schema": {"type": "string"}}}
    parameters = [
        {"name": "file_id", "in": "path", "required": True, "schema": {"type": "integer"}}
    ]
    return {
        "get": portal_page(
            "portal_file_download",
            "Portal: download a daily file",
            {"200": answer},
            parameters=parameters,
        )
    }


SETTLEMENTS = list_operations("portal_settlements", "Portal: settlements", "The runs.")
CHARGEBACKS = list_operations("portal_chargebacks", "Portal: chargebacks", "The chargebacks.")
FILES = list_operations("portal_files", "Portal: daily files", "The daily files.")

urlpatterns = [
    path(
        "settlements/",
        documented(
            list_operations("portal_settlements", "Portal: settlements", "The settlement runs.")
        )(settlements),
        name="settlements",
    ),
    path(
        "chargebacks/",
        documented(
            list_operations("portal_chargebacks", "Portal: chargebacks", "The chargebacks.")
        )(chargebacks),
        name="chargebacks",
    ),
    path(
        "reports/<str:kind>/<str:day>.csv",
        documented(_report_operations)(report),
        name="report",
    ),
    path(
        "files/",
        documented(list_operations("portal_files", "Portal: daily files", "The daily files."))(
            files
        ),
        name="files",
    ),
    path("files/layout/", documented(_layout_operations)(file_layout), name="file_layout"),
    path(
        "files/<int:file_id>/",
        documented(_download_operations)(file_download),
        name="file",
    ),
]
