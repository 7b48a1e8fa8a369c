"""seed_demo keeps the demo's credentials from run to run (var/demo-credentials.json).

A token or password saved from one `make run` must still work after the next one; `--rotate`
makes new ones; a missing file makes the command rotate what exists and say so. The conftest
points the file at the test's own tmp directory.
"""

import json
import re
import stat
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from merchants.selectors import entity_by_token

pytestmark = pytest.mark.django_db

ROLES = ("participator", "merchant", "staff", "portal")


def seed(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("seed_demo", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def printed(out: str) -> dict[str, str]:
    """The credentials as the command printed them."""
    tokens = re.findall(r"entityType=(PARTICIPATOR|MERCHANT) token=(\S+)", out)
    users = re.findall(r"user=(\S+) password=(\S+)", out)
    found = {kind.lower(): token for kind, token in tokens}
    found.update({"staff" if name == "admin" else "portal": pw for name, pw in users})
    assert set(found) == set(ROLES), out
    return found


def kept_file() -> dict:  # type: ignore[type-arg]
    return json.loads(settings.DEMO_CREDENTIALS_FILE.read_text())


def assert_they_work(creds: dict[str, str]) -> None:
    assert entity_by_token(creds["participator"]).entity_id == "BANK0001"
    assert entity_by_token(creds["merchant"]).entity_id == "10000001"
    assert authenticate(_request(), username="admin", password=creds["staff"]).is_superuser
    assert authenticate(_request(), username="merchant-admin", password=creds["portal"]) is not None


def assert_none_work(creds: dict[str, str]) -> None:
    assert entity_by_token(creds["participator"]) is None
    assert entity_by_token(creds["merchant"]) is None
    assert authenticate(_request(), username="admin", password=creds["staff"]) is None
    assert authenticate(_request(), username="merchant-admin", password=creds["portal"]) is None


def test_a_second_run_prints_the_same_credentials_and_they_keep_working():
    first, _ = seed()
    second, err = seed()

    assert printed(second) == printed(first)
    assert_they_work(printed(second))
    assert err == ""


def test_the_credentials_are_kept_in_a_file_only_its_owner_can_read():
    out, _ = seed("--base-url", "http://127.0.0.1:8301")

    path = settings.DEMO_CREDENTIALS_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = kept_file()
    creds = printed(out)
    assert data["baseUrl"] == "http://127.0.0.1:8301"
    assert data["participator"]["token"] == creds["participator"]
    assert data["merchant"]["token"] == creds["merchant"]
    assert data["staff"] == {"username": "admin", "password": creds["staff"]}
    assert data["portal"] == {"username": "merchant-admin", "password": creds["portal"]}
    assert "kept in" in out and "seed_demo --rotate" in out


def test_rotate_makes_new_credentials_and_the_next_run_keeps_those():
    old = printed(seed()[0])

    rotated = printed(seed("--rotate")[0])
    again = printed(seed()[0])

    assert all(rotated[role] != old[role] for role in ROLES)
    assert_none_work(old)
    assert again == rotated
    assert_they_work(again)


def test_a_deleted_file_rotates_what_exists_and_says_so():
    old = printed(seed()[0])
    settings.DEMO_CREDENTIALS_FILE.unlink()

    out, err = seed()

    new = printed(out)
    assert "was missing" in err
    for what in ("participator token", "merchant token", "staff password", "portal password"):
        assert what in err
    assert all(new[role] != old[role] for role in ROLES)
    assert_they_work(new)
    assert kept_file()["participator"]["token"] == new["participator"]


def test_a_corrupt_file_has_the_credential_it_lacks_rotated_alone():
    old = printed(seed()[0])
    data = kept_file()
    data["participator"]["token"] = "not-the-token"
    settings.DEMO_CREDENTIALS_FILE.write_text(json.dumps(data))

    out, err = seed()

    new = printed(out)
    assert "is corrupt" in err and "participator token" in err
    assert "merchant token" not in err and "password" not in err
    assert new["participator"] != old["participator"]
    assert {r: new[r] for r in ROLES[1:]} == {r: old[r] for r in ROLES[1:]}
    assert_they_work(new)


def test_the_base_url_reaches_every_printed_url():
    out, _ = seed("--base-url", "http://127.0.0.1:8301")

    urls = re.findall(r"https?://\S+", out)
    assert urls and all(url.startswith("http://127.0.0.1:8301/") for url in urls), urls


def _request():  # type: ignore[no-untyped-def]
    """Sign-ins are throttled (django-axes), which wants the request they come in."""
    return RequestFactory().post("/portal/login/")


# --- per database, and what a person changed (issue 32) ------------------------------------------


def test_a_token_changed_in_the_portal_is_kept_and_reported_not_rotated():
    from merchants.models import Entity
    from merchants.services import entity_rotate_token

    old = printed(seed()[0])
    merchant = Entity.objects.get(entity_id="10000001")
    chosen = entity_rotate_token(entity=merchant, changed_by="portal:merchant-admin")

    out, err = seed()

    assert "kept the merchant token" in err and "portal:merchant-admin" in err
    assert "corrupt" not in err and "missing" not in err
    assert "token=(yours: changed since, kept)" in out
    assert entity_by_token(chosen).entity_id == "10000001"  # still the merchant's token
    assert entity_by_token(old["participator"]).entity_id == "BANK0001"  # the others kept
    assert kept_file()["merchant"]["token"] is None
    # --rotate still makes new ones for all.
    rotated = printed(seed("--rotate")[0])
    assert entity_by_token(chosen) is None
    assert entity_by_token(rotated["merchant"]).entity_id == "10000001"


def test_the_file_names_its_database_and_another_databases_file_is_refused():
    from django.core.management.base import CommandError
    from django.db import connection

    from demo.credentials import database_label

    seed()
    assert kept_file()["database"] == database_label(connection.settings_dict)
    data = kept_file()
    data["database"] = "postgresql://127.0.0.1:5432/elsewhere"
    settings.DEMO_CREDENTIALS_FILE.write_text(json.dumps(data))

    with pytest.raises(CommandError, match="another database"):
        seed()
    assert kept_file() == data  # not overwritten


def test_each_database_has_a_file_of_its_own(tmp_path):
    from demo.credentials import demo_credentials_file

    sqlite = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "db.sqlite3")}
    postgres = {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "cardplatform",
        "HOST": "127.0.0.1",
        "PORT": 5432,
        "PASSWORD": "secret",
    }
    default = demo_credentials_file(tmp_path, sqlite, default=True)
    other = demo_credentials_file(tmp_path, postgres, default=False)
    assert default == tmp_path / "var" / "demo-credentials.json"
    assert (
        other == tmp_path / "var" / "demo-credentials-postgresql-127.0.0.1-5432-cardplatform.json"
    )
    assert "secret" not in str(other)
