"""A payment as the API answers it (spec "Payment response"): the answer table's rows rendered
from the stored payment, its custom parameters, and its 3-D Secure block; never card data beyond
BIN and last four."""

from typing import Any

from core.envelope import envelope
from core.results import Result

from .api.tables.answer import PAYMENT_ANSWER, PAYMENT_INQUIRY_ANSWER
from .registrations.tables import CHAIN_PAYMENT
from .threeds.models import ThreeDSAuthentication

INQUIRY_GROUPS = ("customer.", "billing.", "shipping.")
ECHOED = ("customParameters[", "standingInstruction.")
CHAIN_ROWS = ("id", "paymentType", "amount", "currency", "resultCode", "createdAt")
BROWSER = "customer.browser."
PRE_AUTHENTICATED = ("eci", "verificationId", "dsTransactionId", "authenticationStatus")
RESULT_DETAILS = (
    ("avsResponse", "avs_response"),
    ("cvvResponse", "cvv_response"),
    ("macResponse", "mac_response"),
)


def payment_body(payment: Any, *, inquiry: bool = False, base_url: str = "") -> dict[str, Any]:
    flat = PAYMENT_ANSWER.render(payment)
    for name, value in payment.data.items():
        if name.startswith(ECHOED):
            flat[name] = value
    flat.update(_card_on_file(payment, inquiry=inquiry))
    flat.update(_threeds(payment, base_url))
    if inquiry:
        flat.update(PAYMENT_INQUIRY_ANSWER.render(payment))
        # The customer and billing groups that were sent (spec: "the response may also contain
        # the customer, billing and other structures"); browser data stays with 3-D Secure.
        for name, value in payment.data.items():
            if name.startswith(INQUIRY_GROUPS) and not name.startswith(BROWSER):
                flat[name] = value
    extra_result = {
        key: getattr(payment, attr) for key, attr in RESULT_DETAILS if getattr(payment, attr)
    }
    result = Result(payment.result_code, payment.result_description)
    return envelope(result, id=payment.id, data=flat, **extra_result)


def _card_on_file(payment: Any, *, inquiry: bool) -> dict[str, Any]:
    """registrationId (the stored card it paid with or stored), for the CIT that set up a
    standing instruction its initialTransactionId (every later MIT names it), and in the inquiry
    the chain: the CIT and every MIT that named it, oldest first."""
    flat: dict[str, Any] = {}
    if payment.registration_id:
        flat["registrationId"] = payment.registration_id
    if not payment.standing_instruction_id:
        return flat
    chain = payment.standing_instruction
    if chain.initial_payment_id == payment.pk:
        flat["standingInstruction.initialTransactionId"] = chain.initial_transaction_id
    if inquiry:
        members = chain.payments.order_by("created_at")
        flat["standingInstruction.payments"] = [
            {"source": "CIT" if member.pk == chain.initial_payment_id else "MIT"}
            | CHAIN_PAYMENT.render(member, names=CHAIN_ROWS)
            for member in members
        ]
    return flat


def _threeds(payment: Any, base_url: str) -> dict[str, Any]:
    """The redirect of a pending 3-D Secure payment, or the threeDSecure block of a final one
    (built-in authentication, or the pre-authenticated data of indicator=third). Decided by the
    payment's own data, never by the merchant's current settings."""
    auth = None
    if payment.threeds_started:
        try:
            auth = payment.threeds
        except ThreeDSAuthentication.DoesNotExist:
            auth = None
    if auth is None:
        if payment.data.get("threeDSecure.indicator") != "third":
            return {}
        return {
            f"threeDSecure.{k}": payment.data.get(f"threeDSecure.{k}") for k in PRE_AUTHENTICATED
        }
    if not auth.is_final:
        root = base_url.rstrip("/")
        parameters = [{"name": "threeDSSessionData", "value": auth.id}]
        if auth.method_required:
            parameters.append(
                {"name": "threeDSMethodURL", "value": f"{root}/threeds/acs/{auth.id}/method"}
            )
        return {
            "redirect.url": f"{root}/threeds/{auth.id}/start",
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
