"""Staff admin of the issuer's cards (imported by issuer.admin), one module per subject:

- products: card products, with the applicability table (each catalogue operation's letter,
  and whether the product offers it: O and C can be switched, M and NA cannot) and the BIN
  ranges.
- customers: customers; accounts with their ledger balance, available balance and journal
  (read only).
- cards: cards, masked, never the number; status actions through the services (who, when and
  why in the history); limits edited under the card's row lock.
- ledger, transactions: the ledger's accounts and journals, and the issuer's transactions and
  token events: read only.

Staff read words, not codes: a status or a kind by its label, a reason with its code beside it
(the API speaks it). An amount has its currency's ISO 4217 exponent (EUR 250.00, JPY 250, BHD
250.000), though the model keeps three decimals for every currency (docs/portal.md): `common`.
"""

from . import cards, customers, ledger, products, transactions  # noqa: F401 - registers them
