"""The response envelope: nested JSON with id, result, buildNumber, timestamp and ndc."""

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from .build import build_number
from .context import bind_log, get_ndc
from .nesting import nest
from .results import Result


def new_id() -> str:
    """A request or object id: 32 lowercase hex characters (AN32 alphanumeric)."""
    return uuid.uuid4().hex


def timestamp(now: datetime | None = None) -> str:
    """`yyyy-MM-dd HH:mm:ss.SSS+0000`, always UTC."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    return now.strftime("%Y-%m-%d %H:%M:%S.") + f"{now.microsecond // 1000:03d}+0000"


def envelope(
    result: Result,
    *,
    id: str | None = None,
    description: str | None = None,
    data: Mapping[str, Any] | None = None,
    **extra_result: Any,
) -> dict[str, Any]:
    """Build a response body. `data` holds dotted names ("merchant.id") or nested dicts."""
    body: dict[str, Any] = {"id": id or new_id()}
    body.update(nest(dict(data or {})))
    result_block: dict[str, Any] = {
        "code": result.code,
        "description": description or result.description,
    }
    result_block.update(extra_result)
    bind_log(resultCode=result.code)  # the access line's, where the answer is not read back
    body["result"] = result_block
    body["buildNumber"] = build_number()
    body["timestamp"] = timestamp()
    body["ndc"] = get_ndc()
    return body
