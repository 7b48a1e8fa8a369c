"""The browser side of 3-D Secure: the 3DS server page at redirect.url and the simulated ACS.

These pages are reached by cross-site form posts (the merchant's page posts to redirect.url, the
ACS pages run in frames), so Django's CSRF cookie cannot protect them; the unguessable
authentication id and, on the challenge form, a per-authentication nonce do. For the same reason
they may be framed: the method page lives in a hidden iframe of the start page, and a merchant may
show the challenge in an iframe of the challengeWindow size. Framed by whom is said by their
Content-Security-Policy (`framed_by_the_merchant`): `frame-ancestors` the platform itself and the
origin of the authentication's shopperResultUrl, the merchant's page, and nobody else
(X-Frame-Options, which cannot name an origin, is lifted for them). A finished authentication only
ever shows its result again.
"""

from collections.abc import Callable
from functools import wraps

from csp.constants import SELF
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from core.errors import Conflict, Forbidden
from core.schema import documented

from ..models import ThreeDSAuthentication
from ..selectors import threeds_frame_origins
from . import acs, openapi
from .services import (
    issuer_secret,
    simulator_code,
    threeds_answer_challenge,
    threeds_complete,
    threeds_method_completed,
    threeds_show_challenge,
)

WINDOW_SIZES = {
    "01": (250, 400),
    "02": (390, 400),
    "03": (500, 600),
    "04": (600, 400),
    "05": (None, None),
}
ALREADY_COMPLETE = {
    "title": "Already complete",
    "text": "This authentication has already ended; it cannot be completed again.",
}


def framed_by_the_merchant(
    view: Callable[..., HttpResponse],
) -> Callable[..., HttpResponse]:
    """The page may be framed by the platform's own pages and by the merchant's origin (that of
    the authentication's shopperResultUrl), whatever it answers; an unknown id's 404 (raised,
    answered outside the view) keeps the site's rule: nobody."""

    @wraps(view)
    def framed(request: HttpRequest, auth_id: str, *args: object, **kwargs: object) -> HttpResponse:
        response = view(request, auth_id, *args, **kwargs)
        origins = threeds_frame_origins(auth_id=auth_id)
        response._csp_replace = {"frame-ancestors": [SELF, *origins]}  # type: ignore[attr-defined]
        return response

    return framed


def _auth(auth_id: str) -> ThreeDSAuthentication:
    return get_object_or_404(ThreeDSAuthentication.objects.select_related("payment"), pk=auth_id)


def _result_page(request: HttpRequest, auth: ThreeDSAuthentication) -> HttpResponse:
    """Send the shopper's browser to shopperResultUrl with an auto-submitted POST form."""
    payment = auth.payment
    return render(
        request,
        "threeds/result.html",
        {
            "action": auth.shopper_result_url,
            "payment_id": payment.pk,
            "resource_path": f"/pay/v3/payments/{payment.pk}",
            "auth": auth,
        },
    )


def _message(request: HttpRequest, context: dict[str, str], status: int) -> HttpResponse:
    return render(request, "threeds/message.html", context, status=status)


@documented(openapi.start_operations)
@xframe_options_exempt
@framed_by_the_merchant
@csrf_exempt
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, auth_id: str) -> HttpResponse:
    """redirect.url: run the method step in a hidden iframe when the issuer asked for it, then
    continue to the frictionless result or the challenge."""
    auth = _auth(auth_id)
    if auth.is_final:
        return _result_page(request, auth)
    if auth.method_required and not auth.method_completed:
        return render(request, "threeds/method.html", {"auth": auth})
    return proceed(request, auth_id)


@documented(openapi.method_operations)
@xframe_options_exempt
@framed_by_the_merchant
@csrf_exempt
@require_http_methods(["POST"])
def acs_method(request: HttpRequest, auth_id: str) -> HttpResponse:
    """The ACS's 3DS method URL (in the hidden iframe): fingerprint the browser, notify the
    parent page."""
    threeds_method_completed(auth_id=auth_id)
    return render(request, "threeds/method_done.html", {"auth_id": auth_id})


@documented(openapi.continue_operations)
@xframe_options_exempt
@framed_by_the_merchant
@csrf_exempt
@require_http_methods(["GET", "POST"])
def proceed(request: HttpRequest, auth_id: str) -> HttpResponse:
    auth = _auth(auth_id)
    if auth.is_final:
        return _result_page(request, auth)
    if auth.flow == acs.FRICTIONLESS:
        try:
            auth = threeds_complete(auth_id=auth.pk, outcome=auth.issuer_result)
        except Conflict:
            auth = _auth(auth_id)
        return _result_page(request, auth)
    auth = threeds_show_challenge(auth_id=auth.pk)
    if auth.is_final:
        return _result_page(request, auth)
    return _challenge_page(request, auth)


def _challenge_page(
    request: HttpRequest, auth: ThreeDSAuthentication, error: str = "", status: int = 200
) -> HttpResponse:
    width, height = WINDOW_SIZES.get(auth.challenge_window, (None, None))
    payment = auth.payment
    return render(
        request,
        "threeds/challenge.html",
        {
            "auth": auth,
            "error": error,
            "width": width,
            "height": height,
            "attempts_left": acs.MAX_OTP_ATTEMPTS - auth.otp_attempts,
            "merchant": payment.merchant.business,
            "amount": auth.amount,
            "currency": auth.currency,
            "card": f"•••• {payment.card_last4}",
            # The code a tester types, on the page itself (docs/api.md, "The one-time password
            # of a challenge"): the simulated ACS's, or the one the platform's issuer "sent".
            "simulator_code": simulator_code(auth),
            # An on-us card: the issuer's own channel (docs/closed-loop.md).
            "issuer_method": auth.issuer_method,
            # The approval link of an out-of-band challenge goes to the cardholder's app; the
            # page offers it only to testers, as the codes.
            "issuer_secret": (
                issuer_secret(auth) if auth.issuer_method and settings.SIMULATOR_SHOW_CODES else ""
            ),
            "sent_to": auth.issuer_sent_to,
        },
        status=status,
    )


@documented(openapi.challenge_operations)
@xframe_options_exempt
@framed_by_the_merchant
@csrf_exempt
@require_http_methods(["POST"])
def acs_challenge(request: HttpRequest, auth_id: str) -> HttpResponse:
    """The challenge form: the one-time password, or cancel. Three wrong codes fail it."""
    _auth(auth_id)  # 404 for an unknown id
    try:
        outcome = threeds_answer_challenge(
            auth_id=auth_id,
            nonce=request.POST.get("nonce", ""),
            otp=request.POST.get("otp", ""),
            cancel=request.POST.get("action") == "cancel",
        )
    except Forbidden as exc:
        return _message(request, {"title": "Not allowed", "text": exc.description}, 403)
    except Conflict:
        return _message(request, ALREADY_COMPLETE, 409)
    if outcome.wrong_code:
        return _challenge_page(
            request,
            outcome.auth,
            error=f"Wrong code. {outcome.attempts_left} attempt(s) left.",
        )
    if outcome.code_resent:
        return _challenge_page(
            request, outcome.auth, error="The code has expired. We sent you a new one."
        )
    if outcome.waiting:
        return _challenge_page(
            request,
            outcome.auth,
            error="Not approved yet: approve the payment in your banking app, then continue.",
        )
    return _result_page(request, outcome.auth)
