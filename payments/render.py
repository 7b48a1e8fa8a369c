"""A payment as the API answers it (spec "Payment response"): nested groups, never card data
beyond BIN and last four."""

from typing import Any

from core.envelope import envelope
from core.results import Result


def payment_body(payment: Any, *, inquiry: bool = False, base_url: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {
        "paymentType": payment.payment_type,
        "paymentBrand": payment.payment_brand or None,
        "amount": f"{payment.amount:.2f}" if payment.amount is not None else None,
        "currency": payment.currency or None,
        "descriptor": payment.descriptor or None,
        "referencedId": payment.referenced_id,
        "card.bin": payment.card_bin or None,
        "card.last4Digits": payment.card_last4 or None,
        "card.holder": payment.card_holder or None,
        "card.expiryMonth": payment.card_expiry_month or None,
        "card.expiryYear": payment.card_expiry_year or None,
        "resultDetails.AuthCode": payment.auth_code or None,
        "resultDetails.AcquirerResponse": payment.acquirer_response or None,
        "resultDetails.clearingInstituteName": "Simulator" if payment.stan else None,
        "additionalData.TraceAuditNo": payment.stan or None,
        "additionalData.EntryMode": payment.entry_mode or None,
        "additionalData.ConditionCode": payment.condition_code or None,
        "additionalData.RetrievalRefNo": payment.retrieval_ref_no or None,
        "additionalData.AcquirerRefno": payment.acquirer_ref_no or None,
        "risk.score": payment.risk_score or None,
        "risk.decision": payment.risk_decision or None,
        "merchant.id": payment.merchant.merchant_id,
        "pos.terminalId": payment.terminal.terminal_id if payment.terminal_id else None,
    }
    for name, value in payment.data.items():
        if name.startswith("customParameters["):
            flat[name] = value
    flat.update(_threeds(payment, base_url))
    if inquiry:
        flat["merchantTransactionId"] = payment.merchant_transaction_id
        flat["merchantMemo"] = payment.merchant_memo or None
        flat["transactionSource"] = payment.transaction_source or None
    extra_result = {
        key: value
        for key, value in (
            ("avsResponse", payment.avs_response),
            ("cvvResponse", payment.cvv_response),
            ("macResponse", payment.mac_response),
        )
        if value
    }
    result = Result(payment.result_code, payment.result_description)
    return envelope(result, id=payment.id, data=flat, **extra_result)


def _threeds(payment: Any, base_url: str) -> dict[str, Any]:
    """The redirect of a pending 3-D Secure payment, or the threeDSecure block of a final one
    (built-in authentication, or the pre-authenticated data of indicator=third)."""
    from .models import ThreeDSAuthentication

    auth = None
    # Only a payment that asked for 3DS (or whose merchant requires it) can have one: skip the
    # query for every other payment.
    if payment.data.get("threeDSecure.indicator") in ("true", "force") or (
        payment.merchant.threeds_mode == "MANDATORY"
    ):
        try:
            auth = payment.threeds
        except ThreeDSAuthentication.DoesNotExist:
            auth = None
    if auth is None:
        if payment.data.get("threeDSecure.indicator") != "third":
            return {}
        return {
            f"threeDSecure.{k}": payment.data.get(f"threeDSecure.{k}")
            for k in ("eci", "verificationId", "dsTransactionId", "authenticationStatus")
        }
    if not auth.is_final:
        parameters = [{"name": "threeDSSessionData", "value": auth.id}]
        if auth.method_required:
            parameters.append(
                {
                    "name": "threeDSMethodURL",
                    "value": f"{base_url.rstrip('/')}/threeds/acs/{auth.id}/method",
                }
            )
        return {
            "redirect.url": f"{base_url.rstrip('/')}/threeds/{auth.id}/start",
            "redirect.method": "POST",
            "redirect.parameters": parameters,
        }
    if not auth.trans_status:
        return {"threeDSecure.version": auth.version}
    return {
        "threeDSecure.eci": auth.eci,
        "threeDSecure.verificationId": auth.authentication_value or None,
        "threeDSecure.version": auth.version,
        "threeDSecure.dsTransactionId": auth.ds_transaction_id,
        "threeDSecure.acsTransactionId": auth.acs_transaction_id,
        "threeDSecure.authenticationStatus": auth.trans_status,
    }
