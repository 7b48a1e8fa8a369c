"""The Account group: AccountLinkage, StatusUpdate (docs/issuer.md)."""

from core import results
from core.fields import AN, Choice
from core.tables import MANDATORY, OPTIONAL, F, Table

from ..cards import services
from ..cards.models import AccountStatus
from .common import CARD_REFERENCE, card_fields, card_for
from .customer import ACCOUNT_REFERENCE, account_fields
from .fields import Iban
from .registry import Answer, Call, group

account = group("account")

LINKAGE = Table(
    [
        CARD_REFERENCE,
        F("iban", Iban(), OPTIONAL, meaning="debit: the bank account to link"),
        F(
            "accountReference",
            AN(32, example="acc_0f1e2d3c4b5a69788796a5b4"),
            OPTIONAL,
            meaning="prepaid: another e-money account of the customer",
        ),
    ]
)


@account("AccountLinkage", LINKAGE, "link a card to an account (debit: a bank account by IBAN)")
def linkage(call: Call) -> Answer:
    card = card_for(call)
    target = None
    if call.fields.get("accountReference"):
        target = services.account_of(
            client_id=call.client_id, reference=call.fields["accountReference"]
        )
    card = services.account_link(card=card, iban=call.fields.get("iban") or "", account=target)
    return results.REQUEST_SUCCEEDED, card_fields(card), None


STATUS_UPDATE = Table(
    [
        ACCOUNT_REFERENCE,
        F("status", Choice(tuple(AccountStatus.values)), MANDATORY),
        F("reason", AN(64), OPTIONAL),
    ]
)


@account("StatusUpdate", STATUS_UPDATE, "suspend, resume or close an account")
def status_update(call: Call) -> Answer:
    target = services.account_of(
        client_id=call.client_id, reference=call.fields["accountReference"]
    )
    assert call.entry is not None
    services.require_letter(product=target.product, entry=call.entry)
    updated = services.account_set_status(
        account=target, target=call.fields["status"], actor=call.actor
    )
    return results.REQUEST_SUCCEEDED, account_fields(updated), None
