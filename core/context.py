"""Per-request context: the ndc (request id) that ties a response, its logs and support together,
and the fields every log line of the request carries (entity, merchant, result code)."""

import contextvars
import uuid
from collections.abc import Mapping
from types import MappingProxyType

_ndc: contextvars.ContextVar[str] = contextvars.ContextVar("ndc", default="-")
_EMPTY: Mapping[str, str] = MappingProxyType({})
_log_fields: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "log_fields", default=_EMPTY
)


def new_ndc() -> str:
    """A fresh request id: 32 hex digits, a hyphen, 8 hex digits (AN69 alphanumeric and hyphen)."""
    return f"{uuid.uuid4().hex}-{uuid.uuid4().hex[:8]}"


def get_ndc() -> str:
    return _ndc.get()


def set_ndc(value: str) -> contextvars.Token[str]:
    return _ndc.set(value)


def reset_ndc(token: contextvars.Token[str]) -> None:
    _ndc.reset(token)


def bind_log(**fields: str) -> None:
    """Put `fields` on every later log line of this request or task (core.logging.NdcFilter):
    who calls (`entity`), for which merchant (`merchant`), what it was answered (`resultCode`).
    Identifiers and codes only: never card data, tokens or secrets."""
    _log_fields.set(MappingProxyType({**_log_fields.get(), **fields}))


def log_fields() -> Mapping[str, str]:
    return _log_fields.get()


def clear_log_fields() -> None:
    """A new request or task starts with no fields of the one before."""
    _log_fields.set(_EMPTY)
