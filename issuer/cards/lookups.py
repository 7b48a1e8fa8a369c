"""The lookup tables the operations use (and DropDownListInquiry answers): codes with their
descriptions."""

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
