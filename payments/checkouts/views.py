"""The hosted checkout's pages: the payment page at a checkout's redirect.url, and the result
page the shopper comes back to after 3-D Secure.

GET /checkout/{id} shows the amount, the merchant, the merchant's stored cards of the checkout's
customer, and a card form (the standard autocomplete attributes; brand detection and a Luhn check
in the page). POST /checkout/{id} validates the card again on the server with the payment table
and pays the checkout once (payments.checkouts.services): a 3-D Secure payment continues at its
redirect.url, any other outcome sends the shopper to the merchant's shopperResultUrl with the
checkout's `id` and `resourcePath` (an auto-submitted form, as the 3-D Secure result page does).
Same-origin posts: Django's CSRF check applies. The unguessable checkout id is the page's only
credential; the page loads nothing from elsewhere.
"""

import re
from datetime import date
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods

from core.errors import Conflict, ParameterError
from core.schema import documented

from ..api.commands import card_from, details_from, threeds_from
from ..api.tables import PAYMENT
from ..api.tables.registrations import REGISTRATION_PAYMENT
from ..api.views import authentication_problems_of
from ..services.types import Caller, StoredCard
from . import openapi, selectors, services
from .models import Checkout, CheckoutStatus

# customer.browser.* the page's script reports (the server adds acceptHeader and userAgent).
BROWSER = (
    "javascriptEnabled",
    "javaEnabled",
    "language",
    "screenHeight",
    "screenWidth",
    "screenColorDepth",
    "timezone",
)
CARD_MESSAGES = {
    "card.number": "number",
    "card.holder": "holder",
    "card.expiryMonth": "expiry",
    "card.expiryYear": "expiry",
    "card.cvv": "cvv",
}
NOT_FOUND = {"title": "Payment page not found", "text": "This payment link is not valid."}


def _back(checkout: Checkout) -> dict[str, str]:
    return {
        "action": checkout.shopper_result_url,
        "id": checkout.pk,
        "resource_path": f"/pay/v3/checkouts/{checkout.pk}/payment",
    }


def _message(
    request: HttpRequest, checkout: Checkout | None, context: dict[str, Any], status: int
) -> HttpResponse:
    merchant = checkout.merchant.business if checkout else ""
    return render(
        request, "checkout/message.html", {"merchant": merchant, **context}, status=status
    )


def _closed(request: HttpRequest, checkout: Checkout) -> HttpResponse | None:
    """The page of a checkout that can no longer be paid, or None while it can."""
    if checkout.status == CheckoutStatus.USED:
        return _message(
            request,
            checkout,
            {
                "title": "Already paid",
                "text": "This payment page has been used; it pays once.",
                "back": _back(checkout),
            },
            409,
        )
    if checkout.status == CheckoutStatus.EXPIRED or checkout.expires_at <= timezone.now():
        return _message(
            request,
            checkout,
            {
                "title": "Payment page expired",
                "text": "This payment page is no longer valid. Please start again at the shop.",
                "back": _back(checkout),
            },
            410,
        )
    return None


def _page(
    request: HttpRequest,
    checkout: Checkout,
    *,
    errors: list[tuple[str, str]] | None = None,
    values: dict[str, str] | None = None,
    chosen: str = "",
    status: int = 200,
) -> HttpResponse:
    errors = errors or []
    field_errors = {CARD_MESSAGES[n]: m for n, m in errors if n in CARD_MESSAGES}
    general = [f"{name} {message}" for name, message in errors if name not in CARD_MESSAGES]
    stored = list(selectors.stored_cards(checkout=checkout))
    year = date.today().year
    return render(
        request,
        "checkout/page.html",
        {
            "checkout": checkout,
            "merchant": checkout.merchant.business,
            "platform": settings.CHECKOUT_PLATFORM_NAME,
            "stored": stored,
            "chosen": chosen or (stored[0].pk if stored else "card"),
            "errors": bool(errors),
            "field_errors": field_errors,
            "general_errors": general,
            "values": values or {},
            "months": [f"{m:02d}" for m in range(1, 13)],
            "years": [str(y) for y in range(year, year + 16)],
            "browser_fields": BROWSER,
            "expires": checkout.expires_at,
        },
        status=status,
    )


