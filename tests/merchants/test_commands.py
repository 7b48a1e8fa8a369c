"""create_entity and seed_demo."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from merchants.models import Entity, Merchant, PortalUser
from merchants.selectors import entity_by_token
from terminals.models import Terminal

pytestmark = pytest.mark.django_db


def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_create_entity_prints_one_json_object_with_a_working_token():
    data = json.loads(
        run(
            "create_entity",
            "--type",
            "PARTICIPATOR",
            "--entity-id",
            "BANK0001",
            "--name",
            "My Bank",
        )
    )
    assert set(data) == {"entityId", "entityType", "token"}
    assert (data["entityId"], data["entityType"]) == ("BANK0001", "PARTICIPATOR")
    entity = entity_by_token(data["token"])
    assert entity.name == "My Bank" and entity.token_last4 == data["token"][-4:]


@pytest.mark.parametrize("entity_id", ["bank0001", "BANK001", "BANK00011", "BANK-001"])
def test_create_entity_refuses_a_malformed_id(entity_id):
    with pytest.raises(CommandError, match="8 uppercase"):
        run("create_entity", "--type", "PARTICIPATOR", "--entity-id", entity_id)
    assert not Entity.objects.exists()


def test_create_entity_refuses_an_existing_id():
    run("create_entity", "--type", "PARTICIPATOR", "--entity-id", "BANK0001")
    with pytest.raises(CommandError, match="already exists"):
        run("create_entity", "--type", "PARTICIPATOR", "--entity-id", "BANK0001")


def test_seed_demo_creates_everything_and_can_run_twice():
    first = run("seed_demo")
    second = run("seed_demo", "--rotate")
    assert Merchant.objects.count() == 1 and Terminal.objects.count() == 1
    assert PortalUser.objects.count() == 1
    assert "curl" in second and "merchant/create" in second
    # The second run rotated the tokens: the printed ones work, the first run's do not.
    token = second.split("PARTICIPATOR token=")[1].split()[0]
    old = first.split("PARTICIPATOR token=")[1].split()[0]
    assert entity_by_token(token).entity_id == "BANK0001"
    assert entity_by_token(old) is None


def test_the_printed_curl_creates_a_merchant(client):
    from tests.curl import curl_commands, replay

    out = run("seed_demo")
    [command] = curl_commands(out[out.index("curl ") :])
    response = replay(client, command.replace("$(date +%s)", "1700000000"), {})
    assert response.status_code == 200, response.json()
    assert response.json()["result"]["code"] == "000.000.100"
    assert len(response.json()["merchant"]["entityId"]) == 8
