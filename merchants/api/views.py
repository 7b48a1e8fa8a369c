"""Merchant management endpoints: thin views over merchants.services."""

from typing import Any

from core import results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.errors import ParameterError
from core.schema import PARTICIPATOR_EXAMPLE, answer, body_example, link

from .. import selectors, services
from .tables import (
    MERCHANT_3DS_ANSWER,
    MERCHANT_3DS_DELETE,
    MERCHANT_3DS_ENROL,
    MERCHANT_CREATE,
    MERCHANT_CREATE_ANSWER,
    MERCHANT_DATA,
    MERCHANT_ID_ANSWER,
    MERCHANT_INQUIRY,
    MERCHANT_STATUS,
    MERCHANT_STATUS_ANSWER,
    MERCHANT_STORED,
    MERCHANT_UPDATE,
    MERCHANT_VIEW,
)

PARTICIPATOR = frozenset({"PARTICIPATOR"})
ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})

DEMO_MERCHANT = {"merchant.id": "10000001"}

# What a created merchant's answer feeds: its merchant.id.
CREATED = answer("merchant", "id")
MERCHANT_LINKS = {
    "Inquiry": link(
        "merchant_inquiry_get", "Read the merchant", parameters={"merchant.id": CREATED}
    ),
    "InquiryByPost": link(
        "merchant_inquiry_post", "Read the merchant (form)", body={"merchant.id": CREATED}
    ),
    "Update": link("merchant_update_post", "Change its data", body={"merchant.id": CREATED}),
    "Status": link("merchant_status_post", "Change its status", body={"merchant.id": CREATED}),
    "Enrol3DS": link(
        "merchant_3dsenroll_post", "Enrol it in 3-D Secure", body={"merchant.id": CREATED}
    ),
    "Delete3DS": link(
        "merchant_3dsdelete_post", "End its 3-D Secure enrolment", body={"merchant.id": CREATED}
    ),
    "CreateTerminal": link(
        "terminal_create_post", "Add a terminal to it", body={"merchant.id": CREATED}
    ),
}


class MerchantCreateView(SpecView):
    table = MERCHANT_CREATE
    operation = "merchant.create"
    entity_types = PARTICIPATOR
    summary = "Create a merchant (answers its entityId and token, once)"
    answer_table = MERCHANT_CREATE_ANSWER
    examples = {
        "merchant": body_example(
            MERCHANT_CREATE,
            {
                **PARTICIPATOR_EXAMPLE,
                "merchant.id": "30000001",
                **{row.name: None for row in MERCHANT_CREATE if row.mandatory and "." in row.name},
                "merchant.website": None,
            },
        )
    }
    links = MERCHANT_LINKS

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant, token = services.merchant_create(
            participator=principal.entity,
            merchant_id=flat["merchant.id"],
            values=MERCHANT_DATA.values(flat),
            changed_by=principal.actor,
        )
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": merchant.merchant_id,
            "merchant.entityId": merchant.entity.entity_id,
            "merchant.token": token,
        }


class MerchantUpdateView(SpecView):
    table = MERCHANT_UPDATE
    operation = "merchant.update"
    entity_types = PARTICIPATOR
    partial = True
    always_required = ("entityId", "entityType", "merchantTransactionId", "merchant.id")
    summary = "Change a merchant's data"
    answer_table = MERCHANT_ID_ANSWER
    examples = {
        "new name": body_example(
            MERCHANT_UPDATE,
            {**PARTICIPATOR_EXAMPLE, **DEMO_MERCHANT, "merchant.name": "Acme Trading Ltd"},
        )
    }

    def stored(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        self.merchant = selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchant.id"]
        )
        return MERCHANT_VIEW.render(self.merchant, names=MERCHANT_STORED)

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        services.merchant_update(
            merchant=self.merchant,
            values=MERCHANT_DATA.values(flat),
            changed_by=f"entity:{principal.entity.entity_id}",
        )
        return results.REQUEST_SUCCEEDED, {"merchant.id": self.merchant.merchant_id}


class MerchantStatusView(SpecView):
    table = MERCHANT_STATUS
    operation = "merchant.status"
    entity_types = PARTICIPATOR
    summary = "Change a merchant's status or security status"
    answer_table = MERCHANT_STATUS_ANSWER
    examples = {
        "normal": body_example(
            MERCHANT_STATUS, {**PARTICIPATOR_EXAMPLE, **DEMO_MERCHANT, "merchant.status": "NORMAL"}
        )
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        merchant = services.merchant_set_status(
            merchant=merchant,
            status=flat.get("merchant.status") or None,
            security_status=flat.get("merchant.securityStatus"),
            changed_by=principal.actor,
        )
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": merchant.merchant_id,
            "merchant.status": merchant.status,
            "merchant.securityStatus": merchant.security_status or None,
        }


class Merchant3DSEnrolView(SpecView):
    table = MERCHANT_3DS_ENROL
    operation = "merchant.3dsenroll"
    entity_types = PARTICIPATOR
    summary = "Enrol a merchant in 3-D Secure"
    answer_table = MERCHANT_3DS_ANSWER
    examples = {
        "enrol": body_example(MERCHANT_3DS_ENROL, {**PARTICIPATOR_EXAMPLE, **DEMO_MERCHANT})
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        merchant = services.merchant_3ds_enrol(merchant=merchant, changed_by=principal.actor)
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": merchant.merchant_id,
            "merchant.threeDSecure.enrolmentStatus": merchant.threeds_status,
        }


class Merchant3DSDeleteView(SpecView):
    table = MERCHANT_3DS_DELETE
    operation = "merchant.3dsdelete"
    entity_types = PARTICIPATOR
    summary = "End a merchant's 3-D Secure enrolment"
    answer_table = MERCHANT_3DS_ANSWER
    examples = {
        "delete": body_example(
            MERCHANT_3DS_DELETE,
            {
                **PARTICIPATOR_EXAMPLE,
                **DEMO_MERCHANT,
                "threeDSecure.deleteReason": "Merchant No Longer Participating",
            },
        )
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        merchant = services.merchant_3ds_delete(
            merchant=merchant, reason=flat["threeDSecure.deleteReason"], changed_by=principal.actor
        )
        return results.REQUEST_SUCCEEDED, {
            "merchant.id": merchant.merchant_id,
            "merchant.threeDSecure.enrolmentStatus": merchant.threeds_status,
            "merchant.threeDSecure.deleteReason": merchant.threeds_delete_reason,
        }


class MerchantInquiryView(SpecInquiryView):
    table = MERCHANT_INQUIRY
    operation = "merchant.inquiry"
    entity_types = ANYONE
    summary = "Read a merchant: its data, status and 3-D Secure enrolment (never its token)"
    answer_table = MERCHANT_VIEW
    examples = {
        "as the merchant": body_example(
            MERCHANT_INQUIRY,
            {"entityId": "10000001", "entityType": "MERCHANT", **DEMO_MERCHANT},
        )
    }

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        if principal.entity_type == "POS" and flat.get("pos.terminalId") is None:
            raise ParameterError([("pos.terminalId", None, "is required when entityType is POS")])
        return results.REQUEST_SUCCEEDED, MERCHANT_VIEW.render(merchant)
