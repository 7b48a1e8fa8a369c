"""The issuer's cards: products with their catalogue letters, BIN ranges, customers, accounts,
cards, limits, secrets (CVV2, dCVV, PIN) and the money operations over the ledger."""
