"""A leader lease in Redis: of several processes asking, one holds it at a time, for `ttl`
seconds unless it renews it; a holder that dies loses it when its lease runs out. Celery beat
takes it before it sends anything (config/beat.py), so two beats (a pod Kubernetes started while
the old one still ran on a vanished node) never schedule twice.

Why Redis, not a PostgreSQL advisory lock: behind PgBouncer in transaction mode a session's
advisory lock does not stay with the process that took it; Redis is the broker beat needs
anyway, and without Redis there is no beat to elect."""

import contextlib
import secrets
import socket
from typing import Any

import redis

# Renew only one's own lease; release only one's own (a lease that ran out may be another's).
_RENEW = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
)
_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end"
)


class Lease:
    def __init__(self, url: str, key: str, *, ttl: float, client: Any = None) -> None:
        self.key, self.ttl_ms = key, int(ttl * 1000)
        self.client = client or redis.Redis.from_url(
            url, socket_timeout=3, socket_connect_timeout=3
        )
        self.token = f"{socket.gethostname()}:{secrets.token_hex(8)}"

    def hold(self) -> bool:
        """Take or renew the lease; whether this process holds it now. Redis out of reach: no
        (nobody leads while the broker is gone)."""
        try:
            if self.client.eval(_RENEW, 1, self.key, self.token, self.ttl_ms):
                return True
            return bool(self.client.set(self.key, self.token, nx=True, px=self.ttl_ms))
        except redis.RedisError:
            return False

    def holder(self) -> str:
        try:
            value = self.client.get(self.key)
        except redis.RedisError:
            return ""
        if isinstance(value, bytes):
            return value.decode()
        return str(value or "")

    def release(self) -> None:
        with contextlib.suppress(redis.RedisError):
            self.client.eval(_RELEASE, 1, self.key, self.token)
