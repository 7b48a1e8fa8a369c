"""The answers every spec operation documents: the envelope (core.envelope) for 200 and for each
refusal core.errors.error_answer makes (400, 401, 403, 404, 405, 406, 413, 415, 500, 503), and
the headers that go with them."""

from typing import Any

from ..fields import Timestamp
from .types import type_schema

RESULT_CODE = r"^[0-9]{3}\.[0-9]{3}\.[0-9]{3}$"
# core.context.new_ndc: 32 hex digits, a hyphen, 8 hex digits.
NDC = r"^[0-9a-f]{32}-[0-9a-f]{8}$"
ENVELOPE_COMPONENT = "Envelope"


def result_schema() -> dict[str, Any]:
    """`result`: the code and its description; parameterErrors on a 400; a payment's AVS, CVV
    and MAC answers."""
    text = {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "pattern": RESULT_CODE,
                "description": "The outcome (docs/api.md, Result codes).",
            },
            "description": {**text, "description": "What the code means, or what went wrong."},
            "parameterErrors": {
                "type": "array",
                "description": "Every invalid or missing parameter (at most 50), by dotted name.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": text,
                        "value": {
                            "type": ["string", "null"],
                            "description": "As sent (card data and secrets as ***), or null.",
                        },
                        "message": text,
                    },
                    "required": ["name", "value", "message"],
                    "additionalProperties": False,
                },
            },
            "avsResponse": {**text, "description": "Payments: the address check's answer."},
            "cvvResponse": {**text, "description": "Payments: the CVV check's answer."},
            "macResponse": {**text, "description": "Payments: the merchant advice code."},
        },
        "required": ["code", "description"],
        "additionalProperties": False,
    }


def envelope_properties() -> dict[str, Any]:
    return {
        "id": {
            "type": "string",
            "pattern": "^[a-z0-9]{32}$",
            "description": "This request, or the payment.",
        },
        "result": result_schema(),
        "buildNumber": {"type": "string", "description": "Commit id @ build date-time."},
        "timestamp": {**type_schema(Timestamp()), "example": Timestamp().valid()},
        "ndc": {
            "type": "string",
            "pattern": NDC,
            "description": "This request's id (also the X-Request-Id header): quote it.",
        },
    }


ENVELOPE_REQUIRED = ["id", "result", "buildNumber", "timestamp", "ndc"]


def envelope_schema(data: dict[str, Any] | None = None) -> dict[str, Any]:
    """The envelope with the answer's own members (`data`: an answer_schema) beside it."""
    properties = envelope_properties()
    if data is not None:
        for name, schema in data["properties"].items():
            assert name not in properties, f"{name} is an envelope member"
            properties[name] = schema
    return {
        "type": "object",
        "properties": properties,
        "required": ENVELOPE_REQUIRED,
        "additionalProperties": False,
    }


def header(description: str, *, pattern: str | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    return {"description": description, "required": True, "schema": schema}


REQUEST_ID = header("This request's ndc (the envelope's `ndc`).", pattern=NDC)

# Status -> when; every one answers the envelope with result.code 200.100.101 unless said.
REFUSALS = {
    400: "Invalid or missing parameters (200.300.404, `result.parameterErrors` names each one), "
    "or a body that is not valid form data or JSON (200.100.101). Nothing is written.",
    401: "The Authorization: Bearer header is missing, malformed or wrong (800.900.300).",
    403: "The token may not act for that entityId/entityType, or the operation is not for this "
    "entity type (800.900.301).",
    404: "The merchant, terminal or payment does not exist for this caller (700.100.1xx).",
    405: "The method is not allowed here (200.100.101; the `Allow` header lists those that are). "
    "Checked before authentication.",
    406: "The Accept header admits no JSON (200.100.101): every answer is JSON.",
    413: "The body is larger than the limit (200.100.101; docs/api.md, Limits).",
    415: "The body's Content-Type is neither form data nor JSON (200.100.101).",
    429: "Too many requests of the calling entity in this window (800.120.100): retry after "
    "`Retry-After` seconds (API_RATE_LIMIT, docs/operations.md, Rate limiting). Nothing is "
    "written.",
    500: "An unexpected error (999.999.999); it is logged with the ndc.",
    503: "The platform's database cannot be reached now (800.800.800): retry after `Retry-After` "
    "seconds with the same merchantTransactionId (docs/operations.md, Faults).",
}


def envelope_response(description: str, ref: str, **headers: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": description,
        "headers": {"X-Request-Id": REQUEST_ID, **headers},
        "content": {"application/json": {"schema": {"$ref": ref}}},
    }


def refusals(ref: str, statuses: tuple[int, ...] = tuple(REFUSALS)) -> dict[str, Any]:
    """The refusals of a spec operation, each the envelope at `ref`."""
    out: dict[str, Any] = {}
    for status in statuses:
        headers = {}
        if status == 401:
            headers["WWW-Authenticate"] = header('`Bearer realm="api"`')
        if status == 405:
            headers["Allow"] = header("The methods this path answers.")
        if status in (429, 503):
            headers["Retry-After"] = header("Seconds to wait before retrying.", pattern="^[0-9]+$")
        out[str(status)] = envelope_response(REFUSALS[status], ref, **headers)
    return out
