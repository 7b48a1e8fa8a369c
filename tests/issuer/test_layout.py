"""The issuer's layout (issue 24): row locks only in its lock modules, the card services and the
money services one module per group of use cases under ~400 lines, and keyword-only public
functions, as in payments."""

import inspect
from pathlib import Path

import pytest
from django.conf import settings

from issuer import lock_objects as issuer_locks
from issuer.cards import lock_objects, money, selectors, services
from issuer.ledger import lock_objects as ledger_locks
from issuer.ledger import selectors as ledger_selectors
from issuer.ledger import services as ledger

ISSUER = Path(settings.BASE_DIR) / "issuer"
LOCK_MODULES = {"lock_objects.py"}


def test_the_issuer_locks_rows_only_in_its_lock_modules():
    offenders = [
        f"{path.relative_to(ISSUER)}:{number}"
        for path in ISSUER.rglob("*.py")
        if "migrations" not in path.parts and path.name not in LOCK_MODULES
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "select_for_update" in line
    ]
    assert offenders == []


@pytest.mark.parametrize("package", ["money", "services"])
def test_each_module_of_the_card_packages_is_under_400_lines(package):
    sizes = {
        path.name: len(path.read_text().splitlines())
        for path in (ISSUER / "cards" / package).glob("*.py")
    }
    assert len(sizes) > 4
    assert {name: size for name, size in sizes.items() if size > 400} == {}


def positional(module) -> list[str]:  # type: ignore[no-untyped-def]
    """Public functions defined in `module` that take an argument by position."""
    found = []
    for name, function in inspect.getmembers(module, inspect.isfunction):
        if name.startswith("_") or not function.__module__.startswith("issuer."):
            continue
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        if kinds & {inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD}:
            found.append(f"{function.__module__}.{name}")
    return found


def test_the_public_functions_of_cards_money_and_ledger_are_keyword_only():
    modules = [
        money, services, selectors, lock_objects, ledger, ledger_locks, ledger_selectors,
        issuer_locks,
    ]  # fmt: skip
    assert [name for module in modules for name in positional(module)] == []


# What money.py and cards/services.py offered before the split (issue 24): still importable there.
BEFORE_THE_SPLIT = {
    money: """Answer Request Where idempotent once request_hash issuer_account balances card_problem
        limit_problem load withdraw purchase service_charge adjust original_of refund REVERSIBLE
        reversal transfer block capture credit unblock verification AUTHORIZATION_TYPES history
        authorizations day_bounds""",
    services: """product_operations_create product_create require_letter card_of account_of
        customer_of card_by_number card_number card_expired product_named Address PAN_ATTEMPTS
        account_create card_apply card_set_status card_change_status card_activate card_cancel
        REPLACE_SAME REPLACE_SPECIFIC REPLACE_RANDOM card_replace LIMIT_FIELDS limits_set
        under_card_lock PinOutcome pin_reset pin_verify pin_change card_cvv2 card_cvv2_verify
        card_dcvv security_code_matches expiry_matches secure_register CUSTOMER_UPDATABLE
        customer_update account_link account_set_status""",
}


def test_the_split_packages_re_export_what_the_modules_offered():
    missing = [
        f"{package.__name__}.{name}"
        for package, names in BEFORE_THE_SPLIT.items()
        for name in names.split()
        if not hasattr(package, name)
    ]
    assert missing == []
