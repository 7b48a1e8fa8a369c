"""The OpenAPI document agrees with the API (issue 9 item 12): every endpoint is in it, every
pattern is an anchored ECMA 262 regular expression that matches its own example, every example
validates (and the documented request bodies are accepted when posted), bodies are required and
closed, GET is listed only where the API answers it, query parameters carry the body fields'
rules, the refusals are documented, and every link names a real operation, parameter, body
field and answer member."""

import json
import re
import re._constants as sre_constants  # the structure of a pattern, as re reads it
import re._parser as sre_parse
import uuid
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer

from core.errors import ParameterError
from core.fields import LETTER
from core.schema.pages import url_paths
from core.tables import F, Table
from core.views import unknown_api_path
from payments.api.tables import PAYMENT
from tests.conftest import SpecClient
from tests.factories import TerminalFactory
from tests.payments.conftest import card

METHODS = ("get", "post", "put", "patch", "delete")
REFUSALS = ("400", "401", "403", "404", "405", "413", "415", "500", "503")

# URL conf paths that are not in the document, and why.
NOT_DOCUMENTED = {
    "/admin/": "the Django admin: staff pages behind a session login, not an API",
    "/api/": "the OpenAPI document itself and its browsable renderings (Swagger UI, ReDoc)",
}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated))


def resolved(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = document
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def spec_operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """The operations of the spec views (the entity's bearer token)."""
    for path, method, operation in operations(document):
        if operation.get("security") and "entityBearer" in operation["security"][0]:
            yield path, method, operation


def walk(node: Any, where: str = "#") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, f"{where}/{index}")


def validator(schema: dict[str, Any]) -> Any:
    return jsonschema_rs.Draft202012Validator(schema)


def _python(pattern: str) -> str:
    """A JSON Schema pattern as Python's parser reads its structure (`\\p{L}` is one class)."""
    return pattern.replace(r"\p{L}", "[a-z]")


# --- Patterns ---------------------------------------------------------------------------------


