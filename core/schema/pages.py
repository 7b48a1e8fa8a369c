"""The paths outside DRF in the OpenAPI document: the health check, the issuer's OAuth and JOSE
endpoints, and the pages a browser opens (3-D Secure, the cardholder's page, the home page).

Their views are plain Django views, which drf-spectacular does not see; each is decorated with
`documented`, which attaches its operations (built lazily, when the schema is generated: the
issuer's implemented operations are known only then). `add_documented_views`, a
drf-spectacular postprocessing hook, puts them in the document at the paths the URL conf gives
them. `url_paths` lists every path of the URL conf, for the test that no endpoint is left out.
"""

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, TypeVar

from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import EndpointEnumerator

from ..converters import HexIdConverter
from ..fields import FieldType
from .responses import ENVELOPE_COMPONENT, REQUEST_ID, envelope_schema
from .types import type_schema

OPERATIONS = "openapi_operations"
COMPONENTS = "openapi_components"

Operations = Callable[[], dict[str, dict[str, Any]]]
V = TypeVar("V", bound=Callable[..., Any])


def documented(operations: Operations, components: Operations | None = None) -> Callable[[V], V]:
    """Attach the OpenAPI operations of a view outside DRF: `operations()` gives
    {method: operation object}; `components()` {component type: {name: object}} it refers to."""

    def decorate(view: V) -> V:
        setattr(view, OPERATIONS, cache(operations))
        if components is not None:
            setattr(view, COMPONENTS, cache(components))
        return view

    return decorate


# --- Building blocks ------------------------------------------------------------------------


def path_parameter(name: str, ftype: FieldType, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {**type_schema(ftype), "example": ftype.valid()},
    }


def hex_id_parameter(name: str, description: str) -> dict[str, Any]:
    """An id this platform made (32 lowercase hexadecimal digits: core.converters)."""
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {
            "type": "string",
            "pattern": f"^{HexIdConverter.regex}$",
            "example": "5c2a6f0e9b1d4c7a8e3f2b1a0d9c8b7a",
        },
    }


def response(
    description: str,
    media_type: str | None = None,
    schema: dict[str, Any] | None = None,
    headers: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A response: `media_type` with `schema` (text when no schema is given)."""
    out: dict[str, Any] = {
        "description": description,
        "headers": {"X-Request-Id": REQUEST_ID, **(headers or {})},
    }
    if media_type is not None:
        out["content"] = {media_type: {"schema": schema or {"type": "string"}}}
    return out


def html(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    return response(description, "text/html", {"type": "string"}, headers)


def envelope(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    """The platform's JSON envelope (core.envelope), as Django's error handlers answer it."""
    ref = {"$ref": f"#/components/schemas/{ENVELOPE_COMPONENT}"}
    return response(description, "application/json", ref, headers)


SERVER_ERROR = "An unexpected error: the envelope with 999.999.999, logged with the ndc."


def browser_page(
    operation_id: str,
    summary: str,
    *,
    description: str,
    parameters: list[dict[str, Any]],
    responses: dict[str, Any],
    not_found: dict[str, Any],
) -> dict[str, Any]:
    """A browser page's operation (tagged "browser pages", no security scheme), with its 404
    and the envelope of an unexpected error."""
    return {
        "operationId": operation_id,
        "tags": ["browser pages"],
        "summary": summary,
        "description": description,
        "security": [],
        "parameters": parameters,
        "responses": {**responses, "404": not_found, "500": envelope(SERVER_ERROR)},
    }


PORTAL = (
    "A page of the merchant portal (a browser page, not an API), for a merchant's administrator "
    "signed in at /portal/login/ (a session cookie). Not signed in: a redirect to the sign-in page."
)


def portal_page(
    operation_id: str,
    summary: str,
    responses: dict[str, Any],
    *,
    parameters: list[dict[str, Any]] | None = None,
    form: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A merchant portal page's operation: its answers, the redirect to the sign-in page, the
    CSRF refusal of a form posted from elsewhere, and 404 (the envelope) for what is not the
    signed-in merchant's."""
    operation = browser_page(
        operation_id,
        summary,
        description=PORTAL,
        parameters=parameters or [],
        responses={
            "302": response(
                "Not signed in: to /portal/login/; or where the form leads on.",
                headers={"Location": {"schema": {"type": "string"}}},
            ),
            **responses,
        },
        not_found=envelope("Not a portal user, or not the signed-in merchant's (700.100.199)."),
    )
    operation["tags"] = ["merchant portal"]
    if form:
        operation["requestBody"] = {
            "required": True,
            "content": {
                "application/x-www-form-urlencoded": {
                    "schema": {
                        "type": "object",
                        "properties": {name: {"type": "string"} for name in form},
                    }
                }
            },
        }
        operation["responses"]["403"] = html(
            "Django's CSRF check (the form was not posted from the page), or too many failed "
            "sign-ins."
        )
    return operation


# --- The postprocessing hook -----------------------------------------------------------------


class _DocumentedViews(EndpointEnumerator):
    """The URL conf's views that carry `documented` operations, with their paths."""

    def should_include_endpoint(self, path: str, callback: Any) -> bool:
        return hasattr(callback, OPERATIONS)

    def get_allowed_methods(self, callback: Any) -> list[str]:
        return [method.upper() for method in getattr(callback, OPERATIONS)()]


def add_documented_views(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the documented views' operations and components."""
    paths = result.setdefault("paths", {})
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.setdefault(ENVELOPE_COMPONENT, envelope_schema())
    for path, _regex, method, callback in _DocumentedViews().get_api_endpoints():
        operations = getattr(callback, OPERATIONS)()
        paths.setdefault(path, {})[method.lower()] = operations[method.lower()]
        for kind, named in (getattr(callback, COMPONENTS, lambda: {})()).items():
            components.setdefault(kind, {}).update(named)
    result["paths"] = dict(sorted(paths.items()))
    return result


# --- Every path of the URL conf ----------------------------------------------------------------


def url_paths() -> Iterator[tuple[str, Any]]:
    """(OpenAPI path, callback) of every pattern of the URL conf."""
    enumerator = EndpointEnumerator()

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, Any]]:
        for pattern in patterns:
            regex = prefix + str(pattern.pattern)
            if isinstance(pattern, URLPattern):
                yield enumerator.get_path_from_regex(regex), pattern.callback
            elif isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, regex)

    yield from walk(get_resolver().url_patterns, "")
