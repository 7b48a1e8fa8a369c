"""Reads of the issuer's authentications for the cardholder's pages."""

import re

from django.db.models import Count, Sum
from django.utils import timezone

from .cards.models import Card
from .ledger.models import Hold
from .models import OOBAuthentication

# A masked card number as the issuer shows one: the first six digits, stars, the last four.
MASKED = re.compile(r"[0-9]{6}\*{2,9}[0-9]{4}")
UNKNOWN_CARD = "Your card"


def oob_card_shown(*, auth: OOBAuthentication) -> str:
    """How the cardholder's approval page names the card: its masked number, as printed on the
    cardholder's statement, never the requestor's internal cardReference (crd_...). The
    requestor's cardReference names one of its cards (StartOOBAuthen checks it); the platform's
    own 3-D Secure challenge keeps the masked number itself."""
    card = (
        Card.objects.filter(client_id=auth.client_id, reference=auth.card_reference)
        .only("card_bin", "last4")
        .first()
    )
    if card is not None:
        return card.masked
    if MASKED.fullmatch(auth.card_reference):
        return auth.card_reference
    return UNKNOWN_CARD


def ledger_holds_in_force() -> list[tuple[str, int, float]]:
    """(currency, number, amount) of the holds that count now (neither released nor expired),
    by the currency of their accounts: the metrics' ledger holds."""
    rows = (
        Hold.objects.filter(released_at__isnull=True, expires_at__gt=timezone.now())
        .order_by()
        .values_list("account__currency")
        .annotate(count=Count("pk"), amount=Sum("amount"))
    )
    return [(currency, count, float(amount or 0)) for currency, count, amount in rows]
