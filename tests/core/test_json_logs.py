"""Structured logs (LOG_FORMAT=json, docs/operations.md "Logs"): one JSON object per line; every
API request's access line carries the ndc, the entity, the merchant, the path, the status, the
result code and the duration; the ndc travels into the Celery tasks a request starts; and no
field of any line of a whole run carries a card number, a CVV, a PIN, a token or a secret."""

import io
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest

from core import taskcontext
from core.context import bind_log, get_ndc, new_ndc, set_ndc
from core.logging import NdcFilter, json_formatter, log_format
from core.models import OutboxMessage
from issuer import demo
from issuer.cards import services as card_services
from merchants.services import notification_test
from tests.closedloop.test_onus import on_us
from tests.conftest import code
from tests.core.workers import Receiver, celery_worker, require_postgres_and_redis, wait_until
from tests.issuer.conftest import (  # noqa: F401 - the issuer's fixtures, used here
    _issuer_key_files,
    _rsa_2048,
    issuer_keys,
    make_requestor,
)
from tests.issuer.test_api import Api
from tests.payments.conftest import MASTER, NO_FUNDS, VISA, Payer, card

pytestmark = pytest.mark.django_db
API_GROUPS = {"payments", "management", "tokenize", "recon"}


class JsonLines:
    """Every log record of the block, written by the JSON formatter as production writes it
    (root at DEBUG: more than production shows)."""

    def __init__(self) -> None:
        self.stream = io.StringIO()

    @property
    def records(self) -> list[dict[str, Any]]:
        lines = self.stream.getvalue().splitlines()
        return [json.loads(line) for line in lines]  # every line one JSON object

    def of(self, logger: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["logger"] == logger]


@pytest.fixture
def json_logs() -> Iterator[JsonLines]:
    captured = JsonLines()
    handler = logging.StreamHandler(captured.stream)
    handler.setFormatter(json_formatter())
    handler.addFilter(NdcFilter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield captured
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_log_format_is_json_in_production_and_text_in_the_demo():
    assert log_format({}) == "text"
    assert log_format({"DJANGO_DEBUG": "false"}) == "json"
    assert log_format({"DJANGO_DEBUG": "false", "LOG_FORMAT": "text"}) == "text"
    assert log_format({"LOG_FORMAT": "JSON"}) == "json"
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        log_format({"LOG_FORMAT": "xml"})


def test_one_json_object_per_line_with_the_context_as_keys(json_logs):
    set_ndc(new_ndc())
    bind_log(entity="20000001", merchant="30000001")
    logging.getLogger("anything").warning("a line\nwith a newline", extra={"what": 1})
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("anything").exception("failed")

    assert len(json_logs.stream.getvalue().splitlines()) == 2
    first, second = json_logs.records
    assert first["message"] == "a line\nwith a newline" and first["what"] == 1
    assert first["level"] == "WARNING" and first["logger"] == "anything"
    assert first["ndc"] == get_ndc()
    assert (first["entity"], first["merchant"]) == ("20000001", "30000001")
    assert first["timestamp"].endswith("+00:00")
    assert "ValueError: boom" in second["exc_info"]


def test_every_api_line_names_ndc_entity_merchant_path_result_and_duration(
    json_logs, merchant_api, merchant
):
    payer = Payer(merchant_api, merchant)
    paid = payer.pay("DB", number=VISA)
    refused = payer.pay("DB", number=VISA, **{"merchant.id": None})  # 400: no merchant.id

    first, second = [r for r in json_logs.of("core.access") if r["group"] == "payments"]
    assert first["ndc"] == paid["X-Request-Id"] == paid.json()["ndc"]
    assert first["entity"] == merchant.entity.entity_id
    assert first["merchant"] == merchant.merchant_id
    assert (first["method"], first["path"], first["status"]) == ("POST", "/pay/v3/payments", 200)
    assert first["resultCode"] == "000.000.000"
    assert first["durationMs"] >= 0
    assert second["ndc"] == refused["X-Request-Id"] != first["ndc"]
    assert (second["status"], second["resultCode"]) == (400, "200.300.404")
    assert second["entity"] == merchant.entity.entity_id and "merchant" not in second


@pytest.fixture
def eager() -> Iterator[None]:
    """No broker: tasks run in this process (the embedded default, whatever the environment)."""
    from config.celery import app

    previous = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = previous


def test_the_request_id_goes_into_the_tasks_it_starts(
    json_logs, merchant, eager, django_capture_on_commit_callbacks
):
    """Eager (no broker): the task runs in the request's context. Sent to a broker: the ndc is a
    header of the message (never an argument), and the worker takes it (below)."""
    receiver = Receiver()
    merchant.notification_url = receiver.url
    merchant.save()
    ndc = new_ndc()
    set_ndc(ndc)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            notification_test(merchant=merchant)
    finally:
        receiver.close()
    delivered = [r for r in json_logs.of("core.outbox") if "delivered" in r["message"]]
    assert delivered and delivered[0]["ndc"] == ndc


def test_the_ndc_is_a_message_header_and_the_worker_takes_it():
    ndc = new_ndc()
    set_ndc(ndc)
    headers: dict[str, Any] = {}
    taskcontext.carry_ndc(headers=headers)
    assert headers == {"ndc": ndc}

    class Request:
        is_eager = False

        def __init__(self, **attributes: Any) -> None:
            self.__dict__.update(attributes)

    class Task:
        name = "core.sweep_notifications"

        def __init__(self, request: Request) -> None:
            self.request = request

    set_ndc("-")
    taskcontext.task_started(task=Task(Request(ndc=ndc)))
    assert get_ndc() == ndc
    taskcontext.task_finished(task=Task(Request(ndc=ndc)))
    assert get_ndc() == "-"
    # A message without one (beat's), or with something that is no ndc: a fresh one.
    taskcontext.task_started(task=Task(Request(headers={"ndc": "x\nforged line"})))
    assert re.fullmatch(r"[0-9a-f]{32}-[0-9a-f]{8}", get_ndc())


# --- A whole run: nothing secret in any field of any line ---------------------------------------

CVV = "837"
PIN_NEW = "97531246"
PIN_WRONG = "86420864"


def secrets_in(records: list[dict[str, Any]], secrets: dict[str, str]) -> list[str]:
    """Where a secret appears in a record's field (a key or a value, at any depth): long ones
    anywhere in the text, short ones (a CVV, a PIN) as a whole word (not inside a longer number
    or id)."""
    found = []

    def texts(value: Any) -> Iterator[str]:
        if isinstance(value, dict):
            for key, item in value.items():
                yield str(key)
                yield from texts(item)
        elif isinstance(value, list):
            for item in value:
                yield from texts(item)
        else:
            yield str(value)

    for record in records:
        for name, secret in secrets.items():
            pattern = (
                re.escape(secret)
                if len(secret) >= 12
                else rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])"
            )
            for field, value in record.items():
                if any(re.search(pattern, text) for text in texts(value)):
                    found.append(f"{name} in {record['logger']}.{field}: {record['message'][:80]}")
    return found


