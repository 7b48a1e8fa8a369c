"""The issuer operation catalogue as data: the specification's operations and letters, the
implemented ones, and the OAuth scopes derived from them."""

from issuer.catalogue import CATALOGUE
from issuer.operations import IMPLEMENTED
from issuer.operations.oauth_scopes import CatalogueScopes
from issuer.protocol.requestors import known_scopes


def test_the_catalogue_holds_the_specifications_operations_and_letters():
    assert len(CATALOGUE) == 47  # the Card group's unnamed entry no. 9 is left out
    assert CATALOGUE["card", "PINReset"].applies("prepaid") == "O"
    assert CATALOGUE["card", "PINReset"].applies("debit") == "M"
    assert CATALOGUE["transaction", "Reversal"].applies("debit") == "NA"
    assert CATALOGUE["card", "ExpiryDateUpdate"].prepaid == "NA"
    assert CATALOGUE["authentication", "SendOTP"].prepaid is None


def test_one_scope_per_group_and_the_authentication_scopes():
    assert CATALOGUE["card", "Activation"].scope == "CARD"
    assert CATALOGUE["transaction", "LoadFund"].scope == "TRANSACTION"
    assert CATALOGUE["authentication", "StartOOBAuthen"].scope == "START_OOB"
    assert CATALOGUE["authentication", "OOBResultInquiry"].scope == "CHECK_OOB"
    assert CATALOGUE["authentication", "VerifyOTP"].scope == "OTP"


def test_the_known_scopes_are_those_of_the_implemented_operations():
    # Issue 14 built every entry of the catalogue (issue 5 built the Authentication group).
    assert set(IMPLEMENTED) == set(CATALOGUE)
    assert known_scopes() == {
        "START_OOB",
        "CHECK_OOB",
        "OTP",
        "APPLICATION",
        "CUSTOMER",
        "ACCOUNT",
        "CARD",
        "TRANSACTION",
        "TOKEN",
        "PARAMETER",
    }
    assert set(CatalogueScopes().get_all_scopes()) == known_scopes()
