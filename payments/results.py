"""Result codes of payments and 3-D Secure (registered in core's catalogue).

Declines and refusals are outcomes: stored on the payment and answered with HTTP 200.
"""

from core.results import Result, declare

INITIAL = "PA, DB, CD, CV"
THREEDS = "PA, DB with 3-D Secure"


def _d(code: str, description: str, returned_by: str, http: str = "200") -> Result:
    return declare(code, description, owner="payments", http=http, returned_by=returned_by)


# --- approvals --------------------------------------------------------------------------------
TEST_MODE_SUCCEEDED = _d(
    "000.100.112",
    "Successfully processed in connector test mode",
    "every payment type of a merchant (or participator) in connector test mode",
)

# --- before the network ---------------------------------------------------------------------
CARD_EXPIRED = _d("100.100.303", "card expired", INITIAL)
AMOUNT_ABOVE_LIMIT = _d(
    "100.550.312",
    "amount is outside the allowed ticket size: above the maximum per payment set for the "
    "merchant or the platform",
    "PA, DB, CD (payments, stored-card payments, checkouts)",
)
RISK_DECLINED = _d(
    "100.400.311",
    "transaction declined by risk screening (risk.decision DECLINE)",
    f"{INITIAL} with risk.systemID INTERNAL",
)

# --- referenced operations (stored, HTTP 200) -------------------------------------------------
CAPTURE_EXCEEDS = _d("700.400.100", "cannot capture (PA value exceeded)", "CP")
CAPTURE_NOT_OPEN_PA = _d(
    "700.400.103",
    "cannot capture: the referenced transaction is not a successful, unreversed preauthorization",
    "CP",
)
CAPTURE_PA_CLOSED = _d(
    "700.400.104",
    "cannot capture: the preauthorization was closed when its validityPeriod elapsed",
    "CP",
)
REFUND_EXCEEDS = _d(
    "700.400.200",
    "cannot refund (refund volume exceeded or tx reversed or invalid workflow)",
    "RF, PR",
)
REVERSAL_REFUSED = _d(
    "700.400.300",
    "cannot reverse (already refunded or reversed, invalid workflow, or amount exceeded)",
    "RV",
)
CURRENCY_MISMATCH = _d(
    "700.400.410",
    "the currency of a referenced operation must equal the original's",
    "CP, RV, RF, PR",
)
REFUND_NEEDS_CAPTURE = _d(
    "700.400.520",
    "refund needs at least one successful transaction of type CP or DB",
    "RF, PR",
)
POS_REFUND_NEEDS_POS_PURCHASE = _d(
    "700.400.530",
    "a POS refund (PR) needs a successful POS purchase (DB through a terminal)",
    "PR",
)

# --- declines from the network (stored, HTTP 200) ---------------------------------------------
DECLINED_INVALID_CARD = _d("800.100.151", "transaction declined (invalid card)", INITIAL)
DECLINED_INVALID_CVV = _d("800.100.153", "transaction declined (invalid CVV)", INITIAL)
DECLINED_INSUFFICIENT_FUNDS = _d(
    "800.100.203", "transaction declined (insufficient funds)", INITIAL
)
DECLINED_BY_ISSUER = _d(
    "800.100.152",
    "transaction declined by the card's issuer (do not honour)",
    f"{INITIAL}, CP, RV, RF, PR",
)

# --- merchant and terminal state ----------------------------------------------------------------
MERCHANT_CANNOT_TRANSACT = _d(
    "800.121.200",
    "merchant may not transact: its status is BLOCKED, CLOSED or TERMINATED",
    "every payment type",
)
TERMINAL_CANNOT_TRANSACT = _d(
    "800.121.201",
    "terminal may not transact: its status is BLOCKED, CLOSED or TERMINATED",
    "POS payments",
)

# --- the network's answer could not be had ------------------------------------------------------
TIMEOUT_UNCERTAIN = _d(
    "900.100.300",
    "timeout, uncertain result: reverse it with transactionSource TIMEOUT",
    INITIAL,
)
TIMEOUT_REVERSED = _d(
    "900.100.301",
    "no answer from the network in time; reversed (resultDetails.ReversalId names the reversal)",
    f"{INITIAL} whose answer never came, once its TIMEOUT reversal is approved (the janitor's or "
    "the merchant's)",
)

NETWORK_UNAVAILABLE = _d(
    "900.100.600",
    "the card network cannot be reached now (the link is down): nothing was sent and nothing "
    "is held; send it again later with a new merchantTransactionId",
    f"{INITIAL}, CP, RV, RF, PR over the ISO 8583 link while it is down",
)

