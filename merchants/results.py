"""Result codes of merchant management (registered in core's catalogue)."""

from core.results import declare

MERCHANT_NOT_FOUND = declare(
    "700.100.101",
    "merchant not existing or not reachable by this entity",
    owner="merchants",
    http="404",
    returned_by="every merchant operation; terminal create and status",
)
MERCHANT_STATUS_NOT_ALLOWED = declare(
    "700.500.100",
    "status change not allowed: a CLOSED or TERMINATED merchant cannot return to NORMAL",
    owner="merchants",
    returned_by="merchant/status",
)
THREEDS_ALREADY_ENROLLED = declare(
    "700.500.200",
    "merchant is already enrolled in 3-D Secure",
    owner="merchants",
    returned_by="merchant/3dsenroll",
)
THREEDS_NOT_ENROLLED = declare(
    "700.500.201",
    "merchant is not enrolled in 3-D Secure",
    owner="merchants",
    returned_by="merchant/3dsdelete",
)
