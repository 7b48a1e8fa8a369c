"""Beat's leader lease (issue 36): of two beats one schedules, the other waits and takes over
when the first stops or dies (its lease runs out); Redis out of reach, nobody leads."""

import time
import uuid

import pytest
from django.conf import settings

from core.leader import Lease


@pytest.fixture
def redis_url():
    if not settings.REDIS_URL:
        pytest.skip("needs Redis (set REDIS_URL)")
    return settings.REDIS_URL


def test_one_holds_the_other_waits_and_takes_over_when_it_runs_out(redis_url):
    key = f"test:leader:{uuid.uuid4().hex}"
    first, second = Lease(redis_url, key, ttl=0.4), Lease(redis_url, key, ttl=0.4)
    assert first.hold() and not second.hold()
    assert first.holder() == first.token
    time.sleep(0.25)
    assert first.hold() and not second.hold()  # renewed
    time.sleep(0.6)  # the first died without releasing: its lease runs out
    assert second.hold() and not first.hold()
    second.release()
    assert first.hold()  # released: taken at once
    first.release()


def test_a_release_never_frees_another_ones_lease(redis_url):
    key = f"test:leader:{uuid.uuid4().hex}"
    first, second = Lease(redis_url, key, ttl=5), Lease(redis_url, key, ttl=5)
    assert first.hold()
    second.release()
    assert not second.hold()
    first.release()


def test_nobody_leads_while_redis_is_out_of_reach():
    lease = Lease("redis://127.0.0.1:1/0", "test:leader:none", ttl=5)
    assert not lease.hold() and lease.holder() == ""
    lease.release()  # no error


def test_beat_sends_nothing_while_another_leads(redis_url, settings, monkeypatch):
    from config import beat

    monkeypatch.setattr(beat, "KEY", f"test:beat:{uuid.uuid4().hex}")
    other = Lease(redis_url, beat.KEY, ttl=5)
    assert other.hold()
    sent = []
    monkeypatch.setattr(beat.DatabaseScheduler, "tick", lambda self, *a, **k: sent.append(1) or 1.0)
    monkeypatch.setattr(beat.DatabaseScheduler, "__init__", lambda self, *a, **k: None)
    scheduler = beat.LeaderScheduler()
    scheduler.max_interval = 5
    assert scheduler.tick() <= 5 and sent == []  # waits, sends nothing
    other.release()
    assert scheduler.tick() == 1.0 and sent == [1]  # took over
    scheduler.lease.release()
