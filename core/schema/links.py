"""OpenAPI links: an answer's value that a following operation takes (a stateful client, or
Schemathesis's stateful phase, follows them). A link names the target by operationId and says
where each value goes: a path or query parameter by its name, a body field in `requestBody`.
tests/core/test_schema.py checks that every target, parameter, body field and answer member a
link names exists."""

from collections.abc import Mapping
from typing import Any


def answer(*pointer: str) -> str:
    """The runtime expression of a member of the 200 answer: answer("merchant", "id")."""
    return "$response.body#/" + "/".join(pointer)


def link(
    operation_id: str,
    description: str,
    *,
    parameters: Mapping[str, str] | None = None,
    body: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A link to `operation_id`: `parameters` by the target's parameter names (path or query),
    `body` by its request body's field names; the values are runtime expressions."""
    out: dict[str, Any] = {"operationId": operation_id, "description": description}
    if parameters:
        out["parameters"] = dict(parameters)
    if body:
        out["requestBody"] = dict(body)
    return out
