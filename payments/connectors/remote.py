"""The network a payment goes to when it is not on-us: the ISO 8583 link when
`PAYMENTS_NETWORK_URL` is set (iso_link.py), otherwise the in-process simulator (simulator.py),
which takes the same decisions without a wire."""

from django.conf import settings

from .base import Connector


def get_connector() -> Connector:
    if settings.PAYMENTS_NETWORK_URL:
        from .iso_link import Iso8583Connector

        return Iso8583Connector()
    from .simulator import SimulatorConnector

    return SimulatorConnector()
