"""Result codes of terminal management (registered in core's catalogue)."""

from core.results import declare

TERMINAL_NOT_FOUND = declare(
    "700.100.102",
    "terminal not existing or not reachable by this entity",
    owner="terminals",
    http="404",
    returned_by="terminal update, status, inquiry",
)
TERMINAL_STATUS_NOT_ALLOWED = declare(
    "700.500.101",
    "status change not allowed: a CLOSED or TERMINATED terminal cannot return to NORMAL",
    owner="terminals",
    returned_by="terminal/status",
)
