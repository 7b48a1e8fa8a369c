"""Result codes of tokenization (registered in core's catalogue)."""

from core.results import Result, declare

TOKENIZE = "POST /pay/v3/tokenize"


def _d(code: str, description: str, returned_by: str, http: str = "200") -> Result:
    return declare(code, description, owner="tokenization", http=http, returned_by=returned_by)


TOKEN_NEEDS_AUTHENTICATION = _d(
    "000.200.103",
    "token created INACTIVE: the cardholder must complete additional authentication before it "
    "is activated (decision REQUIRE_ADDITIONAL_AUTHENTICATION)",
    f"{TOKENIZE} CT",
)
TOKEN_DECLINED = _d(
    "800.100.160",
    "token request declined by the card's issuer (decision DECLINED)",
    f"{TOKENIZE} CT",
)
TOKEN_NOT_FOUND = _d(
    "700.150.100",
    "token does not exist",
    f"{TOKENIZE} DT, GT, GA; payments with card.token (another merchant's token too)",
    http="404",
)
TOKEN_STATUS_NOT_ALLOWED = _d(
    "700.150.200",
    "token status change not allowed (a DEACTIVATED token never changes again)",
    "token status changes (admin, issuer)",
)
TOKEN_NOT_ACTIVE = _d(
    "700.150.300",
    "token cannot pay: it is not ACTIVE (INACTIVE, SUSPENDED or DEACTIVATED)",
    "PA, DB, CV with card.token",
)
ASSET_NOT_FOUND = _d("700.150.400", "asset does not exist", "GET /pay/v3/asset/{assetId}", "404")
ARTWORK_INVALID = _d(
    "700.150.500",
    "card art refused: a file is not what its media type says (a PNG with alpha of 16 to 4096 "
    "pixels a side, a PDF, an SVG, UTF-8 text; at most 2048 KiB), or not a media type of card art",
    "card art (the admin's card products)",
)
