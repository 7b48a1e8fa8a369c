"""The OpenAPI schema (generated from the tables) and the Swagger UI served without a CDN."""

import pytest
from django.core.management import call_command


def resolved(document, schema):
    """`schema`, or the component its `$ref` names."""
    while "$ref" in schema:
        node = document
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


@pytest.mark.django_db
def test_schema_is_valid_and_describes_form_fields(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    create = schema["paths"]["/pay/v3/merchant/create"]["post"]
    form = create["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    form = resolved(schema, form)  # the body is a component, shared with application/json
    assert form["properties"]["merchant.postcode"]["maxLength"] == 10
    assert "merchant.name" in form["required"] and "merchant.website" not in form["required"]
    assert form["properties"]["merchant.aggregatorType"]["enum"] == ["P", "M"]
    inquiry = schema["paths"]["/pay/v3/merchant/Inquiry"]["get"]
    assert {p["name"] for p in inquiry["parameters"]} >= {"entityId", "entityType", "merchant.id"}


def test_schema_generation_has_no_warnings(tmp_path, capsys):
    call_command(
        "spectacular", "--file", str(tmp_path / "schema.yml"), "--validate", "--fail-on-warn"
    )


@pytest.mark.django_db
def test_swagger_ui_uses_local_assets_only(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "swagger-ui" in html
    assert "cdn." not in html and "unpkg" not in html and "jsdelivr" not in html
