"""The 3-D Secure pages in the OpenAPI document (core.schema.documented).

They are browser pages, not API operations: the shop sends the shopper's browser to
`redirect.url` (a payment's answer) with an auto-submitted form, and the pages post to each
other. They are documented so that every path the platform answers is in one place and the
Schemathesis run reaches them (docs/decisions.md, "The OpenAPI document and Schemathesis").
"""

from typing import Any

from core.schema.pages import browser_page, envelope, hex_id_parameter, html

PAGE = (
    "A browser page, not an API: the shopper's browser reaches it by the auto-submitted form "
    "to a payment's redirect.url (redirect.parameters as hidden fields), and the pages post to "
    "each other. An id that is not 32 lowercase hexadecimal digits matches no path."
)
NOT_FOUND = (
    "No such authentication, or an id of another shape (which matches no path): Django's 404, "
    "the envelope (700.100.199)."
)


def _auth_id() -> list[dict[str, Any]]:
    return [hex_id_parameter("auth_id", "The authentication's id (threeDSSessionData).")]


def _form(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"required": False, "content": {"application/x-www-form-urlencoded": {"schema": schema}}}


def _page(operation_id: str, summary: str, **responses: dict[str, Any]) -> dict[str, Any]:
    return browser_page(
        operation_id,
        summary,
        description=PAGE,
        parameters=_auth_id(),
        responses=responses,
        not_found=envelope(NOT_FOUND),
    )


def _flow(name: str, summary: str) -> dict[str, dict[str, Any]]:
    """start and continue: the method step, the challenge, or the result (GET or POST)."""
    shown = html(
        "The method step (a hidden iframe), the challenge page, or the result: a page that "
        "posts id and resourcePath to the shop's shopperResultUrl."
    )
    session = {"threeDSSessionData": {"type": "string", "description": "The auth_id again."}}
    post = _page(f"threeds_{name}_post", summary, **{"200": shown})
    post["requestBody"] = _form(session)
    return {"get": _page(f"threeds_{name}_get", summary, **{"200": shown}), "post": post}


def start_operations() -> dict[str, dict[str, Any]]:
    return _flow("start", "3-D Secure: the page at redirect.url")


def continue_operations() -> dict[str, dict[str, Any]]:
    return _flow("continue", "3-D Secure: after the method step")


def method_operations() -> dict[str, dict[str, Any]]:
    post = _page(
        "threeds_acs_method_post",
        "The ACS's 3DS method URL (in the hidden iframe)",
        **{"200": html("Tells the parent page the method step ran (for any id of that shape).")},
    )
    post["requestBody"] = _form({"threeDSMethodData": {"type": "string"}})
    return {"post": post}


def challenge_operations() -> dict[str, dict[str, Any]]:
    post = _page(
        "threeds_acs_challenge_post",
        "The ACS's challenge: the one-time password, or Cancel",
        **{
            "200": html("The challenge again after a wrong code, or the result page."),
            "403": html("The form's nonce is not this authentication's."),
            "409": html("The authentication has already ended."),
        },
    )
    post["requestBody"] = _form(
        {
            "nonce": {"type": "string", "description": "The challenge form's nonce."},
            "otp": {"type": "string", "description": "The one-time password (1234 succeeds)."},
            "action": {"type": "string", "enum": ["submit", "cancel"]},
        }
    )
    return {"post": post}
