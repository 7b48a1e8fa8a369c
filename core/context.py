"""Per-request context: the ndc (request id) that ties a response, its logs and support together."""

import contextvars
import uuid

_ndc: contextvars.ContextVar[str] = contextvars.ContextVar("ndc", default="-")


def new_ndc() -> str:
    """A fresh request id: 32 hex digits, a hyphen, 8 hex digits (AN69 alphanumeric and hyphen)."""
    return f"{uuid.uuid4().hex}-{uuid.uuid4().hex[:8]}"


def get_ndc() -> str:
    return _ndc.get()


def set_ndc(value: str) -> contextvars.Token[str]:
    return _ndc.set(value)


def reset_ndc(token: contextvars.Token[str]) -> None:
    _ndc.reset(token)
