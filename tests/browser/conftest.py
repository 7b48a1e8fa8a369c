"""Fixtures of the browser tests.

One headless Chromium per module (Debian's /usr/bin/chromium, started by Playwright's sync API;
the module is skipped with the reason when it is missing or cannot start), a fresh context per
test, the platform on pytest-django's `live_server`, and a small web shop on 127.0.0.1 that plays
the merchant: it serves the page posting the shopper to `redirect.url` and records what the
platform posts back to `shopperResultUrl`. Everything stays on the loopback interface.
"""

import html
import json
import os
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from tests.factories import MerchantFactory
from tests.payments.conftest import card
from tests.payments.threeds_helpers import threeds_fields

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 800, "height": 700}
PHONE = {"width": 390, "height": 844}  # a phone's CSS pixels (what the issuer's app would open)
IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
HTTP_TIMEOUT_S = 10
BROWSER_TIMEOUT_MS = 10_000

# Loopback only: never ask a proxy from the environment for these requests.
_http = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for the whole module; skips it with the reason when there is none."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    # Playwright's sync API keeps an asyncio loop running in this thread, which makes Django
    # refuse ORM calls (SynchronousOnlyOperation) in the test and in the database flush after it.
    # The calls are synchronous all the same; allowed only while this browser is up.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    playwright = sync_api.sync_playwright().start()
    try:
        try:
            chromium = playwright.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=30_000
            )
        except Exception as exc:
            lines = [line.strip() for line in str(exc).splitlines()]
            why = " | ".join(ln for ln in lines if ln and "<launching>" not in ln)
            pytest.skip(f"{CHROMIUM} could not start: {why[:500]}")
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


def _loopback_only(route: Any) -> None:
    host = urlsplit(route.request.url).hostname
    if route.request.url.startswith(("data:", "about:")) or host in LOOPBACK:
        route.fallback()
    else:
        route.abort("blockedbyclient")


class Tab:
    """A page in its own browser context, with what the browser did and said on the way."""

    def __init__(
        self,
        browser: Any,
        viewport: dict[str, int] = VIEWPORT,
        phone: bool = False,
        timezone_id: str | None = None,
    ):
        self.context = browser.new_context(
            viewport=viewport,
            locale="en-US",
            is_mobile=phone,
            has_touch=phone,
            timezone_id=timezone_id,  # None: the machine's
        )
        self.context.set_default_timeout(BROWSER_TIMEOUT_MS)
        self.context.route("**/*", _loopback_only)
        self.page = self.context.new_page()
        self.requests: list[Any] = []
        self.console: list[str] = []
        self.page_errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.page_errors.append(str(error)))

    def _console(self, message: Any) -> None:
        line = f"{message.type}: {message.text}"
        if "Content Security Policy" in line:  # where, for the violation's report
            where = message.location or {}
            line += f" [{where.get('url')}:{where.get('lineNumber')}]"
        self.console.append(line)

    def posts_to(self, fragment: str) -> list[Any]:
        return [r for r in self.requests if r.method == "POST" and fragment in r.url]

    @property
    def csp_violations(self) -> list[str]:
        """What Chromium refused under a page's Content-Security-Policy (an inline script or
        style without the nonce, a frame its ancestors may not hold, a resource from elsewhere)."""
        return [line for line in self.console if "Content Security Policy" in line]

    def close(self) -> None:
        """Every page the test visited kept to its Content-Security-Policy (issue 32)."""
        violations = self.csp_violations
        self.context.close()
        assert violations == [], violations


def screenshot(tab: Tab, name: str, *, full_page: bool = False) -> None:
    """Refresh the docs' screenshots only when asked (UPDATE_SCREENSHOTS=1): a test run must not
    rewrite tracked files, and fonts differ between machines. `full_page`: the whole page, not
    only what the window shows."""
    if os.environ.get("UPDATE_SCREENSHOTS") != "1":
        return
    IMG.mkdir(parents=True, exist_ok=True)
    tab.page.screenshot(path=str(IMG / name), full_page=full_page)


@pytest.fixture
def tab(browser: Any) -> Iterator[Tab]:
    opened = Tab(browser)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def phone(browser: Any) -> Iterator[Tab]:
    """A phone-sized page (touch, mobile viewport meta honoured): the cardholder's app."""
    opened = Tab(browser, viewport=PHONE, phone=True)
    try:
        yield opened
    finally:
        opened.close()


