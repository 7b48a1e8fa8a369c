"""Terminal create, update, status and inquiry: every result code each returns."""

import pytest

from terminals.api.tables import TERMINAL_CREATE
from terminals.models import Terminal, TerminalStatusChange
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory, TerminalFactory
from tests.spec_requests import valid_body

CREATE, UPDATE, STATUS, INQUIRY = (
    "/pay/v3/terminal/create",
    "/pay/v3/terminal/update/",
    "/pay/v3/terminal/status/",
    "/pay/v3/terminal/Inquiry",
)


def body(merchant, terminal_id="T1", **overrides):
    return valid_body(
        TERMINAL_CREATE,
        **{"merchant.id": merchant.merchant_id, "pos.terminalId": terminal_id, **overrides},
    )


class TestCreate:
    def test_creates_terminal(self, api, merchant):
        response = api.post(CREATE, body(merchant, "T_1", **{"pos.terminalType": "mPOS"}))
        assert response.status_code == 200 and code(response) == "000.000.100"
        data = response.json()
        assert data["merchant"]["id"] == merchant.merchant_id and data["pos"]["terminalId"] == "T_1"
        terminal = Terminal.objects.get()
        assert (terminal.merchant, terminal.terminal_type, terminal.status) == (
            merchant,
            "mPOS",
            "NORMAL",
        )
        assert terminal.status_changes.get().to_status == "NORMAL"

    def test_duplicate_terminal_id_is_refused(self, api, merchant):
        api.post(CREATE, body(merchant))
        response = api.post(CREATE, body(merchant))
        assert response.status_code == 200 and code(response) == "200.300.405"
        assert Terminal.objects.count() == 1

    def test_unknown_merchant_is_404(self, api):
        response = api.post(CREATE, body(type("M", (), {"merchant_id": "999"})))
        assert response.status_code == 404 and code(response) == "700.100.101"

    def test_another_participators_merchant_is_404(self, other_api, merchant):
        response = other_api.post(CREATE, body(merchant))
        assert response.status_code == 404 and not Terminal.objects.exists()


class TestUpdate:
    def test_update_by_path(self, api, terminal):
        response = api.post(f"{UPDATE}{terminal.terminal_id}", {"pos.name": "Back office"})
        assert response.status_code == 200 and code(response) == "000.000.100"
        terminal.refresh_from_db()
        assert terminal.name == "Back office"

    def test_update_by_body(self, api, terminal):
        response = api.post(
            UPDATE, {"pos.terminalId": terminal.terminal_id, "pos.deviceInfo": "X2"}
        )
        assert code(response) == "000.000.100"
        terminal.refresh_from_db()
        assert terminal.device_info == "X2"

    def test_path_and_body_must_agree(self, api, terminal):
        response = api.post(
            f"{UPDATE}{terminal.terminal_id}", {"pos.terminalId": "OTHER", "pos.name": "x"}
        )
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)

    def test_terminal_id_required_somewhere(self, api, terminal):
        response = api.post(UPDATE, {"pos.name": "x"})
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)

    def test_merchant_id_if_given_must_be_the_terminals(self, api, terminal, participator):
        other = MerchantFactory(participator=participator)
        response = api.post(
            UPDATE,
            {
                "pos.terminalId": terminal.terminal_id,
                "merchant.id": other.merchant_id,
                "pos.name": "x",
            },
        )
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)
        terminal.refresh_from_db()
        assert terminal.merchant_id != other.pk

    def test_unknown_terminal_is_404(self, api):
        response = api.post(UPDATE, {"pos.terminalId": "NOPE", "pos.name": "x"})
        assert response.status_code == 404 and code(response) == "700.100.102"

    def test_another_participators_terminal_is_404(self, other_api, terminal):
        response = other_api.post(
            UPDATE, {"pos.terminalId": terminal.terminal_id, "pos.name": "Evil"}
        )
        assert response.status_code == 404
        terminal.refresh_from_db()
        assert terminal.name == "Front desk"


