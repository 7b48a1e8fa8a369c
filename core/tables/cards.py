"""The card fields of the specification's payment request, shared by every table that takes a
card (payments, registrations, scheme tokens)."""

from ..fields import AN, Month, Year
from .table import CONDITIONAL, OPTIONAL, F

C, OPT = CONDITIONAL, OPTIONAL

CARD_NUMBER = AN(19, min=12, pattern=r"[0-9]+", what="12 to 19 digits", example="4200000000000000")

CARD_ROWS = [
    F("card.number", CARD_NUMBER, C, secret=True),
    F("card.holder", AN(128, min=3, example="Jane Doe"), OPT),
    F("card.expiryMonth", Month(), C),
    F("card.expiryYear", Year(), C),
    F(
        "card.cvv",
        AN(4, min=3, pattern=r"[0-9]{3,4}", what="3 or 4 digits", example="123"),
        C,
        secret=True,
    ),
]
CARD_NAMES = tuple(row.name for row in CARD_ROWS)

# A scheme token in place of the card (spec: card.token, "Globally unique token identifier").
CARD_TOKEN = F(
    "card.token",
    AN(64, pattern=r"[A-Za-z0-9]+", what="a token unique reference", example="DTKN" + "0" * 60),
    C,
    meaning="a scheme token of this merchant instead of card data (PA, DB, CV)",
)
