"""3-D Secure 2 walked in a real browser (Debian's headless Chromium, Playwright).

The merchant's page on the shop (127.0.0.1) posts the shopper to redirect.url on the platform
(localhost, another site), the platform's pages run the method iframe or the challenge, and the
result page posts id and resourcePath back to the shop's shopperResultUrl. The same flows with
Django's test client are in tests/payments/test_threeds_flow.py.
"""

import base64
import re
import time
from typing import Any
from urllib.parse import parse_qs

import pytest

from payments.models import ThreeDSAuthentication
from tests.browser.conftest import VIEWPORT, HttpPayer, Shop, Tab, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRICTIONLESS, CHALLENGE, METHOD = "4000000000001000", "4000000000001091", "4000000000001125"


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def start_payment(payer: HttpPayer, number: str, **overrides: str) -> dict[str, Any]:
    data = payer.pay(number, **overrides)
    assert data["result"]["code"] == "000.200.000", data
    assert data["redirect"]["method"] == "POST" and data["redirect"]["url"].startswith(
        payer.base_url
    )
    return data


def open_checkout(tab: Tab, shop: Shop, data: dict[str, Any]) -> None:
    """The shopper on the merchant's page, which posts itself to redirect.url at once."""
    tab.page.goto(shop.checkout_url(data), wait_until="commit")


def at_challenge(tab: Tab) -> Any:
    challenge = tab.page.locator("#challenge")
    expect(challenge).to_be_visible()
    expect(tab.page.locator("h1")).to_have_text("Confirm your payment")
    return challenge


def back_at_shop(tab: Tab, shop: Shop, data: dict[str, Any]) -> None:
    """The result page posted id and resourcePath to shopperResultUrl; the shopper is there."""
    tab.page.wait_for_url(shop.result_url)
    expect(tab.page.locator("h1")).to_have_text("Shop result")
    assert tab.page.url == shop.result_url
    assert shop.results == [{"id": data["id"], "resourcePath": f"/pay/v3/payments/{data['id']}"}]
    start = tab.posts_to(data["redirect"]["url"])
    assert len(start) == 1, "the shop's page posts the shopper to redirect.url once"
    sent = {k: v[0] for k, v in parse_qs(start[0].post_data or "").items()}
    assert sent == {p["name"]: p["value"] for p in data["redirect"]["parameters"]}
    assert tab.page_errors == []


def final(payer: HttpPayer, data: dict[str, Any], code: str) -> dict[str, Any]:
    answer = payer.get(data["id"])
    assert answer["result"]["code"] == code, answer
    return answer


def authenticated(answer: dict[str, Any], eci: str = "05", status: str = "Y") -> None:
    three_ds = answer["threeDSecure"]
    assert (three_ds["eci"], three_ds["authenticationStatus"], three_ds["version"]) == (
        eci,
        status,
        "2.2.0",
    )
    assert len(three_ds["dsTransactionId"]) == 36 and len(three_ds["acsTransactionId"]) == 36
    assert bool(three_ds.get("verificationId")) == (status != "N")


def test_frictionless(tab, shop, payer):
    data = start_payment(payer, FRICTIONLESS)
    open_checkout(tab, shop, data)
    back_at_shop(tab, shop, data)
    authenticated(final(payer, data, "000.000.000"))
    assert not tab.posts_to("/method") and not tab.posts_to("/challenge")


SUCCESS = re.compile(r"^(000\.000\.|000\.100\.1|000\.[36])")  # successfully processed


def simulator_code(tab: Tab) -> str:
    """The one-time password as a tester finds it: on the challenge page, beside the field."""
    shown = tab.page.locator("#simulator-code")
    expect(shown).to_be_visible()
    expect(shown).to_be_in_viewport()
    code = shown.get_attribute("data-code") or ""
    expect(shown).to_contain_text(f"the one-time password is {code}")
    return code


def test_the_whole_walk_with_the_code_the_page_shows(tab, shop, payer):
    """Issue 23: a DB with 3-D Secure, the challenge in Chromium, the code a tester reads on the
    page, the shop's shopperResultUrl, then the merchant's GET: a success with ECI 05 and a
    verificationId (the code is the simulator's one, docs/api.md)."""
    data = start_payment(payer, CHALLENGE, amount="49.90")
    open_checkout(tab, shop, data)
    at_challenge(tab)
    code = simulator_code(tab)
    assert code == "1234"
    screenshot(tab, "threeds-challenge-code.png")
    tab.page.fill("#otp", code)
    tab.page.click("#submit")
    back_at_shop(tab, shop, data)
    assert len(tab.posts_to("/challenge")) == 1
    answer = payer.get(data["id"])
    assert SUCCESS.match(answer["result"]["code"]), answer
    authenticated(answer)
    three_ds = answer["threeDSecure"]
    assert (three_ds["eci"], three_ds["authenticationStatus"]) == ("05", "Y")
    assert base64.b64decode(three_ds["verificationId"], validate=True)
    # The shop's GET names the payment it was posted: the same id, the same answer.
    assert shop.results[0]["id"] == answer["id"] == data["id"]