class Shop:
    """The merchant's web shop on 127.0.0.1:<free port>.

    GET /checkout/<payment id>: the merchant's page that sends the shopper to `redirect.url`, an
    auto-submitted form with `redirect.parameters` as hidden fields (the spec's integration).
    POST /result: the shopperResultUrl; records the form (id, resourcePath), answers "Shop result".
    """

    def __init__(self) -> None:
        self.redirects: dict[str, dict[str, Any]] = {}
        self.results: list[dict[str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="shop", daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def result_url(self) -> str:
        return f"{self.url}/result"

    def checkout_url(self, payment: dict[str, Any]) -> str:
        self.redirects[payment["id"]] = payment["redirect"]
        return f"{self.url}/checkout/{payment['id']}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _answer(self, status: int, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                payment_id = self.path.removeprefix("/checkout/")
                redirect = shop.redirects.get(payment_id)
                if not self.path.startswith("/checkout/") or redirect is None:
                    self._answer(404, "<!doctype html><title>Not found</title>")
                    return
                fields = "".join(
                    f'<input type="hidden" name="{html.escape(p["name"])}" '
                    f'value="{html.escape(str(p["value"]))}">'
                    for p in redirect["parameters"]
                )
                self._answer(
                    200,
                    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
                    "<title>Shop checkout</title></head><body><p>Taking you to your bank…</p>"
                    f'<form id="threeds" method="{html.escape(redirect["method"])}" '
                    f'action="{html.escape(redirect["url"])}">{fields}'
                    "<noscript><button>Continue</button></noscript></form>"
                    '<script>document.getElementById("threeds").submit();</script>'
                    "</body></html>",
                )

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(parse_qsl(self.rfile.read(length).decode()))
                if self.path != "/result":
                    self._answer(404, "<!doctype html><title>Not found</title>")
                    return
                shop.results.append(form)
                self._answer(
                    200,
                    '<!doctype html><html lang="en"><head><meta charset="utf-8">'
                    "<title>Shop result</title></head><body><h1>Shop result</h1>"
                    f'<p id="payment">{html.escape(form.get("id", ""))}</p></body></html>',
                )

        return Handler


@pytest.fixture
def shop() -> Iterator[Shop]:
    server = Shop()
    try:
        yield server
    finally:
        server.close()


class HttpPayer:
    """Pays as one merchant over real HTTP, form-encoded with its bearer token (as Payer does
    with Django's test client in tests/payments/conftest.py)."""

    def __init__(self, base_url: str, merchant: Any, shop: Shop):
        self.base_url, self.merchant, self.shop = base_url.rstrip("/"), merchant, shop

    def _call(self, method: str, path: str, fields: dict[str, Any]) -> dict[str, Any]:
        entity = self.merchant.entity
        fields = {"entityId": entity.entity_id, "entityType": "MERCHANT", **fields}
        url, data = f"{self.base_url}{path}", None
        if method == "GET":
            url = f"{url}?{urlencode(fields)}"
        else:
            data = urlencode(fields).encode()
        request = urllib.request.Request(
            url,
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {entity.plain_token}",
                "Accept": "application/json",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        try:
            with _http.open(request, timeout=HTTP_TIMEOUT_S) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{method} {path}: {error.code} {error.read()[:2000]!r}") from None

    def pay(self, number: str, amount: str = "10.00", **overrides: str) -> dict[str, Any]:
        """A DB with 3-D Secure; shopperResultUrl is the shop's /result."""
        return self._call(
            "POST",
            "/pay/v3/payments",
            {
                "paymentType": "DB",
                "merchant.id": self.merchant.merchant_id,
                "merchantTransactionId": uuid.uuid4().hex,
                "amount": amount,
                "currency": "EUR",
                **card(number),
                **threeds_fields(shopperResultUrl=self.shop.result_url, **overrides),
            },
        )

    def get(self, payment_id: str) -> dict[str, Any]:
        return self._call("GET", f"/pay/v3/payments/{payment_id}", {})


@pytest.fixture
def enrolled_merchant(transactional_db: None) -> Any:
    return MerchantFactory(threeds_status="ENROLLED")


@pytest.fixture
def payer(live_server: Any, enrolled_merchant: Any, shop: Shop) -> HttpPayer:
    return HttpPayer(live_server.url, enrolled_merchant, shop)


DESKTOP = {"width": 1280, "height": 900}


def expect(locator: Any) -> Any:
    """Playwright's `expect`, imported when a browser test runs (Playwright is optional)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


@pytest.fixture
def desk(browser: Any) -> Iterator[Tab]:
    """A desktop-sized tab (1280 x 900), as bank staff and merchant administrators work."""
    opened = Tab(browser, viewport=DESKTOP)
    try:
        yield opened
    finally:
        opened.close()


# The issuer's key fixtures, for the closed loop's end-to-end test; the ISO 8583 network host of
# the payment tests, for pages that show what the link did.
from tests.issuer.conftest import _issuer_key_files, issuer_keys  # noqa: E402, F401
from tests.payments.network_host import network  # noqa: E402, F401


def portal_sign_in(tab: Tab, base: str, username: str, password: str) -> None:
    """Sign in to the merchant portal; on its overview when it returns."""
    page = tab.page
    page.goto(base + "/portal/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(base + "/portal/")
