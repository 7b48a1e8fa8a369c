"""Connectors to the card networks (base.py): the simulator for every card but the platform's
own issuer's, which the on-us connector takes (onus.py) when an issuer is plugged into the port
(onus_port.py). `connector_for` routes a payment; responses.py turns an ISO 8583 response code
into a result code; ids.py derives an answer's identifiers."""
