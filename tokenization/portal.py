"""The merchant portal's scheme tokens: the merchant's tokens with their status (the funding
card masked; the token reference, which the merchant needs, shown)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from core.portal import list_operations, list_page, page_methods, portal_view
from core.replica import reads_from_replica
from core.schema.pages import documented

from .models import Token

NAV = [("Scheme tokens", "portal:tokens")]


@page_methods("GET")
@portal_view
@reads_from_replica
def tokens(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    mine = Token.objects.filter(merchant=merchant).order_by("-status_timestamp", "tur")
    return list_page(request, mine, "portal/tokens.html", "Scheme tokens")


urlpatterns = [
    path(
        "tokens/",
        documented(list_operations("portal_tokens", "Portal: scheme tokens", "The tokens."))(
            tokens
        ),
        name="tokens",
    ),
]
