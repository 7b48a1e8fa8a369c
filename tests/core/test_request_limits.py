"""Request limits (issue 9, items 8 and 9): body size, number of fields, nesting depth, and the
number of parameter errors listed; each refused with a result code, never a 500."""

import io
import json

import pytest
from django.test import RequestFactory
from rest_framework.request import Request

from core.errors import ApplicationError, InvalidRequest, ParameterError
from core.parsers import NestedFormParser, NestedJSONParser
from merchants.models import Merchant
from tests.conftest import code
from tests.spec_requests import project_tables

CREATE = "/pay/v3/merchant/create"


def post(api, body: str | bytes, content_type: str, **extra):  # type: ignore[no-untyped-def]
    return api.client.post(
        CREATE, body, content_type=content_type, HTTP_AUTHORIZATION=f"Bearer {api.token}", **extra
    )


def form(api, **fields: str) -> str:  # type: ignore[no-untyped-def]
    from urllib.parse import urlencode

    return urlencode({"entityId": api.entity_id, "entityType": api.entity_type, **fields})


FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


# --- Body size ------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", [FORM, JSON])
def test_a_body_over_the_size_limit_is_413(api, settings, content_type):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    if content_type == FORM:
        body = form(api, **{"merchant.name": "x" * 3000})
    else:
        body = json.dumps({"entityId": api.entity_id, "merchant": {"name": "x" * 3000}})
    response = post(api, body, content_type)
    assert response.status_code == 413
    assert code(response) == "200.100.101"
    assert "2000 bytes" in response.json()["result"]["description"]
    assert not Merchant.objects.exists()


class _Unreadable(io.RawIOBase):
    def read(self, size: int = -1) -> bytes:  # type: ignore[override]
        raise AssertionError("the body was read")


def _context(content_length: str | None) -> dict:  # type: ignore[type-arg]
    request = RequestFactory().post("/pay/v3/merchant/create", b"", content_type=FORM)
    request.META.pop("CONTENT_LENGTH", None)
    if content_length is not None:
        request.META["CONTENT_LENGTH"] = content_length
    return {"request": Request(request), "encoding": "utf-8"}


