"""The home page `/` in a real browser: it links the docs, the schema, the admin and the portal,
loads nothing from outside the platform, and each link it offers opens."""

import pytest

from tests.browser.conftest import Tab, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_page_links_what_a_newcomer_needs(live_server, tab: Tab):
    response = tab.page.goto(live_server.url + "/")
    assert response is not None and response.status == 200
    links = {a.inner_text().strip(): a.get_attribute("href") for a in tab.page.locator("a").all()}
    assert links == {
        "API documentation": "/api/docs/",
        "API schema": "/api/schema/",
        "Admin": "/admin/",
        "Merchant portal": "/portal/",
    }
    assert all(r.url.startswith(live_server.url) for r in tab.requests)  # nothing from a CDN
    assert tab.page_errors == []
    assert "coming" not in tab.page.inner_text("body")  # every part it names is there
    screenshot(tab, "home.png")

    tab.page.click("text=Admin")
    assert "/admin/login/" in tab.page.url
    tab.page.goto(live_server.url + "/")
    tab.page.click("text=Merchant portal")
    assert tab.page.locator("h1").inner_text() == "Sign in"  # the portal's own sign-in
    tab.page.goto(live_server.url + "/")

    # Last, because Swagger UI then spends seconds of the page's main thread on a 1.4 MB
    # OpenAPI 3.1 document (more under a loaded CI machine): the page is shown working by what it
    # fetched (its bundle from the platform, its script, then the schema it renders), events the
    # browser reports without the page's main thread.
    with tab.page.expect_response(lambda r: r.url == live_server.url + "/api/schema/") as schema:
        tab.page.click("text=API documentation")
    assert schema.value.status == 200
    assert tab.page.url == live_server.url + "/api/docs/"
    fetched = [r.url for r in tab.requests]
    assert any(u.endswith("/swagger-ui-dist/swagger-ui-bundle.js") for u in fetched)  # sidecar
    assert live_server.url + "/api/docs/?script=" in fetched
    assert all(u.startswith(live_server.url) for u in fetched)  # nothing from a CDN
