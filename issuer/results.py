"""Result codes of the issuer operations (registered in core's catalogue). They travel inside
the JWE answer of `POST /issuer/v1/{group}/{Operation}` (HTTP 200)."""

from core import results as core_results
from core.results import Result, declare


def _d(code: str, description: str, returned_by: str, http: str = "200") -> Result:
    return declare(code, description, owner="issuer", http=http, returned_by=returned_by)


OTP_WRONG_CODE = _d("100.380.410", "one-time password does not match", "authentication/VerifyOTP")
OTP_BLOCKED = _d(
    "100.380.411",
    "one-time password blocked: too many wrong codes, send a new one",
    "authentication/VerifyOTP",
)
OTP_EXPIRED = _d(
    "100.396.104", "one-time password expired, send a new one", "authentication/VerifyOTP"
)
OTP_ALREADY_USED = _d("700.400.710", "one-time password already used", "authentication/VerifyOTP")
OOB_ALREADY_DECIDED = _d(
    "700.400.711",
    "out-of-band authentication already decided: it cannot be answered again",
    "the cardholder page (an answer to a decided or expired authentication)",
    http="409/410",
)
REQUESTOR_KEYS_UNAVAILABLE = _d(
    "900.100.400",
    "the requestor's registered JWK set cannot be read now; try again later",
    "issuer API (a requestor registered by jwks_uri)",
    http="503",
)

# --- The catalogue's operations on cards, accounts and the ledger (issue 14) -------------------
NOT_APPLICABLE = _d(
    "600.200.500",
    "operation not applicable to this card product (NA in the catalogue)",
    "any catalogue operation on a card of a product whose letter is NA",
)
NOT_ENABLED = _d(
    "600.200.510",
    "operation not enabled for this card product (C: its configuration does not allow it; "
    "O: switched off)",
    "any catalogue operation on a card of a product that does not offer it",
)
VIRTUAL_ONLY = _d(
    "600.200.520", "operation only for virtual cards", "card/CVV2Inquiry, card/CVV2Verify"
)
CARD_NOT_FOUND = _d(
    "700.100.110",
    "no card with this cardReference for this requestor",
    "every operation naming a card",
)
ACCOUNT_NOT_FOUND = _d(
    "700.100.111", "no account with this accountReference for this requestor", "account/*"
)
CUSTOMER_NOT_FOUND = _d(
    "700.100.112", "no customer with this customerReference for this requestor", "customer/*"
)
TRANSACTION_NOT_FOUND = _d(
    "700.100.113",
    "no transaction with this id for this requestor",
    "transaction/Refund, Reversal, UnblockFund",
)
PRODUCT_NOT_FOUND = _d(
    "700.100.114", "no active card product with this productCode", "application/CardApplication"
)
TOKEN_NOT_FOUND = _d(
    "700.150.110",
    "no token of this requestor's cards with this tokenUniqueReference",
    "token/*",
)
CARD_STATUS_NOT_ALLOWED = _d(
    "700.500.110",
    "card status change not allowed (CANCELLED and REPLACED are final)",
    "card/Activation, StatusUpdate, Cancellation, Replacement",
)
ACCOUNT_STATUS_NOT_ALLOWED = _d(
    "700.500.111",
    "account status change not allowed (CLOSED is final)",
    "account/StatusUpdate",
)
CANNOT_REVERSE = _d(
    "700.400.310",
    "cannot reverse: only an approved, unrefunded Purchase, Withdraw or LoadFund, and only once",
    "transaction/Reversal",
)
CANNOT_REFUND = _d(
    "700.400.210",
    "cannot refund: not an approved, unreversed Purchase, or more than is left of it",
    "transaction/Refund",
)
HOLD_NOT_OPEN = _d(
    "700.400.610",
    "the blocked funds are already released or expired",
    "transaction/UnblockFund",
)
CURRENCY_NOT_ACCOUNTS = _d(
    "700.400.420",
    "the currency must be the account's",
    "transaction/* moving money",
)
DUPLICATE_REFERENCE = _d(
    "800.110.110",
    "requestorReference already used with another request",
    "transaction/* (the same reference and body answer the stored answer)",
)
INSUFFICIENT_FUNDS = _d(
    "800.100.155",
    "declined: the amount exceeds the available balance",
    "transaction/Purchase, Withdraw, TransferFund, BlockFund, ServiceCharge, DebitAdjustment, "
    "Reversal of a LoadFund",
)
# Declines the acquirer answers too (for ISO 8583 41, 43, 62, 78, 61, 65): declared in core.
CARD_STOLEN = core_results.DECLINED_CARD_STOLEN
CARD_LOST = core_results.DECLINED_CARD_LOST
CARD_NOT_ACTIVE = core_results.DECLINED_CARD_NOT_ACTIVE
CARD_EXPIRED = _d(
    "800.100.157", "declined: the card is expired or the expiry date is wrong", "transaction/*"
)
ACCOUNT_NOT_ACTIVE = core_results.DECLINED_ACCOUNT_NOT_ACTIVE
LIMIT_EXCEEDED = core_results.DECLINED_LIMIT_EXCEEDED
COUNT_LIMIT_EXCEEDED = core_results.DECLINED_COUNT_LIMIT_EXCEEDED
WRONG_PIN = _d("800.100.166", "the PIN does not match", "card/PINVerify, PINChange")
PIN_BLOCKED = _d(
    "800.100.161",
    "PIN blocked after three wrong tries: reset it (card/PINReset)",
    "card/PINVerify, PINChange",
)
PIN_NOT_SET = _d("800.100.167", "the card has no PIN yet", "card/PINVerify, PINChange")
SECURITY_CODE_MISMATCH = _d(
    "100.100.610", "the CVV2 or dynamic CVV does not match", "card/CVV2Verify, transaction/*"
)
MAX_BALANCE_EXCEEDED = _d(
    "100.550.320",
    "declined: the account would hold more than the product's maximum balance",
    "transaction/LoadFund, TransferFund, Refund, CreditAdjustment",
)
NO_CONTACT_FOR_CHANNEL = _d(
    "100.700.810",
    "the cardholder has no mobile number (SMS) or e-mail address (EMAIL) for this channel",
    "card/SecureRegist, authentication/SendOTP",
)
KYC_NOT_VERIFIED = _d(
    "100.700.820",
    "the customer's KYC status is not VERIFIED",
    "card/Activation",
)