class TestStatus:
    def status(self, api, terminal, value):
        return api.post(
            STATUS,
            {
                "merchant.id": terminal.merchant.merchant_id,
                "pos.terminalId": terminal.terminal_id,
                "terminal.status": value,
            },
        )

    @pytest.mark.parametrize("value", ["CLOSED", "BLOCKED", "TERMINATED", "NORMAL"])
    def test_any_status_from_normal(self, api, terminal, value):
        response = self.status(api, terminal, value)
        assert code(response) == "000.000.100" and response.json()["terminal"]["status"] == value
        terminal.refresh_from_db()
        assert terminal.status == value

    @pytest.mark.parametrize("start", ["CLOSED", "TERMINATED"])
    def test_normal_from_closed_or_terminated_is_refused(self, api, terminal, start):
        self.status(api, terminal, start)
        response = self.status(api, terminal, "NORMAL")
        assert response.status_code == 200 and code(response) == "700.500.101"
        terminal.refresh_from_db()
        assert terminal.status == start

    def test_history_is_kept(self, api, terminal, participator):
        self.status(api, terminal, "BLOCKED")
        self.status(api, terminal, "NORMAL")
        rows = list(
            TerminalStatusChange.objects.filter(terminal=terminal)
            .order_by("id")
            .values_list("from_status", "to_status", "changed_by")
        )
        assert rows[-2:] == [
            ("NORMAL", "BLOCKED", f"entity:{participator.entity_id}"),
            ("BLOCKED", "NORMAL", f"entity:{participator.entity_id}"),
        ]

    def test_terminal_of_another_merchant_is_refused(self, api, terminal, participator):
        other = MerchantFactory(participator=participator)
        response = api.post(
            STATUS,
            {
                "merchant.id": other.merchant_id,
                "pos.terminalId": terminal.terminal_id,
                "terminal.status": "BLOCKED",
            },
        )
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)

    def test_unknown_terminal_is_404(self, api, merchant):
        response = api.post(
            STATUS,
            {
                "merchant.id": merchant.merchant_id,
                "pos.terminalId": "NOPE",
                "terminal.status": "BLOCKED",
            },
        )
        assert response.status_code == 404 and code(response) == "700.100.102"

    def test_unknown_merchant_is_404(self, api, terminal):
        response = api.post(
            STATUS,
            {
                "merchant.id": "999",
                "pos.terminalId": terminal.terminal_id,
                "terminal.status": "BLOCKED",
            },
        )
        assert response.status_code == 404 and code(response) == "700.100.101"

    def test_another_participators_terminal_is_404(self, other_api, terminal):
        response = other_api.post(
            STATUS,
            {
                "merchant.id": terminal.merchant.merchant_id,
                "pos.terminalId": terminal.terminal_id,
                "terminal.status": "CLOSED",
            },
        )
        assert response.status_code == 404
        terminal.refresh_from_db()
        assert terminal.status == "NORMAL"


class TestInquiry:
    def test_get_returns_every_stored_field(self, api, merchant):
        sent = body(
            merchant,
            "T9",
            **{
                "pos.terminalType": "WEB",
                "pos.postcode": "10115",
                "pos.digitalId": "D1",
                "pos.acctId": "A1",
            },
        )
        api.post(CREATE, sent)
        data = api.get(INQUIRY, {"pos.terminalId": "T9"}).json()
        assert data["result"]["code"] == "000.000.100"
        for name, value in sent.items():
            group, field = name.split(".", 1)
            assert data[group][field] == value, name
        assert data["terminal"]["status"] == "NORMAL"

    def test_post_form_works_too(self, api, terminal):
        response = api.post(INQUIRY, {"pos.terminalId": terminal.terminal_id}, mtid=False)
        assert response.status_code == 200

    def test_merchant_and_pos_read_their_terminal(self, merchant_api, terminal):
        assert (
            merchant_api.get(INQUIRY, {"pos.terminalId": terminal.terminal_id}).status_code == 200
        )
        pos = SpecClient(merchant_api.token, merchant_api.entity_id, "POS")
        assert pos.get(INQUIRY, {"pos.terminalId": terminal.terminal_id}).status_code == 200

    def test_merchant_cannot_read_another_merchants_terminal(self, merchant_api):
        foreign = TerminalFactory()
        response = merchant_api.get(INQUIRY, {"pos.terminalId": foreign.terminal_id})
        assert response.status_code == 404 and code(response) == "700.100.102"

    def test_another_participator_cannot_read(self, other_api, terminal):
        response = other_api.get(INQUIRY, {"pos.terminalId": terminal.terminal_id})
        assert response.status_code == 404 and terminal.name not in response.content.decode()

    def test_missing_terminal_id_is_400(self, api):
        response = api.get(INQUIRY, {})
        assert response.status_code == 400 and "pos.terminalId" in param_errors(response)
