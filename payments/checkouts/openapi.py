"""The hosted checkout's pages in the OpenAPI document (core.schema.documented): browser pages,
not API operations, documented so every path the platform answers is in one place."""

from typing import Any

from core.schema.pages import browser_page, envelope, hex_id_parameter, html

PAGE = (
    "A browser page, not an API: the shopper's browser opens a checkout's redirect.url. An id "
    "that is not 32 lowercase hexadecimal digits matches no path."
)


# An unknown checkout: the page's own "not found" page; an id of another shape matches no path,
# and Django's 404 answers the envelope (700.100.199).
NOT_FOUND = html("No such checkout: a page saying so; an id of another shape: the envelope.")
NOT_FOUND["content"]["application/json"] = envelope("")["content"]["application/json"]


def _page(operation_id: str, summary: str, **responses: dict[str, Any]) -> dict[str, Any]:
    return browser_page(
        operation_id,
        summary,
        description=PAGE,
        parameters=[hex_id_parameter("checkout_id", "The checkout's id.")],
        responses=responses,
        not_found=NOT_FOUND,
    )


def _card_form() -> dict[str, Any]:
    text = {"type": "string"}
    properties = {
        name: text
        for name in (
            "csrfmiddlewaretoken",
            "source",
            "card.number",
            "card.holder",
            "card.expiryMonth",
            "card.expiryYear",
            "card.cvv",
            "stored.cvv",
        )
    }
    schema = {"type": "object", "properties": properties}
    return {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def page_operations() -> dict[str, dict[str, Any]]:
    closed = {
        "409": html("The checkout was used already: a page with a way back to the shop."),
        "410": html("The checkout expired: a page with a way back to the shop."),
    }
    post = _page(
        "checkout_page_post",
        "Hosted checkout: pay with a card or a stored card",
        **{
            "200": html(
                "On to 3-D Secure, or back to the shop's shopperResultUrl (id, resourcePath): "
                "an auto-submitted form."
            ),
            "400": html("The card details are not valid: the form again, with the problems."),
            "403": html("Django's CSRF check: the form was not posted from the page."),
            **closed,
        },
    )
    post["requestBody"] = _card_form()
    return {
        "get": _page(
            "checkout_page_get",
            "Hosted checkout: the payment page",
            **{"200": html("The payment page."), **closed},
        ),
        "post": post,
    }


def result_operations() -> dict[str, dict[str, Any]]:
    shown = html("Back to the shop's shopperResultUrl (id, resourcePath): an auto-submitted form.")
    post = _page("checkout_result_post", "Hosted checkout: back from 3-D Secure", **{"200": shown})
    post["requestBody"] = {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {"type": "object", "properties": {"id": {"type": "string"}}}
            }
        },
    }
    return {
        "get": _page(
            "checkout_result_get", "Hosted checkout: back from 3-D Secure", **{"200": shown}
        ),
        "post": post,
    }
