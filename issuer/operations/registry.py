"""The implemented operations: `(group, Operation)` -> scope, request table, handler; and the
runner that validates a decrypted request and answers it in the platform's envelope.

A handler module registers each operation it implements with `register`; the operation must be
in the specification's catalogue (issuer/catalogue.py), which gives its scope and its applicability.
`POST /issuer/v1/{group}/{Operation}` (issuer.protocol.api) looks the operation up here, checks
the token's scope, decrypts the body and calls `perform`. Refusals are raised as core's
ApplicationError (a table's ParameterError included) and answered through core's one
exception-to-envelope function, inside the JWE, like every other answer.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from core import metrics, results
from core.envelope import envelope
from core.errors import ApplicationError, ParameterError, error_answer
from core.tables import F, Table

from ..catalogue import CATALOGUE, SCOPE_DESCRIPTIONS, Entry

Answer = tuple[results.Result, dict[str, Any], str | None]  # result, fields, envelope id


@dataclass(frozen=True)
class Call:
    """What a handler gets: the requestor (the access token's client) and the parsed fields."""

    client_id: str
    fields: dict[str, Any]
    entry: Entry | None = None  # the catalogue entry (its letters)
    payload: Mapping[str, Any] | None = None  # the decrypted request (requestorReference hash)

    @property
    def actor(self) -> str:
        return f"requestor:{self.client_id}"


Handler = Callable[["Call"], Answer]


@dataclass(frozen=True)
class Operation:
    entry: Entry
    table: Table
    handler: Handler
    summary: str

    @property
    def group(self) -> str:
        return self.entry.group

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def scope(self) -> str:
        return self.entry.scope

    @property
    def path(self) -> str:
        return self.entry.path


IMPLEMENTED: dict[tuple[str, str], Operation] = {}

# The only fields a card number (PAN) may be sent in, by operation: the number a Replacement
# SPECIFIC gives the new card, and the number CardInfoInquiry finds the requestor's own card by.
# Each is a secret row (never echoed in an error) that its handler turns into a card at once:
# the number is never stored in clear, answered or logged. Anywhere else a card number is
# refused (`_card_numbers`), and `register` refuses a secret row that would take one unlisted.
CARD_NUMBER_FIELDS: dict[tuple[str, str], str] = {
    ("card", "Replacement"): "cardNumber",
    ("card", "CardInfoInquiry"): "cardNumber",
    ("customer", "CardInfoInquiry"): "cardNumber",
}
# What a card number looks like to a field type (Luhn-valid, 16 digits).
_A_CARD_NUMBER = "4111111111111111"


def _takes_a_card_number(row: F) -> bool:
    try:
        row.type.parse(_A_CARD_NUMBER)
    except ValueError:
        return False
    return True


def register(group: str, name: str, *, table: Table, summary: str) -> Callable[[Handler], Handler]:
    def decorator(handler: Handler) -> Handler:
        key = (group, name)
        assert key in CATALOGUE, f"{group}/{name} is not in the catalogue"
        assert key not in IMPLEMENTED, key
        allowed = CARD_NUMBER_FIELDS.get(key)
        for row in table:
            if row.name == allowed:
                assert row.secret, f"{group}/{name}: {row.name} carries a card number: secret"
            else:
                # A secret row is not searched for card numbers: it must not take one.
                assert not (row.secret and _takes_a_card_number(row)), (
                    f"{group}/{name}: {row.name} would take a card number: list it in "
                    "CARD_NUMBER_FIELDS or refuse one in its type"
                )
        IMPLEMENTED[key] = Operation(CATALOGUE[key], table, handler, summary)
        return handler

    return decorator


def group(name: str) -> Callable[[str, Table, str], Callable[[Handler], Handler]]:
    """`register` for the operations of one catalogue group: `@card("Activation", TABLE, "...")`."""

    def registrar(operation: str, table: Table, summary: str) -> Callable[[Handler], Handler]:
        return register(name, operation, table=table, summary=summary)

    return registrar


def lookup(group: str, name: str) -> Operation | None:
    return IMPLEMENTED.get((group, name))


def scopes() -> dict[str, str]:
    """The OAuth scopes of the implemented operations, with their descriptions."""
    return {
        op.scope: SCOPE_DESCRIPTIONS.get(op.scope, f"the {op.group} operations")
        for op in IMPLEMENTED.values()
    }


def _as_text(value: Any) -> Any:
    """JSON scalars as the text the field types parse: numbers keep their digits (Decimal from
    the strict decoder), null is blank; booleans, objects and arrays are left to be refused."""
    if isinstance(value, bool):
        return value
    if isinstance(value, Mapping):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    if isinstance(value, int | Decimal):
        return str(value)
    if value is None:
        return ""
    return value


def _card_numbers(operation: Operation, payload: Mapping[str, Any]) -> None:
    """No card number in any field but the operation's card-number field (CARD_NUMBER_FIELDS):
    references, names and descriptions are stored and shown, a PAN must never be. The other
    secret rows (a PIN, a CVV2, a one-time code, a cardReference) are never shown, and their
    types refuse a card number (`register` checks it)."""
    from core.nesting import flatten

    from .fields import mentions_card_number

    allowed = CARD_NUMBER_FIELDS.get((operation.group, operation.name))
    found = []
    for name, value in flatten(payload):
        row = operation.table.match(name)
        if row is not None and (row.name == allowed or row.secret):
            continue
        if isinstance(value, str | int) and mentions_card_number(str(value)):
            found.append((name, "***", "must not carry a card number (PAN)"))
    if found:
        raise ParameterError(found)


def perform(operation: Operation, *, client_id: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the decrypted request and run the operation; the answer's envelope."""
    try:
        _card_numbers(operation, payload)
        fields = operation.table.validate({k: _as_text(v) for k, v in payload.items()})
        call = Call(client_id=client_id, fields=fields, entry=operation.entry, payload=payload)
        result, data, answer_id = operation.handler(call)
    except ApplicationError as exc:
        body = error_answer(exc).body
    else:
        body = envelope(result, id=answer_id, data=data)
    metrics.issuer_answered(operation=operation.name, code=body["result"]["code"])
    return body