def patterns(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for where, node in walk(document):
        if isinstance(node.get("pattern"), str):
            yield where, node["pattern"]
        for name in node.get("patternProperties", {}):
            yield f"{where}/patternProperties", name


def test_every_pattern_compiles_is_anchored_and_keeps_its_alternation_in_a_group(document):
    found = list(patterns(document))
    assert len(found) > 300
    for where, pattern in found:
        validator({"type": "string", "pattern": pattern})  # ECMA 262, as Schemathesis reads it
        # `^0[1-9]|1[0-2]$` parses as one alternation of `^0[1-9]` and `1[0-2]$`: the anchors
        # are the pattern's first and last items only when every alternation is in a group.
        nodes = list(sre_parse.parse(_python(pattern)))
        assert nodes[0] == (sre_constants.AT, sre_constants.AT_BEGINNING), f"{where}: {pattern}"
        assert nodes[-1] == (sre_constants.AT, sre_constants.AT_END), f"{where}: {pattern}"


def test_card_expiry_month_pattern_groups_its_alternation(document):
    body = resolved(document, body_schema(document, "/pay/v3/payments"))
    month = body["properties"]["card.expiryMonth"]
    assert month["pattern"] == "^(?:0[1-9]|1[0-2])$"
    check = validator(month)
    assert [check.is_valid(v) for v in ("01", "09", "10", "12")] == [True] * 4
    # `^0[1-9]|1[0-2]$` took 13 (ends in 1[0-2]... no: "013"), 01x and x12: all refused now.
    assert not any(check.is_valid(v) for v in ("00", "13", "1", "01x", "x12", "012"))


def test_every_example_matches_its_schema(document):
    checked = 0
    for where, node in walk(document):
        if "example" in node and node.get("type") == "string":
            schema = {k: v for k, v in node.items() if k not in ("example", "description")}
            assert validator(schema).is_valid(node["example"]), (where, node["example"])
            checked += 1
    assert checked > 300


def test_every_repeated_group_and_map_row_is_documented_by_a_name_the_api_accepts(document):
    body = resolved(document, body_schema(document, "/pay/v3/payments"))
    names = body["properties"]
    for pattern, schema in body["patternProperties"].items():
        # One documented name the pattern stands for, with the pattern's own schema (a literal
        # key such as customParameters[ReqAuthMethod] matches too, and must meet both).
        concrete = [name for name in names if re.fullmatch(pattern, name)]
        own = [
            n for n in concrete if {k: v for k, v in names[n].items() if k != "example"} == schema
        ]
        assert own, pattern
    for placeholder in ("cart.items[n].name", "customParameters[*]"):
        assert placeholder not in names
    assert "cart.items[0].name" in names and "customParameters[ref]" in names
    accepted = PAYMENT.validate(
        {
            "cart.items[0].name": "Pen",
            "cart.items[1].name": "Ink",
            "customParameters[ref]": "x",
            "customParameters[SHOPPER_orderNo]": "42",
        },
        partial=True,
        run_rules=False,
    )
    for name in accepted:
        assert name in names or any(re.fullmatch(p, name) for p in body["patternProperties"])


def test_an_index_in_another_scripts_digits_is_not_an_index():
    table = Table([F("cart.items[n].name", PAYMENT.by_name["cart.items[n].name"].type)])
    with pytest.raises(ParameterError) as refused:
        table.validate({"cart.items[٠].name": "Pen"})
    assert refused.value.errors[0][2] == "unknown parameter"


def test_the_schemas_letter_is_the_validators_letter():
    letter = validator({"type": "string", "pattern": r"^\p{L}$"})
    python = re.compile(LETTER)
    sample = "AzéßŁżЖжΩ北京一ㄱあ" + "0٣²½Ⅷ_ -'.\u0301\u093f"
    for char in sample:
        assert bool(python.fullmatch(char)) == letter.is_valid(char), char


# --- Request bodies, parameters, methods --------------------------------------------------------


def body_schema(document: dict[str, Any], path: str, method: str = "post") -> dict[str, Any]:
    operation = document["paths"][path][method]
    return operation["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]


def test_spec_request_bodies_are_required_closed_and_shared_by_form_and_json(document):
    for path, method, operation in spec_operations(document):
        if method in ("get", "delete"):  # their fields are query parameters
            assert "requestBody" not in operation, path
            continue
        body = operation["requestBody"]
        assert body["required"] is True, path
        content = body["content"]
        assert set(content) == {"application/x-www-form-urlencoded", "application/json"}
        assert (
            content["application/json"]["schema"]
            == content["application/x-www-form-urlencoded"]["schema"]
        )
        schema = resolved(document, content["application/json"]["schema"])
        assert schema["additionalProperties"] is False, path
        assert {"entityId", "entityType"} <= set(schema["required"]), path


def test_every_request_body_of_an_api_operation_is_required(document):
    """The spec operations, the issuer's JOSE API and token endpoint, the cardholder's answer
    (a 3-D Secure page is also opened without a form)."""
    for path, _method, operation in operations(document):
        if "requestBody" in operation and not path.startswith("/threeds/"):
            assert operation["requestBody"]["required"] is True, path


def test_every_documented_example_body_matches_its_schema(document):
    checked = 0
    for path, _method, operation in operations(document):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            schema = resolved(document, media["schema"])
            values = [e["value"] for e in media.get("examples", {}).values()]
            if "example" in media:
                values.append(media["example"])
            for value in values:
                errors = [e.message for e in validator(schema).iter_errors(value)]
                assert not errors, (path, errors)
                checked += 1
    assert checked >= 40


def test_get_is_documented_only_where_the_api_answers_it(document):
    paths = document["paths"]
    assert "get" not in paths["/pay/v3/payments"] and "get" not in paths["/pay/v21/payments"]
    assert set(paths["/pay/v3/payments/{payment_id}"]) == {"get", "post"}


@pytest.mark.django_db
def test_every_documented_method_is_answered_and_no_other(document):
    """On every path under the API's prefixes and the issuer's: GET and POST answer 405 exactly
    when the document does not list them (the method is checked before anything else)."""
    client = Client()
    for path, item in document["paths"].items():
        if not path.startswith(("/pay/", "/issuer/v1/", "/oauth2/", "/.well-known/")):
            continue
        url = path
        for parameter in item.get("post", item.get("get", {})).get("parameters", []):
            if parameter["in"] == "path":
                value = parameter["schema"].get("example") or parameter["schema"]["enum"][0]
                url = url.replace("{" + parameter["name"] + "}", value)
        for method in ("get", "post"):
            status = getattr(client, method)(url).status_code
            assert (status == 405) == (method not in item), (method, path, status)


def test_query_parameters_carry_the_rules_of_the_body_fields(document):
    for path in ("/pay/v3/merchant/Inquiry", "/pay/v3/terminal/Inquiry"):
        body = resolved(document, body_schema(document, path))
        for parameter in document["paths"][path]["get"]["parameters"]:
            assert parameter["in"] == "query"
            field = dict(body["properties"][parameter["name"]])
            assert parameter["description"] == field.pop("description")
            assert parameter["schema"] == field, parameter
            assert parameter["required"] == (parameter["name"] in body.get("required", ())), path
    inquiry = document["paths"]["/pay/v3/payments/{payment_id}"]["get"]["parameters"]
    by_name = {p["name"]: p for p in inquiry}
    assert by_name["payment_id"]["in"] == "path"
    assert by_name["payment_id"]["schema"]["pattern"] == "^(?:[A-Za-z0-9]{32})$"
    assert by_name["merchantTransactionId"]["schema"]["minLength"] == 32
    assert by_name["entityType"]["schema"]["enum"] == ["MERCHANT", "POS", "PARTICIPATOR"]


def test_entity_type_lists_the_callers_of_the_operation(document):
    create = resolved(document, body_schema(document, "/pay/v3/merchant/create"))
    assert create["properties"]["entityType"]["enum"] == ["PARTICIPATOR"]
    pay = resolved(document, body_schema(document, "/pay/v3/payments"))
    assert pay["properties"]["entityType"]["enum"] == ["MERCHANT", "POS", "PARTICIPATOR"]


def test_referenced_paths_take_only_their_payment_types(document):
    by_path = resolved(document, body_schema(document, "/pay/v3/payments/{payment_id}"))
    assert by_path["properties"]["paymentType"]["enum"] == ["CP", "RV", "RF", "PR"]
    reversal = resolved(document, body_schema(document, "/pay/v21/payments"))
    assert reversal["properties"]["paymentType"]["enum"] == ["RV"]


# --- Responses ----------------------------------------------------------------------------------


def test_spec_operations_document_every_refusal_with_the_envelope(document):
    for path, method, operation in spec_operations(document):
        responses = operation["responses"]
        assert {"200", *REFUSALS} <= set(responses), (method, path)
        for status in REFUSALS:
            media = responses[status]["content"]["application/json"]
            assert media["schema"] == {"$ref": "#/components/schemas/Envelope"}, (path, status)
            assert responses[status]["headers"]["X-Request-Id"]["required"] is True
        assert responses["405"]["headers"]["Allow"]["required"] is True
        assert responses["503"]["headers"]["Retry-After"]["required"] is True
        answer = resolved(document, responses["200"]["content"]["application/json"]["schema"])
        assert {"id", "result", "buildNumber", "timestamp", "ndc"} <= set(answer["required"])


def test_the_issuer_api_documents_jose_both_ways_and_its_refusals(document):
    operation = document["paths"]["/issuer/v1/{group}/{operation}"]["post"]
    assert set(operation["requestBody"]["content"]) == {"application/jose"}
    assert set(operation["responses"]["200"]["content"]) == {"application/jose"}
    assert {"401", "403", "404", "405", "413", "415"} <= set(operation["responses"])
    parameters = {p["name"]: p["schema"]["enum"] for p in operation["parameters"]}
    # Every entry of the catalogue (issue 14; issue 5 built the Authentication group).
    from issuer.catalogue import CATALOGUE

    assert parameters == {
        "group": sorted({group for group, _ in CATALOGUE}),
        "operation": sorted({name for _, name in CATALOGUE}),
    }
    assert {"OOBResultInquiry", "SendOTP", "StartOOBAuthen", "VerifyOTP"} <= set(
        parameters["operation"]
    )
    payloads = document["components"]["schemas"]
    assert "issuer.authentication.StartOOBAuthen.request" in payloads
    for group, name in CATALOGUE:
        assert f"issuer.{group}.{name}.request" in payloads
    token = document["paths"]["/oauth2/token"]["post"]
    assert set(token["requestBody"]["content"]) == {"application/x-www-form-urlencoded"}
    refusal = token["responses"]["400"]["content"]["application/json"]["schema"]
    assert refusal["required"] == ["error", "error_description"]


# --- Links --------------------------------------------------------------------------------------


def _member(schema: dict[str, Any], document: dict[str, Any], pointer: list[str]) -> bool:
    schema = resolved(document, schema)
    if not pointer:
        return True
    head, rest = pointer[0], pointer[1:]
    if schema.get("type") == "array" and head.isdigit():
        return _member(schema["items"], document, rest)
    member = schema.get("properties", {}).get(head)
    return member is not None and _member(member, document, rest)


def test_every_link_names_a_real_operation_parameter_body_field_and_answer_member(document):
    by_id = {op["operationId"]: (path, op) for path, _m, op in operations(document)}
    links = 0
    for path, _method, operation in operations(document):
        for status, answer in operation["responses"].items():
            for name, link in answer.get("links", {}).items():
                links += 1
                where = f"{path} {status} {name}"
                assert link["operationId"] in by_id, where
                _target_path, target = by_id[link["operationId"]]
                parameters = {p["name"] for p in target.get("parameters", [])}
                assert set(link.get("parameters", {})) <= parameters, where
                body = target.get("requestBody", {}).get("content", {})
                fields = set()
                for media in body.values():
                    fields |= set(resolved(document, media["schema"]).get("properties", {}))
                assert set(link.get("requestBody", {})) <= fields, where
                source = answer["content"]["application/json"]["schema"]
                for expression in [
                    *link.get("parameters", {}).values(),
                    *link.get("requestBody", {}).values(),
                ]:
                    pointer = expression.removeprefix("$response.body#/").split("/")
                    assert _member(source, document, pointer), (where, expression)
    assert links >= 25


# --- Every endpoint -----------------------------------------------------------------------------


def test_every_endpoint_of_the_url_conf_is_in_the_document(document):
    documented = set(document["paths"])
    missing = []
    for path, callback in url_paths():
        initkwargs = getattr(callback, "initkwargs", {})
        if "schema" in initkwargs and initkwargs["schema"] is None:
            continue  # spec_path's other spellings of a documented path
        if path.startswith(tuple(NOT_DOCUMENTED)) or callback is unknown_api_path:
            continue  # ... and the catch-all of unknown API paths (their 404)
        if path not in documented:
            missing.append(path)
    assert not missing, "add these to the OpenAPI document (core.schema): " + ", ".join(missing)


# --- The documented example bodies are accepted --------------------------------------------------


@pytest.mark.django_db
def test_every_documented_example_body_is_accepted(document, participator, merchant):
    """Posted as documented, with the caller's own entity, merchant, terminal and payments (the
    examples name the demo's): 200, never a refusal of the request itself."""
    terminal = TerminalFactory(merchant=merchant)
    entities = {
        "PARTICIPATOR": SpecClient(
            participator.plain_token, participator.entity_id, "PARTICIPATOR"
        ),
        "MERCHANT": SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "MERCHANT"),
        "POS": SpecClient(merchant.entity.plain_token, merchant.entity.entity_id, "POS"),
    }

    def original(kind: str) -> str:
        client = entities["MERCHANT"]
        paid = client.post(
            "/pay/v3/payments",
            {
                "paymentType": kind,
                "merchant.id": merchant.merchant_id,
                "merchantTransactionId": uuid.uuid4().hex,
                "amount": "100.00",
                "currency": "EUR",
                **card(),
            },
            mtid=False,
        )
        return str(paid.json()["id"])

    def stored_card() -> tuple[str, str]:
        """A registration made by a CIT, and the CIT's initialTransactionId."""
        paid = (
            entities["MERCHANT"]
            .post(
                "/pay/v3/payments",
                {
                    "paymentType": "DB",
                    "merchant.id": merchant.merchant_id,
                    "merchantTransactionId": uuid.uuid4().hex,
                    "amount": "10.00",
                    "currency": "EUR",
                    "createRegistration": "true",
                    "standingInstruction.source": "CIT",
                    **card(),
                },
                mtid=False,
            )
            .json()
        )
        return paid["registrationId"], paid["standingInstruction"]["initialTransactionId"]

    def scheme_token() -> str:
        made = entities["MERCHANT"].post(
            "/pay/v3/tokenize",
            {
                "token.Type": "CT",
                "merchant.id": merchant.merchant_id,
                "merchantTransactionId": uuid.uuid4().hex,
                **{k: v for k, v in card().items() if k != "card.cvv"},
            },
            mtid=False,
        )
        return str(made.json()["tokenUniqueReference"])

    posted = 0
    for path, method, operation in spec_operations(document):
        if method != "post":
            continue
        media = operation["requestBody"]["content"]["application/x-www-form-urlencoded"]
        for name, example in media.get("examples", {}).items():
            body = dict(example["value"])
            client = entities[body["entityType"]]
            body["entityId"] = client.entity_id
            body["merchantTransactionId"] = uuid.uuid4().hex
            if "merchant.id" in body and not path.endswith("merchant/create"):
                body["merchant.id"] = merchant.merchant_id
            if "merchantId" in body:  # the reports name the merchant so
                body["merchantId"] = merchant.merchant_id
            if "pos.terminalId" in body and not path.endswith("terminal/create"):
                body["pos.terminalId"] = terminal.terminal_id
            kind = body.get("paymentType", "")
            if kind in ("CP", "RV", "RF"):
                reference = original({"RF": "DB"}.get(kind, "PA"))
                if "originalTransactionId" in body:
                    body["originalTransactionId"] = reference
            url = path.replace("{payment_id}", reference if "{payment_id}" in path else "")
            url = url.replace("{terminal_id}", terminal.terminal_id)
            if path.endswith("exchangerate/update"):  # a rate to replace (create it first)
                entities["PARTICIPATOR"].post(
                    "/v3/exchangerate/create", {**body, "merchantTransactionId": uuid.uuid4().hex}
                )
            if "tokenUniqueReferences" in body:  # a token of this merchant (CT first)
                body["tokenUniqueReferences"] = scheme_token()
            if "{registration_id}" in url:
                registration, initial_id = stored_card()
                url = url.replace("{registration_id}", registration)
                if "standingInstruction.initialTransactionId" in body:
                    body["standingInstruction.initialTransactionId"] = initial_id
            answer = client.post(url, body, mtid=False)
            assert answer.status_code == 200, (path, name, answer.content)
            if body.get("format") == "csv":  # a report's records as CSV: no envelope
                assert answer["Content-Type"].startswith("text/csv"), (path, name)
                posted += 1
                continue
            assert answer.json()["result"]["code"] not in ("200.300.404", "200.100.101")
            posted += 1
    assert posted >= 20
