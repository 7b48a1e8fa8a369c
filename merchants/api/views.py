"""Merchant management endpoints: thin views over merchants.services."""

from typing import Any

from core import results
from core.api import SpecInquiryView, SpecView
from core.auth import Principal
from core.errors import ParameterError

from .. import selectors, services
from .tables import (
    MERCHANT_3DS_DELETE,
    MERCHANT_3DS_ENROL,
    MERCHANT_CREATE,
    MERCHANT_DATA,
    MERCHANT_INQUIRY,
    MERCHANT_STATUS,
    MERCHANT_STORED,
    MERCHANT_UPDATE,
    MERCHANT_VIEW,
)

PARTICIPATOR = frozenset({"PARTICIPATOR"})
ANYONE = frozenset({"PARTICIPATOR", "MERCHANT", "POS"})


class MerchantCreateView(SpecView):
    table = MERCHANT_CREATE
    operation = "merchant.create"
    entity_types = PARTICIPATOR

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

    def stored(self, principal: Principal, flat: dict[str, Any]) -> dict[str, Any]:
        self.merchant = selectors.merchant_get(
            entity=principal.entity, merchant_id=flat["merchant.id"]
        )
        return MERCHANT_VIEW.render(self.merchant, names=MERCHANT_STORED)

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        services.merchant_update(merchant=self.merchant, values=MERCHANT_DATA.values(flat))
        return results.REQUEST_SUCCEEDED, {"merchant.id": self.merchant.merchant_id}


class MerchantStatusView(SpecView):
    table = MERCHANT_STATUS
    operation = "merchant.status"
    entity_types = PARTICIPATOR

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

    def perform(
        self, principal: Principal, flat: dict[str, Any]
    ) -> tuple[results.Result, dict[str, Any]]:
        merchant = selectors.merchant_get(entity=principal.entity, merchant_id=flat["merchant.id"])
        if principal.entity_type == "POS" and flat.get("pos.terminalId") is None:
            raise ParameterError([("pos.terminalId", None, "is required when entityType is POS")])
        return results.REQUEST_SUCCEEDED, MERCHANT_VIEW.render(merchant)
