"""The cardholder's side of an out-of-band authentication: the page the issuer would push to its
app (`cardholderUrl` of StartOOBAuthen), with Approve and Reject.

The link carries a per-authentication secret (256 random bits; only a keyed hash is stored), and
the form posts back to the same link, so knowing an authentication id is not enough to answer
it. A wrong id and a wrong secret look the same (404). The secret is in the path: the page is
sent with `Referrer-Policy: no-referrer` and `Cache-Control: no-store` so it does not leak
onwards.

No CSRF cookie (docs/decisions.md, "Hardening (issue 9)"): the page has no session or cookie
that a forged request could borrow; the secret in the link is the only credential, and whoever
holds it can answer with or without a browser. Django's check would add nothing and, with
`no-referrer`, refuses real browsers: they post the form with `Origin: null` (Fetch standard).
"""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from core.schema import documented

from .models import OOBStatus
from .protocol.openapi import oob_page_operations
from .selectors import oob_card_shown
from .services import OOBAlreadyDecided, oob_cardholder_answer, oob_for_link, oob_status_at

# title, text, tone (the colour of the card: ok, stop, muted)
DONE_TEXT = {
    OOBStatus.SUCCESS: (
        "Payment approved",
        "You approved this payment. You can close this page.",
        "ok",
    ),
    OOBStatus.REJECTED: (
        "Payment rejected",
        "You rejected this payment. You can close this page.",
        "stop",
    ),
}
FINAL_TEXT = {
    OOBStatus.SUCCESS: "It was already approved.",
    OOBStatus.REJECTED: "It was already rejected.",
    OOBStatus.EXPIRED: "It expired before it was answered.",
    OOBStatus.CANCELLED: "It was cancelled.",
    OOBStatus.ERROR: "It could not be completed.",
}


def _private(response: HttpResponse) -> HttpResponse:
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "no-store"
    return response


def _message(
    request: HttpRequest, title: str, text: str, status: int, tone: str = "muted"
) -> HttpResponse:
    context = {"title": title, "text": text, "tone": tone}
    return _private(render(request, "issuer/message.html", context, status=status))


def _final_page(request: HttpRequest, shown: OOBStatus) -> HttpResponse:
    if shown == OOBStatus.EXPIRED:
        title, status = "Request expired", 410
    else:
        title, status = "Already answered", 409
    text = f"{FINAL_TEXT[shown]} Nothing was changed."
    return _message(request, title, text, status)


@documented(oob_page_operations)
@csrf_exempt  # the link's secret is the credential; see the module's docstring
@require_http_methods(["GET", "POST"])
def oob_page(request: HttpRequest, authentication_id: str, token: str) -> HttpResponse:
    auth = oob_for_link(authentication_id=authentication_id, link_token=token)
    if auth is None:
        return _message(
            request, "Not found", "This link is not valid. Open the request from your app.", 404
        )
    if request.method == "GET":
        shown = oob_status_at(auth)  # an overdue one is EXPIRED; the GET records nothing
        if shown != OOBStatus.PENDING:
            return _final_page(request, shown)
        card = oob_card_shown(auth=auth)
        return _private(render(request, "issuer/oob.html", {"auth": auth, "card": card}))

    decision = request.POST.get("decision")
    if decision not in ("approve", "reject"):
        return _message(request, "Not understood", "Choose Approve or Reject.", 400)
    try:
        decided = oob_cardholder_answer(
            authentication_id=auth.pk, link_token=token, approve=decision == "approve"
        )
    except OOBAlreadyDecided as exc:
        return _final_page(request, OOBStatus(exc.authentication.status))
    if decided is None:  # the link stopped matching between the two reads: cannot happen
        return _message(request, "Not found", "This link is not valid.", 404)
    title, text, tone = DONE_TEXT[OOBStatus(decided.status)]
    return _message(request, title, text, 200, tone)
