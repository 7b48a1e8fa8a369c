"""The merchant portal's terminals, with their status."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from core.portal import list_operations, list_page, page_methods, portal_view
from core.replica import reads_from_replica
from core.schema.pages import documented

from .models import Terminal

NAV = [("Terminals", "portal:terminals")]


@page_methods("GET")
@portal_view
@reads_from_replica
def terminals(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    mine = Terminal.objects.filter(merchant=merchant).order_by("terminal_id")
    return list_page(request, mine, "portal/terminals.html", "Terminals")


urlpatterns = [
    path(
        "terminals/",
        documented(list_operations("portal_terminals", "Portal: terminals", "The terminals."))(
            terminals
        ),
        name="terminals",
    ),
]
