"""Request middleware: the request id, a Host refused in JSON on the API's paths, the API's
paths answering in JSON, and the envelope's 503 for a database out of reach."""

import io
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import LimitedStream
from django.http import Http404, HttpRequest, HttpResponse

from . import metrics, views
from .context import clear_log_fields, log_fields, new_ndc, set_ndc
from .errors import ApplicationError, is_database_unavailable
from .parsers import read_body
from .query import query_refusal
from .redaction import safe_path
from .urls import OAUTH_PREFIX, is_api_path

access_log = logging.getLogger("core.access")
security_log = logging.getLogger("django.security.DisallowedHost")


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
        clear_log_fields()
        response = self.get_response(request)
        response["X-Request-Id"] = ndc
        return response


# Asked every few seconds by load balancers and Prometheus, and static files: their lines are
# DEBUG (LOG_LEVEL=DEBUG shows them); every other request's line is INFO.
QUIET_GROUPS = ("operations",)
QUIET_PREFIXES = ("/static/",)
# A JSON answer larger than this is not read back for its result code (DRF's answers are not
# read back at all: their data is at hand).
RESULT_CODE_BODY_LIMIT = 64 * 1024


class RequestLogMiddleware:
    """One access line per request (logger `core.access`) and the latency histogram of its
    endpoint group (core.metrics). The line's fields: `method`, `path` (core.redaction.safe_path:
    no query string, secret links masked), `status`, `resultCode` (the envelope's), `durationMs`,
    `group`, and what the request bound (`entity`, `merchant`), beside the ndc of every line."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        seconds = time.perf_counter() - started
        path = safe_path(request.path)
        group = metrics.endpoint_group(request.path_info)
        metrics.request_answered(group=group, status=response.status_code, seconds=seconds)
        quiet = group in QUIET_GROUPS or path.startswith(QUIET_PREFIXES)
        level = logging.DEBUG if quiet else logging.INFO
        if access_log.isEnabledFor(level):
            fields: dict[str, Any] = {
                "method": request.method,
                "path": path,
                "status": response.status_code,
                "durationMs": round(seconds * 1000, 1),
                "group": group,
            }
            code = result_code(response) or log_fields().get("resultCode")
            if code:
                fields["resultCode"] = code
            bound = {k: v for k, v in log_fields().items() if k in ("entity", "merchant")}
            context = " ".join(f"{k}={v}" for k, v in bound.items())
            access_log.log(
                level,
                "%s %s %s %s %.1f ms%s",
                request.method,
                path,
                response.status_code,
                code or "-",
                seconds * 1000,
                f" {context}" if context else "",
                extra=fields,
            )
        return response


def result_code(response: HttpResponse) -> str:
    """The envelope's result.code of an answer, or ""."""
    data = getattr(response, "data", None)  # DRF's Response: the body before rendering
    if data is None and not response.streaming:
        content_type = response.get("Content-Type", "")
        if content_type.startswith("application/json"):
            content = response.content
            if len(content) <= RESULT_CODE_BODY_LIMIT:
                try:
                    data = json.loads(content)
                except ValueError:
                    return ""
    if isinstance(data, dict) and isinstance(data.get("result"), dict):
        code = data["result"].get("code")
        return code if isinstance(code, str) else ""
    return ""


class HostMiddleware:
    """A Host outside ALLOWED_HOSTS, asked before anything else reads it: under the API's
    prefixes the envelope's 400 (200.100.101) and under /oauth2/ RFC 6749's error object, in
    DEBUG too, where Django would answer its technical page; elsewhere Django's own handling
    (handler400 without DEBUG). Logged as Django logs it (`django.security.DisallowedHost`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if is_api_path(path) or path.startswith(OAUTH_PREFIX):
            try:
                request.get_host()
            except DisallowedHost as exc:
                security_log.error("%s", exc)
                return views.bad_request(request, exc)
        return self.get_response(request)


class ApiPathMiddleware:
    """Paths under the API's prefixes (core.urls.API_PREFIXES) answer in JSON, in DEBUG too.

    Unknown paths are answered by the URL conf's last pattern; here, what a view outside DRF
    answers in HTML: the bare 405 of `require_http_methods` becomes the envelope's 405, and an
    `Http404` raised by a view the envelope's 404 (in DEBUG Django would answer its page of
    every URL pattern). A JSON answer of the view's own (the issuer protocol's errors) is kept.

    The query string is checked first (core.query): card data and secrets in a URL are refused
    before anything reads the request.

    A chunked body (no Content-Length) is read here, at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes
    (413 beyond): Django hands the views an empty body when no length is announced, so the API
    would answer "entityId is required" to a request that sent it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api_path(request.path_info):
            return self.get_response(request)
        refusal = query_refusal(request)
        if refusal is not None:
            return views.error_page(refusal, request)
        try:
            _read_chunked(request)
        except ApplicationError as exc:
            return views.error_page(exc, request)
        response = self.get_response(request)
        if response.status_code == 405 and not response.get("Content-Type", "").startswith(
            "application/json"
        ):
            return views.method_not_allowed(request, response.get("Allow", ""))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Http404) and is_api_path(request.path_info):
            return views.unknown_api_path(request)
        if is_database_unavailable(exception):
            # Any path, in DEBUG too (where Django would answer its traceback page): the
            # envelope's 503 (800.800.800). What fails before a view (a middleware reading the
            # session) reaches handler500, core.views.server_error, which answers the same.
            return views.error_page(exception, request)
        return None


def _read_chunked(request: HttpRequest) -> None:
    """Read a chunked body (bounded) and hand it on as if its length had been announced. Only
    where the server says the input ends by itself (`wsgi.input_terminated`, as gunicorn does):
    elsewhere reading to the end could wait on the connection."""
    meta = request.META
    chunked = "chunked" in meta.get("HTTP_TRANSFER_ENCODING", "").lower()
    if meta.get("CONTENT_LENGTH") or not chunked or not meta.get("wsgi.input_terminated"):
        return
    body = read_body(meta["wsgi.input"], None)
    request._stream = LimitedStream(io.BytesIO(body), len(body))  # type: ignore[assignment]
    meta["CONTENT_LENGTH"] = str(len(body))