def _request_values(request: HttpRequest, checkout: Checkout, stored: bool) -> dict[str, Any]:
    """The payment the checkout makes, as the API would receive it: its fields, the shopper's
    card (or the stored card's CVV), and the browser data 3-D Secure needs."""
    post = request.POST
    values: dict[str, Any] = {
        **checkout.data,
        "entityId": checkout.entity.entity_id,
        "entityType": checkout.entity_type,
        "merchantTransactionId": checkout.merchant_transaction_id,
        "merchant.id": checkout.merchant.merchant_id,
        "paymentType": checkout.payment_type,
        "amount": f"{checkout.amount}",
        "currency": checkout.currency,
        "customer.browser.acceptHeader": request.headers.get("Accept", "text/html")[:2048],
        "customer.browser.userAgent": request.headers.get("User-Agent", "")[:2048],
        "customer.browser.challengeWindow": "05",
    }
    for name in BROWSER:
        value = post.get(f"browser.{name}", "")
        if value:
            values[f"customer.browser.{name}"] = value
    values.setdefault("customer.browser.javascriptEnabled", "false")
    values.setdefault(
        "customer.browser.language", request.headers.get("Accept-Language", "en")[:8] or "en"
    )
    if stored:
        values.setdefault("standingInstruction.source", "CIT")
        if post.get("stored.cvv"):
            values["card.cvv"] = post["stored.cvv"]
        return values
    for name in ("card.number", "card.holder", "card.expiryMonth", "card.expiryYear", "card.cvv"):
        if post.get(name, "").strip():
            values[name] = post[name]
    if "card.number" in values:  # as printed on the card: groups of digits
        values["card.number"] = re.sub(r"[ -]", "", values["card.number"])
    return values


@documented(openapi.page_operations)
@csrf_exempt  # not by the middleware: the method is checked first (405), then the CSRF token
@require_http_methods(["GET", "POST"])
@csrf_protect
@never_cache
def page(request: HttpRequest, checkout_id: str) -> HttpResponse:
    checkout = selectors.checkout_for_page(checkout_id=checkout_id)
    if checkout is None:
        return _message(request, None, NOT_FOUND, 404)
    closed = _closed(request, checkout)
    if closed is not None:
        return closed
    if request.method == "GET":
        return _page(request, checkout)
    return _pay(request, checkout)


def _pay(request: HttpRequest, checkout: Checkout) -> HttpResponse:
    source = request.POST.get("source", "card")
    stored_ids = {r.pk for r in selectors.stored_cards(checkout=checkout)}
    stored = source in stored_ids
    shown = {
        "holder": request.POST.get("card.holder", "")[:128],
        "month": request.POST.get("card.expiryMonth", ""),
        "year": request.POST.get("card.expiryYear", ""),
    }
    values = _request_values(request, checkout, stored)
    base_url = request.build_absolute_uri("/")
    try:
        flat = (REGISTRATION_PAYMENT if stored else PAYMENT).validate(values)
        # 3-D Secure brings the shopper back to this checkout, and on to the shop (ours: not a
        # value to validate).
        flat["shopperResultUrl"] = request.build_absolute_uri(f"/checkout/{checkout.pk}/result")
        caller = Caller(checkout.entity, checkout.entity_type, checkout.merchant, None, base_url)
        number = flat.get("card.number", "")
        if stored:
            number = selectors.stored_number(checkout=checkout, registration_id=source)
        problems = authentication_problems_of(caller, flat, card_number=number)
        if problems:
            raise ParameterError([(name, None, message) for name, message in problems])
    except ParameterError as exc:
        errors = [(name, message) for name, _, message in exc.errors]
        return _page(request, checkout, errors=errors, values=shown, chosen=source, status=400)
    card = StoredCard(source, cvv=flat.get("card.cvv", "")) if stored else card_from(flat)
    try:
        outcome = services.checkout_pay(
            checkout_id=checkout.pk,
            card=card,
            details=details_from(flat),
            threeds=threeds_from(flat),
            base_url=base_url,
        )
    except Conflict:
        checkout.refresh_from_db()
        return _closed(request, checkout) or _message(request, checkout, NOT_FOUND, 409)
    redirect = outcome.body.get("redirect")
    if redirect:  # 3-D Secure: on to the authentication, back at /checkout/{id}/result
        fields = [(p["name"], p["value"]) for p in redirect["parameters"]]
        return _forward(request, checkout, redirect["url"], fields, "Taking you to your bank…")
    return _return_to_shop(request, checkout)


def _forward(
    request: HttpRequest, checkout: Checkout, action: str, fields: list[tuple[str, str]], title: str
) -> HttpResponse:
    return render(
        request,
        "checkout/forward.html",
        {
            "merchant": checkout.merchant.business,
            "action": action,
            "fields": fields,
            "title": title,
        },
    )


def _return_to_shop(request: HttpRequest, checkout: Checkout) -> HttpResponse:
    back = _back(checkout)
    fields = [("id", back["id"]), ("resourcePath", back["resource_path"])]
    return _forward(request, checkout, back["action"], fields, "Returning to the shop…")


@documented(openapi.result_operations)
@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def result(request: HttpRequest, checkout_id: str) -> HttpResponse:
    """Where 3-D Secure returns the shopper (its result page posts the payment's id here): on
    to the merchant's shopperResultUrl with the checkout's id and resourcePath. Changes
    nothing."""
    checkout = selectors.checkout_for_page(checkout_id=checkout_id)
    if checkout is None or checkout.payment_id is None:
        return _message(request, checkout, NOT_FOUND, 404)
    return _return_to_shop(request, checkout)
