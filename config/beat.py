"""Celery beat that schedules only while it holds the leader lease (core.leader): run it as
`celery -A config beat --scheduler config.beat:LeaderScheduler`. A second beat waits, sending
nothing, and takes over within BEAT_LEASE_SECONDS of the first one's death. Without REDIS_URL
(the embedded demo) there is one process and no election: it leads."""

import logging
from typing import Any

from django.conf import settings
from django_celery_beat.schedulers import DatabaseScheduler

from core.leader import Lease

logger = logging.getLogger("config.beat")
KEY = "cardplatform:beat-leader"


class LeaderScheduler(DatabaseScheduler):  # type: ignore[misc]
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        url = settings.REDIS_URL
        self.lease = Lease(url, KEY, ttl=settings.BEAT_LEASE_SECONDS) if url else None
        self.leading: bool | None = True if self.lease is None else None  # None: not asked yet

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if self.lease is not None:
            held = self.lease.hold()
            if held != self.leading:
                if held:
                    logger.warning("beat took the leader lease")
                else:
                    logger.warning(
                        "beat %s the leader lease (held by %s)",
                        "waits for" if self.leading is None else "lost",
                        self.lease.holder() or "nobody",
                    )
            self.leading = held
            if not held:
                return min(self.max_interval, settings.BEAT_LEASE_SECONDS / 3)
        return float(super().tick(*args, **kwargs))

    def close(self) -> None:
        if self.lease is not None and self.leading:
            self.lease.release()  # the next beat takes over at once, not after the lease
        super().close()
