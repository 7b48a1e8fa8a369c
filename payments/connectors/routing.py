"""Which connector a payment goes to: the on-us connector for a card of the platform's own
issuer (found by its fingerprint, the original's for a referenced payment), the simulator for
every other card, and for every card when no issuer is plugged in (onus_port). One interface
(base.Connector) either way."""

from ..models import Payment
from . import onus_port
from .base import Connector
from .onus import OnUsConnector
from .remote import get_connector


def fingerprint_of(payment: Payment) -> str:
    root: Payment | None = payment
    while root is not None and not root.pan_fingerprint:
        root = root.referenced  # a CP, RV, RF or PR: the card of the payment it refers to
    return root.pan_fingerprint if root is not None else ""


def connector_for(payment: Payment) -> Connector:
    issuer = onus_port.registered()
    if issuer is not None:
        fingerprint = fingerprint_of(payment)
        if fingerprint and issuer.owns(fingerprint):
            return OnUsConnector(issuer)
    return get_connector()
