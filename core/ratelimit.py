"""Rate limiting per entity on the API (issue 22): one merchant's retry storm must not starve the
others. `API_RATE_LIMIT` ("100/s", "3000/m", "N/h"; empty: off) is what each entity may send in
one window; a request over it is refused before its view runs with HTTP 429, result code
800.120.100 and `Retry-After` (the seconds until the window ends). Nothing of it is written.

The count is a fixed window in Django's cache, incremented atomically (`cache.incr`): Redis when
REDIS_URL is set, so every gunicorn worker and node shares it; a per-process memory otherwise
(`make run`: each process counts alone). A fixed window lets a client send up to twice the
limit across a window's edge; it is a guard against storms, not a billing meter.

The key is the entity the bearer token belongs to (a participator acting for its merchants counts
as itself), or the issuer API's client_id once its access token is verified: a request that
fails authentication is refused before it is counted, so nobody can spend another's budget.
"""

import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from . import metrics

_RATE = re.compile(r"^\s*([1-9][0-9]*)\s*/\s*(s|sec|second|m|min|minute|h|hour)\s*$")
_PERIODS = {"s": 1, "m": 60, "h": 3600}


@dataclass(frozen=True)
class Rate:
    requests: int
    seconds: int


def parse_rate(text: str) -> Rate | None:
    """ "100/s" -> Rate(100, 1); "" -> None (no limit). Anything else is a configuration error."""
    if not text.strip():
        return None
    match = _RATE.match(text)
    if match is None:
        raise ImproperlyConfigured(
            f"API_RATE_LIMIT={text!r}: write requests per window, as 100/s, 3000/m or 50000/h"
        )
    return Rate(int(match.group(1)), _PERIODS[match.group(2)[0]])


def configured_rate() -> Rate | None:
    return parse_rate(getattr(settings, "API_RATE_LIMIT", ""))


def over_limit(key: str, *, group: str, now: float | None = None) -> int | None:
    """Count one request of `key`; the seconds to wait when it is over the limit, else None."""
    rate = configured_rate()
    if rate is None:
        return None
    moment = time.time() if now is None else now
    window = int(moment // rate.seconds)
    name = f"ratelimit:{key}:{rate.seconds}:{window}"
    cache.add(name, 0, timeout=rate.seconds + 1)  # the window's counter, if it is new
    try:
        count = cache.incr(name)
    except ValueError:  # expired between add and incr: a new window's first request
        cache.add(name, 1, timeout=rate.seconds + 1)
        count = 1
    if count <= rate.requests:
        return None
    metrics.rate_limited(group)
    return max(1, math.ceil((window + 1) * rate.seconds - moment))


class EntityRateThrottle(BaseThrottle):
    """DRF's throttle for every API view (REST_FRAMEWORK's DEFAULT_THROTTLE_CLASSES), after
    authentication: keyed by the token's entity. core.errors answers DRF's Throttled."""

    def allow_request(self, request: Request, view: object) -> bool:
        principal = request.user
        entity = getattr(principal, "token_entity", None)
        if entity is None:  # unauthenticated views (the schema): not an entity's traffic
            return True
        self._wait = over_limit(
            f"entity:{entity.entity_id}", group=metrics.endpoint_group(request.path)
        )
        return self._wait is None

    def wait(self) -> float | None:
        return getattr(self, "_wait", None)