# --- 3-D Secure -------------------------------------------------------------------------------
THREEDS_PENDING = _d(
    "000.200.000",
    "transaction pending: send the shopper to redirect.url for 3-D Secure",
    THREEDS,
)
THREEDS_FAILED = _d("100.380.401", "User Authentication Failed (3-D Secure)", THREEDS)
THREEDS_CANCELLED = _d("100.396.101", "Cancelled by user (3-D Secure)", THREEDS)
THREEDS_EXPIRED = _d(
    "100.396.103",
    "3-D Secure authentication expired: the shopper did not complete it in time",
    THREEDS,
)
THREEDS_MERCHANT_NOT_ENROLLED = _d(
    "800.121.300",
    "3-D Secure requested but the merchant is not enrolled (merchant/3dsenroll)",
    THREEDS,
)
THREEDS_ALREADY_COMPLETE = _d(
    "700.400.720",
    "3-D Secure authentication already complete: it cannot be completed again",
    "the ACS challenge page (a second submission)",
    http="409",
)

# --- card on file: registrations and standing instructions ---------------------------------------
REGISTRATION_NOT_FOUND = _d(
    "100.150.200",
    "registration does not exist",
    "every /pay/v3/registrations/{id} path (another merchant's registration too)",
    http="404",
)
REGISTRATION_DEREGISTERED = _d(
    "100.150.202",
    "registration is deregistered: its card number was destroyed",
    "payments with a deregistered registration; a second deregistration",
)
INSTRUCTION_UNKNOWN = _d(
    "700.450.100",
    "standingInstruction.initialTransactionId is not a successful cardholder-initiated "
    "transaction of this merchant and card",
    "PA, DB with standingInstruction.source MIT",
)
INSTRUCTION_EXPIRED = _d(
    "700.450.110",
    "standing instruction expired: no authorization after its standingInstruction.expiry",
    "PA, DB with standingInstruction.source MIT",
)
INSTRUCTION_INSTALLMENTS_USED = _d(
    "700.450.120",
    "standing instruction complete: every installment (numberOfInstallments) is authorized",
    "PA, DB with standingInstruction.source MIT",
)
INSTRUCTION_TOO_SOON = _d(
    "700.450.130",
    "standing instruction: fewer days since the previous authorization than its frequency",
    "PA, DB with standingInstruction.source MIT",
)
INSTRUCTION_NO_DECLINE_TO_RESUBMIT = _d(
    "700.450.140",
    "industryPractice RESUBMISSION needs a declined merchant-initiated payment just before it "
    "in the same chain",
    "PA, DB with standingInstruction.source MIT",
)
INSTRUCTION_TYPE_MISMATCH = _d(
    "700.450.150",
    "standingInstruction.type differs from the type of the initial transaction",
    "PA, DB with standingInstruction.source MIT",
)

# --- hosted checkout ------------------------------------------------------------------------------
CHECKOUT_CREATED = _d(
    "000.200.101",
    "checkout created: send the shopper's browser to redirect.url",
    "POST /pay/v3/checkouts",
)
CHECKOUT_OPEN = _d(
    "000.200.102",
    "checkout open: the shopper has not paid yet",
    "GET /pay/v3/checkouts/{id}/payment",
)
CHECKOUT_EXPIRED = _d(
    "100.396.105",
    "checkout expired: the shopper did not pay in time",
    "GET /pay/v3/checkouts/{id}/payment; the checkout page",
)
CHECKOUT_USED = _d(
    "700.400.730",
    "checkout already used: a checkout pays once",
    "the checkout page (a second payment)",
    http="409",
)

# --- the back office (payments.backoffice) ------------------------------------------------------
BACKOFFICE = "RV, RF asked for from the admin above BACKOFFICE_APPROVAL_AMOUNT"
APPROVAL_AWAITED = _d(
    "000.200.400",
    "transaction pending: waiting for a second staff member's approval at the acquirer; its "
    "amount is held meanwhile",
    BACKOFFICE,
)
APPROVAL_REJECTED = _d(
    "700.400.800",
    "refused at the acquirer: rejected by a second staff member, or withdrawn, before it was "
    "sent; nothing was sent",
    BACKOFFICE,
)
APPROVAL_EXPIRED = _d(
    "700.400.810",
    "refused at the acquirer: no second staff member approved it in time; nothing was sent",
    BACKOFFICE,
)

# --- in flight ----------------------------------------------------------------------------------
IN_PROGRESS = _d(
    "000.200.100",
    "transaction in progress: the network's answer is not known yet; inquire the payment or "
    "send the same request again later",
    "every payment type, while the network is asked (or its answer is awaited)",
)
