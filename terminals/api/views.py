"""Terminal management endpoints: thin views over terminals.services."""

from typing import Any

from core import results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.errors import ParameterError
from core.schema import PARTICIPATOR_EXAMPLE, answer, body_example, link
from merchants import selectors as merchant_selectors

from .. import selectors, services
from .tables import (
    TERMINAL_ANSWER,
    TERMINAL_CREATE,
    TERMINAL_DATA,
    TERMINAL_ID,
    TERMINAL_INQUIRY,
    TERMINAL_STATUS,
    TERMINAL_STATUS_ANSWER,
    TERMINAL_UPDATE,
    TERMINAL_VIEW,
)

PARTICIPATOR = frozenset({"PARTICIPATOR"})
ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})

DEMO = {"merchant.id": "10000001", "pos.terminalId": "T0000001"}

# What a created terminal's answer feeds: its pos.terminalId (and its merchant.id).
CREATED = answer("pos", "terminalId")
TERMINAL_LINKS = {
    "Inquiry": link(
        "terminal_inquiry_get", "Read the terminal", parameters={"pos.terminalId": CREATED}
    ),
    "InquiryByPost": link(
        "terminal_inquiry_post", "Read the terminal (form)", body={"pos.terminalId": CREATED}
    ),
    "Update": link("terminal_update_post", "Change its data", body={"pos.terminalId": CREATED}),
    "UpdateByPath": link(
        "terminal_update_post_path", "Change its data", parameters={"terminal_id": CREATED}
    ),
    "Status": link(
        "terminal_status_post",
        "Change its status",
        body={"pos.terminalId": CREATED, "merchant.id": answer("merchant", "id")},
    ),
}


def _terminal_of_merchant(principal: Principal, flat: dict[str, Any]) -> Any:
    """The terminal named by pos.terminalId; when merchant.id is given it must be its merchant."""
    terminal = selectors.terminal_get(entity=principal.entity, terminal_id=flat["pos.terminalId"])
    merchant_id = flat.get("merchant.id")
    if merchant_id and terminal.merchant.merchant_id != merchant_id:
        raise ParameterError(
            [
                (
                    "pos.terminalId",
                    flat["pos.terminalId"],
                    f"is not a terminal of merchant.id {merchant_id}",
                )
            ]
        )
    return terminal


class TerminalCreateView(SpecView):
    table = TERMINAL_CREATE
    operation = "terminal.create"
    entity_types = PARTICIPATOR
    summary = "Create a terminal (POS) of a merchant"
    answer_table = TERMINAL_ANSWER
    examples = {
        "till": body_example(
            TERMINAL_CREATE,
            {
                **PARTICIPATOR_EXAMPLE,
                "merchant.id": "10000001",
                "pos.terminalId": "T3000001",
                "pos.name": "Till 1",
                "pos.deviceId": "998877",
                "pos.deviceInfo": "Ingenico Move5000",
                "pos.terminalType": "POS",
                "pos.pinEntryCapability": "1",
            },
        )
    }
    links = TERMINAL_LINKS

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = merchant_selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchant.id"]
        )
        terminal = services.terminal_create(
            merchant=merchant,
            terminal_id=flat["pos.terminalId"],
            values=TERMINAL_DATA.values(flat),
            changed_by=principal.actor,
        )
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": merchant.merchant_id,
            "pos.terminalId": terminal.terminal_id,
        }


class TerminalUpdateView(SpecView):
    """POST /terminal/update/{terminalId}, or /terminal/update/ with pos.terminalId; both agree."""

    table = TERMINAL_UPDATE
    operation = "terminal.update"
    entity_types = PARTICIPATOR
    partial = True
    always_required = ("entityId", "entityType", "merchantTransactionId")
    summary = "Change a terminal's data (its id in the path or in pos.terminalId)"
    path_parameters = {"terminal_id": TERMINAL_ID.type}
    answer_table = TERMINAL_ANSWER

    def request_examples(self, path: str) -> dict[str, dict[str, str]]:
        """The id in the path, or in the body."""
        change = {**PARTICIPATOR_EXAMPLE, "pos.name": "Till 1 (window)"}
        if "{terminal_id}" not in path:
            change["pos.terminalId"] = DEMO["pos.terminalId"]
        return {"new name": body_example(TERMINAL_UPDATE, change)}

    def post(self, request, terminal_id: str | None = None, **kwargs: Any):  # type: ignore[no-untyped-def]
        data = dict(request.data) if isinstance(request.data, dict) else {}
        if terminal_id:
            body_id = (
                (data.get("pos") or {}).get("terminalId")
                if isinstance(data.get("pos"), dict)
                else None
            )
            if body_id not in (None, "") and body_id != terminal_id:
                raise ParameterError(
                    [
                        (
                            "pos.terminalId",
                            body_id,
                            f"does not match the path's terminal id {terminal_id}",
                        )
                    ]
                )
            pos = dict(data.get("pos") or {}) if isinstance(data.get("pos"), dict) else {}
            pos["terminalId"] = terminal_id
            data["pos"] = pos
        return self.answer(request, data)

    def stored(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        if "pos.terminalId" not in flat:
            raise ParameterError(
                [("pos.terminalId", None, "is required (in the path or the body)")]
            )
        self.terminal = _terminal_of_merchant(principal, flat)
        return TERMINAL_VIEW.render(self.terminal)

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        services.terminal_update(terminal=self.terminal, values=TERMINAL_DATA.values(flat))
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": self.terminal.merchant.merchant_id,
            "pos.terminalId": self.terminal.terminal_id,
        }


class TerminalStatusView(SpecView):
    table = TERMINAL_STATUS
    operation = "terminal.status"
    entity_types = PARTICIPATOR
    summary = "Change a terminal's status"
    answer_table = TERMINAL_STATUS_ANSWER
    examples = {
        "normal": body_example(
            TERMINAL_STATUS, {**PARTICIPATOR_EXAMPLE, **DEMO, "terminal.status": "NORMAL"}
        )
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant_selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        terminal = _terminal_of_merchant(principal, flat)
        terminal = services.terminal_set_status(
            terminal=terminal, status=flat["terminal.status"], changed_by=principal.actor
        )
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": terminal.merchant.merchant_id,
            "pos.terminalId": terminal.terminal_id,
            "terminal.status": terminal.status,
        }


class TerminalInquiryView(SpecInquiryView):
    table = TERMINAL_INQUIRY
    operation = "terminal.inquiry"
    entity_types = ANYONE
    summary = "Read a terminal: its data and status"
    answer_table = TERMINAL_VIEW
    examples = {
        "as the terminal": body_example(
            TERMINAL_INQUIRY, {"entityId": "10000001", "entityType": "POS", **DEMO}
        )
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        terminal = _terminal_of_merchant(principal, flat)
        return results.REQUEST_SUCCEEDED, TERMINAL_VIEW.render(terminal)
