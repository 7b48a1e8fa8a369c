"""The references the issuer gives its rows (cardReference, customerReference, ...): a prefix
and 24 hex digits, never twelve decimal digits in a row."""

import re

from core.envelope import new_id

# Twelve digits in a row could be taken for a card number (the API refuses one in any reference
# field): a reference never has them, so none the issuer gives is ever refused when sent back.
_CARD_LIKE_DIGITS = re.compile(r"[0-9]{12}")


def reference(prefix: str) -> str:
    """`prefix_` and 24 hex digits, drawn again (about 1 in 250 draws) while twelve of them in a
    row are decimal digits."""
    while True:
        made = f"{prefix}_{new_id()[:24]}"
        if not _CARD_LIKE_DIGITS.search(made):
            return made


def card_reference() -> str:
    return reference("crd")


def customer_reference() -> str:
    return reference("cus")


def account_reference() -> str:
    return reference("acc")


def transaction_reference() -> str:
    return reference("txn")
