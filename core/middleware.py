from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from .context import new_ndc, set_ndc


class RequestIdMiddleware:
    """Gives each request a fresh ndc, exposes it as `X-Request-Id`, and scopes logs to it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        ndc = new_ndc()
        request.ndc = ndc  # type: ignore[attr-defined]
        # Not reset on the way out: Django logs the response (django.request) after the
        # middleware chain returns, and that line must carry the ndc too. The next request on
        # this thread or task sets a fresh one.
        set_ndc(ndc)
        response = self.get_response(request)
        response["X-Request-Id"] = ndc
        return response
