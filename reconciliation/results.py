"""Result codes of reconciliation (registered in core's catalogue)."""

from core.results import Result, declare


def _d(code: str, description: str, returned_by: str, http: str = "200") -> Result:
    return declare(code, description, owner="reconciliation", http=http, returned_by=returned_by)


RATE_EXISTS = _d(
    "700.550.100",
    "an exchange rate for this currency and effective date exists already (a rate whose "
    "effective date has not come may be replaced with exchangerate/update)",
    "POST /v3/exchangerate/create",
)
RATE_IN_FORCE = _d(
    "700.550.110",
    "exchange rate in force or past: only a rate whose effective date has not come may be replaced",
    "POST /v3/exchangerate/update",
)
RATE_NOT_FOUND = _d(
    "700.550.120",
    "no exchange rate for this currency on that date",
    "POST /v3/exchangerate/update; GET /v3/exchangerate/Inquiry; conversions",
    http="404",
)

CHARGEBACKS = "chargeback_record (the admin's Chargebacks, chargebacks_import)"
CHARGEBACK_PAYMENT_NOT_FOUND = _d(
    "700.550.200", "chargeback: no payment with this id or ARN", CHARGEBACKS, http="404"
)
CHARGEBACK_NOT_A_SALE = _d(
    "700.550.210",
    "chargeback refused: only a successful sale (DB or CP) not made in connector test mode can "
    "be charged back",
    CHARGEBACKS,
)
CHARGEBACK_CURRENCY = _d(
    "700.550.220", "chargeback refused: not in the payment's currency", CHARGEBACKS
)
CHARGEBACK_AMOUNT = _d(
    "700.550.230",
    "chargeback refused: the amount must be more than 0 and at most the sale less what was "
    "reversed, refunded or charged back already",
    CHARGEBACKS,
)
CHARGEBACK_REVERSED = _d(
    "700.550.240",
    "chargeback reversal refused: the chargeback is reversed already",
    "chargeback_reverse (the admin's Chargebacks)",
)
RECON_FILE_KIND_UNKNOWN = _d(
    "700.550.300",
    "reconciliation file not matched: its name says neither production (RECONDTP) nor test "
    "(RECONDTT); say which it is",
    "recon_match",
)
