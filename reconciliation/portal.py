"""The merchant portal's money pages: settlement runs, chargebacks, the reports of a day as CSV,
and the merchant entity's daily reconciliation files to download. Only the signed-in user's
merchant's (another's file or run is 404)."""

import csv
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any

from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import path

from core.schema.pages import documented, html, portal_page
from merchants.portal import page_methods, portal_view

from . import reports
from .models import Chargeback, ReconFile, SettlementRun
from .recon.generate import storage

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
def settlements(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    runs = SettlementRun.objects.filter(merchant=merchant).order_by("-day")
    page = Paginator(runs, 31).get_page(request.GET.get("page"))
    return render(request, "portal/settlements.html", {"title": "Settlements", "page": page})


@page_methods("GET")
@portal_view
def chargebacks(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    disputes = (
        Chargeback.objects.filter(merchant=merchant)
        .select_related("payment")
        .order_by("-received_on", "-pk")
    )
    page = Paginator(disputes, 50).get_page(request.GET.get("page"))
    return render(request, "portal/chargebacks.html", {"title": "Chargebacks", "page": page})


def _csv(records: Iterable[reports.Record]) -> Iterator[str]:
    class Line:
        def write(self, text: str) -> str:
            return text

    writer = csv.writer(Line())
    header: list[str] | None = None
    for record in records:
        if header is None:
            header = list(record)
            yield writer.writerow(header)
        yield writer.writerow([record.get(name, "") for name in header])


@page_methods("GET")
@portal_view
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
    response = StreamingHttpResponse(
        _csv(read(merchant=merchant, day=when).all()), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = (
        f'attachment; filename="{name}-{merchant.merchant_id}-{when:%Y%m%d}.csv"'
    )
    return response


@page_methods("GET")
@portal_view
def files(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    made = ReconFile.objects.filter(entity=merchant.entity).order_by("-day", "name")
    page = Paginator(made, 31).get_page(request.GET.get("page"))
    return render(request, "portal/files.html", {"title": "Daily files", "page": page})


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


def _list(operation_id: str, summary: str, what: str) -> Any:
    def operations() -> dict[str, dict[str, Any]]:
        page = {"200": html(what)}
        parameters = [
            {"name": "page", "in": "query", "required": False, "schema": {"type": "string"}}
        ]
        return {"get": portal_page(operation_id, summary, page, parameters=parameters)}

    return operations


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


urlpatterns = [
    path(
        "settlements/",
        documented(_list("portal_settlements", "Portal: settlements", "The settlement runs."))(
            settlements
        ),
        name="settlements",
    ),
    path(
        "chargebacks/",
        documented(_list("portal_chargebacks", "Portal: chargebacks", "The chargebacks."))(
            chargebacks
        ),
        name="chargebacks",
    ),
    path(
        "reports/<str:kind>/<str:day>.csv",
        documented(_report_operations)(report),
        name="report",
    ),
    path(
        "files/",
        documented(_list("portal_files", "Portal: daily files", "The daily files."))(files),
        name="files",
    ),
    path(
        "files/<int:file_id>/",
        documented(_download_operations)(file_download),
        name="file",
    ),
]
