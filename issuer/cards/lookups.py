"""The lookup tables the operations use (and DropDownListInquiry answers): codes with their
descriptions."""

from django.utils.text import capfirst

STATUS_REASONS = {
    "CARDHOLDER_REQUEST": "the cardholder asked for it",
    "ISSUER_DECISION": "the issuer decided it",
    "SUSPECTED_FRAUD": "fraud is suspected",
    "LOST": "the card is lost",
    "STOLEN": "the card is stolen",
    "DAMAGED": "the card is damaged",
    "EXPIRED": "the card has expired",
    "CLOSED_ACCOUNT": "the account is closed",
    "ACTIVATED": "first activation",
    "FOUND": "the card was found again",
}

REPLACEMENT_REASONS = {
    "LOST": "the card is lost (the old card becomes LOST, then REPLACED)",
    "STOLEN": "the card is stolen (the old card becomes STOLEN, then REPLACED)",
    "DAMAGED": "the card is damaged",
    "EXPIRING": "the card is about to expire",
    "COMPROMISED": "the card number is compromised",
    "UPGRADE_TO_PHYSICAL": "a physical card for a virtual one",
}

# Replacement reasons that must give the replacement a new number.
NEW_NUMBER_REASONS = {"LOST", "STOLEN", "COMPROMISED"}

# What a card's history records as a change's reason: a status reason, a replacement's reason
# (the new card's first row), or ISSUED (a card's first row).
_HISTORY_REASONS = {"ISSUED": "the card was issued", **REPLACEMENT_REASONS, **STATUS_REASONS}


def reason_text(code: str) -> str:
    """A status reason as staff read it, with the code the API speaks beside it for support:
    "Fraud is suspected (SUSPECTED_FRAUD)"; an unknown code alone, "" for none."""
    description = _HISTORY_REASONS.get(code)
    return f"{capfirst(description)} ({code})" if description else code
