"""Request middleware: the request id, and the API's paths answering in JSON."""

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse

from . import views
from .context import new_ndc, set_ndc
from .urls import is_api_path


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


class ApiPathMiddleware:
    """Paths under the API's prefixes (core.urls.API_PREFIXES) answer in JSON, in DEBUG too.

    Unknown paths are answered by the URL conf's last pattern; here, what a view outside DRF
    answers in HTML: the bare 405 of `require_http_methods` becomes the envelope's 405, and an
    `Http404` raised by a view the envelope's 404 (in DEBUG Django would answer its page of
    every URL pattern). A JSON answer of the view's own (the issuer protocol's errors) is kept.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 405
            and is_api_path(request.path_info)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return views.method_not_allowed(request, response.get("Allow", ""))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and is_api_path(request.path_info):
            return views.unknown_api_path(request)
        return None