def test_a_whole_run_logs_no_card_number_cvv_pin_token_or_secret(
    json_logs,
    api,
    merchant_api,
    merchant,
    issuer_keys,  # noqa: F811 - the fixture
    make_requestor,  # noqa: F811
    settings,
):
    settings.ISSUER_PIN_HASH_ITERATIONS = 1000
    cards = demo.demo_cards("oob-client")
    issuer_pan = card_services.card_number(card=cards.prepaid)
    issuer_cvv = card_services.card_cvv2(card=cards.prepaid)
    payer = Payer(merchant_api, merchant)

    # Acquiring: payments with card numbers and CVVs, on the network and on-us, approved,
    # declined, captured; card data sent in the URL (refused); a bad bearer token.
    db = payer.pay("DB", number=None, **card(VISA, **{"card.cvv": CVV}))
    assert code(db) == "000.000.000"
    assert code(payer.pay("DB", number=None, **card(NO_FUNDS, **{"card.cvv": CVV}))) != (
        "000.000.000"
    )
    pa = payer.pay("PA", "20.00", number=None, **card(VISA, **{"card.cvv": CVV})).json()["id"]
    assert code(payer.ref("CP", pa, "5.00")) == "000.000.000"
    on_us_paid = payer.pay("DB", number=None, **on_us(cards.prepaid))
    assert code(on_us_paid) == "000.000.000"
    in_url = merchant_api.client.post(
        f"/pay/v3/payments?card.number={VISA}&card.cvv={CVV}",
        HTTP_AUTHORIZATION=f"Bearer {merchant_api.token}",
    )
    assert in_url.status_code == 400
    wrong_token = f"{merchant_api.token[:-4]}xxxx"
    body = {"paymentType": "DB", "merchant.id": merchant.merchant_id, **card(VISA)}
    assert code(merchant_api.post("/pay/v3/payments", body, token=wrong_token)) == "800.900.300"
    assert code(api.post("/pay/v3/merchant/Inquiry", {"merchant.id": merchant.merchant_id},
                         mtid=False)) == "000.000.100"  # fmt: skip

    # Tokenization: a card tokenized (CT) and paid with by its token.
    tokenized = merchant_api.post(
        "/pay/v3/tokenize",
        {"merchant.id": merchant.merchant_id, "token.Type": "CT", **card(MASTER)},
    )
    assert code(tokenized) == "000.000.100", tokenized.json()
    tur = tokenized.json()["tokenUniqueReference"]
    assert code(payer.pay("DB", number=None, **{"card.token": tur})) == "000.000.000"

    # Issuing: an access token, a PIN change, a wrong PIN, the CVV2, a purchase with it.
    requestor = make_requestor("oob-client", scopes="CARD TRANSACTION")
    issuer = Api(requestor, scope="CARD TRANSACTION")
    reference = {"cardReference": demo.PREPAID_CARD}
    changed = issuer.call(
        "/issuer/v1/card/PINChange", {**reference, "oldPin": demo.DEMO_PIN, "newPin": PIN_NEW}
    )
    assert changed["result"]["code"] == "000.000.100"
    wrong = issuer.call("/issuer/v1/card/PINVerify", {**reference, "pin": PIN_WRONG})
    assert wrong["result"]["code"] != "000.000.000"
    assert issuer.call("/issuer/v1/card/CVV2Inquiry", reference)["cvv2"] == issuer_cvv
    purchase = issuer.call(
        "/issuer/v1/transaction/Purchase",
        {**reference, "requestorReference": "r-1", "amount": "1.00", "currency": "EUR",
         "channel": "ECOMMERCE", "cvv2": issuer_cvv},
    )  # fmt: skip
    assert purchase["result"]["code"] == "000.000.000"
    assertion = requestor.assertion()

    records = json_logs.records
    assert len(records) > 10
    secrets = {
        "the network card number": VISA,
        "the declined card number": NO_FUNDS,
        "the tokenized card number": MASTER,
        "the issuer's card number": issuer_pan,
        "the CVV": CVV,
        "the issuer card's CVV2": issuer_cvv,
        "the new PIN": PIN_NEW,
        "the wrong PIN": PIN_WRONG,
        "the merchant's token": merchant_api.token,
        "the participator's token": api.token,
        "the wrong token": wrong_token,
        "the issuer access token": issuer.token,
        "a client assertion": assertion,
    }
    assert secrets_in(records, secrets) == []
    # ... and the check would have seen them: the same scan over a line that has them all.
    leaked = [{"logger": "x", "message": " ".join(secrets.values()), "n": 1}]
    assert len(secrets_in(leaked, secrets)) == len(secrets)
    # Every API line has its fields.
    api_lines = [r for r in json_logs.of("core.access") if r["group"] in API_GROUPS]
    assert len(api_lines) >= 7
    for line in api_lines:
        assert {"ndc", "path", "status", "resultCode", "durationMs", "method"} <= set(line), line
        assert line["status"] != 200 or {"entity", "merchant"} <= set(line), line


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_worker_logs_the_task_of_a_request_under_the_requests_ndc(
    tmp_path, server_keys, merchant
):
    """A real worker (Redis, PostgreSQL), logging JSON as in production: the delivery a request
    started is logged under that request's ndc, and every line the worker logs is one JSON
    object (Celery adds no handler of its own)."""
    require_postgres_and_redis()
    receiver = Receiver()
    merchant.notification_url = receiver.url
    merchant.save()
    log = tmp_path / "worker.log"
    ndc = new_ndc()
    env = {**server_keys, "LOG_FORMAT": "json", "LOG_LEVEL": "INFO"}
    try:
        with celery_worker(log, env, loglevel="info"):
            set_ndc(ndc)  # as a request that changes a token would
            event_id = notification_test(merchant=merchant)  # commits: handed to the worker
            set_ndc("-")
            message = OutboxMessage.objects.filter(pk=event_id)
            wait_until(lambda: message.get().status == "DELIVERED", "the delivery", timeout=60)
            wait_until(lambda: f"{event_id} attempt 1" in log.read_text(), "the log line")
    finally:
        receiver.close()
    lines = [line for line in log.read_text().splitlines() if line.startswith("{")]
    records = [json.loads(line) for line in lines]
    delivery = [r for r in records if r["logger"] == "core.outbox" and event_id in r["message"]]
    assert delivery and delivery[0]["ndc"] == ndc, records
    # Celery's line of the task's end too (its "received" line comes before the task starts).
    ended = [
        r for r in records if "deliver_notification" in r["message"] and "succeeded" in r["message"]
    ]
    assert ended and ended[0]["ndc"] == ndc, ended
    sent = [{k: v for k, v in r.items() if k != "raw"} for r in receiver.requests]  # JSON ones
    assert ndc not in json.dumps(sent)  # a header of the task, not of the message
    # Nothing the worker logged is a line of text beside the JSON (a second handler).
    assert not [line for line in log.read_text().splitlines() if "] INFO/" in line]
