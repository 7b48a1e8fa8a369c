"""Fields every request carries (entityId, entityType, merchantTransactionId)."""

from ..fields import AN, Choice
from .table import MANDATORY, OPTIONAL, F

ENTITY_ID = F(
    "entityId",
    AN(8, min=8, pattern=r"[A-Z0-9]{8}", what="uppercase letters and digits", example="BANK0001"),
    MANDATORY,
)
ENTITY_TYPE = F("entityType", Choice(("MERCHANT", "POS", "PARTICIPATOR")), MANDATORY)
MERCHANT_TRANSACTION_ID = F(
    "merchantTransactionId",
    AN(32, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="ref0001"),
    MANDATORY,
)
MERCHANT_TRANSACTION_ID_OPTIONAL = F(
    MERCHANT_TRANSACTION_ID.name, MERCHANT_TRANSACTION_ID.type, OPTIONAL
)

# pos.terminalId: acquirer-assigned, 1 to 8 letters, digits, underscore (spec "Terminal (POS)").
TERMINAL_ID_TYPE = AN(
    8, pattern=r"[A-Za-z0-9_]+", what="letters, digits, underscore", example="T0000001"
)

COMMON = [ENTITY_ID, ENTITY_TYPE, MERCHANT_TRANSACTION_ID]
COMMON_INQUIRY = [ENTITY_ID, ENTITY_TYPE, MERCHANT_TRANSACTION_ID_OPTIONAL]