@pytest.mark.parametrize("parser", [NestedFormParser(), NestedJSONParser()])
def test_content_length_is_checked_before_the_body_is_read(parser, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    with pytest.raises(InvalidRequest) as refused:
        parser.parse(_Unreadable(), None, _context("1001"))
    assert refused.value.http_status == 413


@pytest.mark.parametrize("parser", [NestedFormParser(), NestedJSONParser()])
def test_a_body_without_content_length_is_capped_while_it_is_read(parser, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    with pytest.raises(InvalidRequest) as refused:
        parser.parse(io.BytesIO(b"a=" + b"x" * 5000), None, _context(None))
    assert refused.value.http_status == 413


def test_a_chunked_body_is_read_up_to_the_limit(api, settings):
    """A chunked request has no Content-Length: Django would hand the parsers an empty body."""
    from core.middleware import ApiPathMiddleware

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    seen = {}

    def view(request):  # type: ignore[no-untyped-def]
        seen["body"] = request.read()
        from django.http import HttpResponse

        return HttpResponse("ok")

    def chunked(body: bytes):  # type: ignore[no-untyped-def]
        request = RequestFactory().post(CREATE, b"", content_type=FORM)
        request.META.pop("CONTENT_LENGTH", None)
        request.META["HTTP_TRANSFER_ENCODING"] = "chunked"
        request.META["wsgi.input"] = io.BytesIO(body)
        request.META["wsgi.input_terminated"] = True  # gunicorn: the input ends by itself
        from django.core.handlers.wsgi import LimitedStream

        request._stream = LimitedStream(io.BytesIO(body), 0)  # what Django makes of it
        return request

    response = ApiPathMiddleware(view)(chunked(b"a=1&b=2"))
    assert response.status_code == 200 and seen["body"] == b"a=1&b=2"
    response = ApiPathMiddleware(view)(chunked(b"a=" + b"x" * 5000))
    assert response.status_code == 413
    assert json.loads(response.content)["result"]["code"] == "200.100.101"


# --- Number of fields -----------------------------------------------------------------------------


def test_a_json_body_with_too_many_fields_is_400(api, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    body = json.dumps({f"f{i}": "x" for i in range(10)})
    response = post(api, body, JSON)
    assert response.status_code == 400 and code(response) == "200.100.101"
    assert "5 fields" in response.json()["result"]["description"]


def test_too_many_query_parameters_is_400(api, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 5
    query = {f"f{i}": "x" for i in range(10)}
    response = api.get("/pay/v3/merchant/Inquiry", query)
    assert response.status_code == 400 and code(response) == "200.100.101"


# --- Nesting depth (and item 8: no RecursionError) ------------------------------------------------


def test_deeply_nested_form_names_are_400_not_500(api):
    name = "a" + "[0]" * 1000  # about 4 KB
    response = post(api, form(api) + "&" + name + "=1", FORM)
    assert response.status_code == 400, response.content[:300]
    assert code(response) == "200.100.101"
    assert "nested" in response.json()["result"]["description"]


def test_deeply_nested_query_names_are_400_not_500(api):
    response = api.get("/pay/v3/merchant/Inquiry", {"a" + "[0]" * 1000: "1"})
    assert response.status_code == 400 and code(response) == "200.100.101"


@pytest.mark.parametrize("depth", [11, 900, 100_000])
def test_deeply_nested_json_is_400_not_500(api, depth):
    body = f'{{"entityId": "{api.entity_id}", "a": ' + "[" * depth + "]" * depth + "}"
    response = post(api, body, JSON)
    assert response.status_code == 400, response.content[:300]
    assert code(response) == "200.100.101"
    assert "nested" in response.json()["result"]["description"]


def test_nesting_up_to_the_limit_is_parsed(settings):
    settings.DATA_UPLOAD_MAX_NESTING_DEPTH = 3
    parser = NestedJSONParser()
    ok = parser.parse(io.BytesIO(b'{"a": {"b": [ "x" ]}}'), None, _context(None))
    assert ok == {"a": {"b": {"0": "x"}}}
    with pytest.raises(InvalidRequest):
        parser.parse(io.BytesIO(b'{"a": {"b": [["x"]]}}'), None, _context(None))
    with pytest.raises(InvalidRequest):
        NestedFormParser().parse(io.BytesIO(b"a.b[0][0]=x"), None, _context(None))


def test_every_table_row_fits_the_nesting_limit(settings):
    from core.nesting import split_name

    tables = project_tables()
    assert len(tables) > 10
    deepest = max(len(split_name(row.name)) for table in tables for row in table)
    assert deepest == 6  # airline.passengers[n].legs[n].ticketNumber
    assert deepest <= settings.DATA_UPLOAD_MAX_NESTING_DEPTH


# --- Parameter errors listed ----------------------------------------------------------------------


@pytest.mark.parametrize("content_type", [FORM, JSON])
def test_at_most_50_parameter_errors_are_listed(api, content_type):
    unknown = {f"unknown{i:03d}": "x" for i in range(200)}
    if content_type == FORM:
        body = form(api, **unknown)
    else:
        body = json.dumps({"entityId": api.entity_id, "entityType": api.entity_type, **unknown})
    response = post(api, body, content_type)
    assert response.status_code == 400 and code(response) == "200.300.404"
    result = response.json()["result"]
    assert len(result["parameterErrors"]) == 50
    assert "more" in result["description"] and "50" in result["description"]
    assert len(response.content) < 20_000


def test_a_long_unknown_name_is_cut_in_the_answer(api):
    response = post(api, form(api) + "&" + "n" * 100_000 + "=1", FORM)
    assert response.status_code == 400
    (error,) = [e for e in response.json()["result"]["parameterErrors"] if e["name"][0] == "n"]
    assert len(error["name"]) <= 260


def test_parameter_error_keeps_every_problem_for_the_caller():
    exc = ParameterError((f"f{i}", "x", "bad") for i in range(60))
    assert len(exc.errors) == 60 and isinstance(exc, ApplicationError)
