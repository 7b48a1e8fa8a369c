"""Building 3-D Secure payment requests and walking the pages without a browser."""

import re

SHOPPER_RESULT_URL = "http://127.0.0.1:9/shop/result"

BROWSER = {
    "customer.browser.acceptHeader": "text/html,application/xhtml+xml",
    "customer.browser.language": "en-US",
    "customer.browser.userAgent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0",
    "customer.browser.javascriptEnabled": "true",
    "customer.browser.javaEnabled": "false",
    "customer.browser.screenHeight": "1080",
    "customer.browser.screenWidth": "1920",
    "customer.browser.timezone": "-60",
    "customer.browser.screenColorDepth": "24",
    "customer.browser.challengeWindow": "05",
}
BILLING = {
    "billing.street1": "1 Main Street",
    "billing.city": "Berlin",
    "billing.postcode": "10115",
    "billing.country": "DE",
    "customer.email": "jane@example.com",
    "customer.givenName": "Jane",
    "customer.surname": "Doe",
}


def threeds_fields(**overrides):
    return {
        "threeDSecure.indicator": "true",
        "shopperResultUrl": SHOPPER_RESULT_URL,
        **BROWSER,
        **BILLING,
        **overrides,
    }


def form_action_and_fields(html: str, form_id: str) -> tuple[str, dict[str, str]]:
    form = re.search(
        rf'<form id="{form_id}" method="post" action="([^"]+)"[^>]*>(.*?)</form>', html, re.S
    )
    assert form, html[:2000]
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(2)))
    return form.group(1), fields


def nonce_of(html: str) -> str:
    return re.search(r'name="nonce" value="([^"]+)"', html).group(1)
