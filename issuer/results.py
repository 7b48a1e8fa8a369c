"""Result codes of the issuer operations (registered in core's catalogue). They travel inside
the JWE answer of `POST /issuer/v1/{group}/{Operation}` (HTTP 200)."""

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
