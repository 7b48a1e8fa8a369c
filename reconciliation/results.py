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