def test_a_wrong_code_then_the_right_one_succeeds(tab, shop, payer):
    data = start_payment(payer, CHALLENGE)
    open_checkout(tab, shop, data)
    at_challenge(tab)
    tab.page.fill("#otp", "123456")
    tab.page.click("#submit")
    expect(tab.page.get_by_role("alert")).to_have_text("Wrong code. 2 attempt(s) left.")
    code = simulator_code(tab)  # still shown after the wrong code
    tab.page.fill("#otp", code)
    tab.page.click("#submit")
    back_at_shop(tab, shop, data)
    authenticated(final(payer, data, "000.000.000"))


def test_challenge_right_code(tab, shop, payer):
    data = start_payment(payer, CHALLENGE)
    open_checkout(tab, shop, data)
    at_challenge(tab)
    details = tab.page.locator("dl")
    for text in ("DEMO SHOP", "10.00 EUR", "•••• 1091"):
        expect(details).to_contain_text(text)
    expect(tab.page.locator("#otp")).to_be_focused()
    tab.page.fill("#otp", "1234")
    tab.page.click("#submit")
    back_at_shop(tab, shop, data)
    authenticated(final(payer, data, "000.000.000"))


def test_challenge_three_wrong_codes(tab, shop, payer):
    data = start_payment(payer, CHALLENGE)
    open_checkout(tab, shop, data)
    at_challenge(tab)
    for left in (2, 1):
        tab.page.fill("#otp", "0000")
        tab.page.click("#submit")
        # Waiting for the new count also waits for the answer page (the old one showed left + 1).
        expect(tab.page.get_by_role("alert")).to_have_text(f"Wrong code. {left} attempt(s) left.")
        expect(tab.page.locator(".hint")).to_contain_text(f"{left} attempt(s) left")
        if left == 2:
            screenshot(tab, "threeds-challenge-wrong-otp.png")
        assert not shop.results
    tab.page.fill("#otp", "0000")
    tab.page.click("#submit")
    back_at_shop(tab, shop, data)
    assert len(tab.posts_to("/challenge")) == 3
    # What issue 23 reported: not a success, ECI 07 and no verificationId (three wrong codes).
    answer = final(payer, data, "100.380.401")
    authenticated(answer, eci="07", status="N")
    assert not answer["threeDSecure"].get("verificationId")


def test_challenge_cancel(tab, shop, payer):
    data = start_payment(payer, CHALLENGE)
    open_checkout(tab, shop, data)
    at_challenge(tab)
    tab.page.click("#cancel")
    back_at_shop(tab, shop, data)
    answer = final(payer, data, "100.396.101")
    assert answer["threeDSecure"] == {"version": "2.2.0"}  # no transStatus: nothing authenticated
    assert ThreeDSAuthentication.objects.get(payment_id=data["id"]).state == "CANCELLED"


def test_method_iframe_then_result(tab, shop, payer):
    data = start_payment(payer, METHOD)
    assert {p["name"] for p in data["redirect"]["parameters"]} == {
        "threeDSSessionData",
        "threeDSMethodURL",
    }
    # The page's clock is frozen, so its 10 s fallback cannot fire: only the iframe's
    # notification can move the page on.
    tab.page.clock.install()
    with tab.page.expect_response(lambda r: r.url.endswith("/method")) as method:
        open_checkout(tab, shop, data)
    request = method.value.request
    auth = ThreeDSAuthentication.objects.get(payment_id=data["id"])
    assert request.url == f"{payer.base_url}/threeds/acs/{auth.pk}/method"
    assert request.method == "POST" and request.frame.name == "threeds-method"  # the hidden iframe
    assert parse_qs(request.post_data or "") == {"threeDSMethodData": [auth.pk]}
    # The iframe's page tells the parent at once; the 10 s fallback must not be what moves on.
    assert _continued_within(tab, seconds=2.0), tab.console
    back_at_shop(tab, shop, data)
    assert len(tab.posts_to("/continue")) == 1
    authenticated(final(payer, data, "000.000.000"))
    auth.refresh_from_db()
    assert auth.method_completed


def _continued_within(tab: Tab, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if tab.posts_to("/continue"):
            return True
        tab.page.wait_for_timeout(50)
    return bool(tab.posts_to("/continue"))


WINDOWS = {"01": (250, 400), "02": (390, 400), "03": (500, 600), "04": (600, 400)}
SCREENSHOTS = {"02": "threeds-challenge-02.png", "05": "threeds-challenge-05.png"}


@pytest.mark.parametrize("window", ["01", "02", "03", "04", "05"])
def test_challenge_window_size(tab, shop, payer, window):
    data = start_payment(payer, CHALLENGE, **{"customer.browser.challengeWindow": window})
    open_checkout(tab, shop, data)
    challenge = at_challenge(tab)
    expect(challenge).to_have_attribute("data-window", window)
    box = challenge.bounding_box()
    if window == "05":  # full window
        assert (box["x"], box["y"], box["width"]) == (0, 0, VIEWPORT["width"])
        assert box["height"] >= VIEWPORT["height"]
    else:
        assert (box["width"], box["height"]) == WINDOWS[window]
    expect(tab.page.locator("#otp")).to_be_in_viewport()
    expect(tab.page.locator("#submit")).to_be_visible()
    if window in SCREENSHOTS:
        screenshot(tab, SCREENSHOTS[window])
    assert tab.page_errors == [] and not shop.results
