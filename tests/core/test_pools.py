"""Django's connection pool across a fork (core/pools.py, config/settings.py): the master
preloads without opening one, and a forked child drops the parent's and opens its own."""

import os
import subprocess
import sys

import pytest
from django.contrib.auth.models import Group
from django.db import connection

from core.pools import forget_inherited_pools, open_pools
from tests.conftest import url_of_test_database

pooled = pytest.mark.skipif(
    connection.vendor != "postgresql" or not connection.settings_dict["OPTIONS"].get("pool"),
    reason="Django's pool: PostgreSQL with DB_POOL",
)


@pooled
def test_loading_the_application_as_gunicorns_master_does_opens_no_pool():
    """preload_app imports config.wsgi in the master: no pool (and no connection) there."""
    code = (
        "import config.wsgi\n"
        "from core.pools import open_pools\n"
        "from django.db import connection\n"
        "print(open_pools(), connection.connection is None)\n"
    )
    env = {**os.environ, "DATABASE_URL": url_of_test_database()}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True"]


@pooled
@pytest.mark.django_db(transaction=True)
def test_a_forked_child_opens_its_own_pool_and_leaves_the_parents_connections_alone():
    Group.objects.create(name="before the fork")
    assert open_pools() == 1
    child = os.fork()
    if child == 0:  # the child: forget, then work on a pool of its own
        status = 1
        try:
            if forget_inherited_pools() == 1 and open_pools() == 0:
                Group.objects.create(name="from the child")
                status = 0 if open_pools() == 1 else 2
            connection.close()
        finally:
            os._exit(status)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # The parent's connection and pool still work: the child closed nothing of theirs.
    assert sorted(Group.objects.values_list("name", flat=True)) == [
        "before the fork",
        "from the child",
    ]
    assert open_pools() == 1
