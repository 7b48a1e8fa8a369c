"""Formats the payment data groups share (spec: "Customer", "Billing address", "Shipping
address", "Cart", "Order")."""

from core.fields import AN, LETTER, Choice, Decimal_

TEXT255 = AN(255, example="text")
# "N13, two decimals": 13 digits in all, two of them decimals (a dot between).
N13 = Decimal_(int_digits=11, places=2, exact=True, code="N13 (11 integer digits, 2 decimals)")
# "N10.N2 (decimal part optional)" (order.totalAmount).
N10_N2_LOOSE = Decimal_(int_digits=10, places=2, exact=False, code="N10.N2 (decimals optional)")
BOOLEAN = Choice(("true", "false"))
# "alphanumeric" postcodes, with the inner space or hyphen real ones carry (SW1A 1AA, 00-950).
POSTCODE = AN(
    10,
    pattern=r"[A-Za-z0-9](?:[A-Za-z0-9 \-]*[A-Za-z0-9])?",
    what="letters and digits (an inner space or hyphen allowed)",
    example="10115",
)
STATE = AN(10, pattern=r"[A-Za-z0-9.]+", what="letters, digits and dot", example="BE")
# "letters" (shipping.city): any script, with the spaces, dots, hyphens, apostrophes of names.
LETTER_PLACE = AN(
    50,
    pattern=rf"{LETTER}+(?:[ .'\-]+{LETTER}+)*\.?",
    what="letters (with space . ' -)",
    example="Saint-Denis",
)
# "first char + or digit, then 7 to 25 of digits, space . ( ) / -": 8 to 26 characters in all.
PHONE = AN(
    26,
    min=8,
    pattern=r"[+0-9][0-9 .()/\-]{7,25}",
    what="+ or a digit, then 7 to 25 of digits, space . ( ) / -",
    example="+49 30 1234567",
)
MOBILE = AN(
    26,
    min=6,
    pattern=r"[+0-9][0-9 .()/\-]{5,25}",
    what="+ or a digit, then 5 to 25 of digits, space . ( ) / -",
    example="+491701234567",
)
