"""The issuer's double-entry card ledger (issue 14): accounts, journals whose entries sum to zero
per currency (a deferred constraint trigger on PostgreSQL, the service's own check everywhere),
balances kept beside the entries under the same row lock, and holds that make the available
balance."""
