"""Connectors to the card networks (base.py): the simulator for every card but the platform's
own issuer's, which the on-us connector takes (onus.py). `connector_for` routes a payment."""
