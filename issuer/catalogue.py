"""The specification's catalogue of issuer operations, as data ("Issuer operation catalogue").

Each entry: the path group, the operation name, and the applicability letters for prepaid and
debit products (M mandatory, O optional, C conditional on the product's configuration, NA not
applicable; None where the specification gives none: the operation applies to every product).
Paths are `POST /issuer/v1/{group}/{Operation}`. One OAuth scope per group, the group's name in
capitals, except the Authentication operations, which have the specification's START_OOB and
CHECK_OOB and the platform's OTP (docs/decisions.md).

A handler module registers what it implements (issuer.operations.registry.register); every
entry has one. The cards' products read the letters here too (issuer.cards.services.products):
the catalogue is data below both, so the domain does not import its API layer. The
catalogue's entry no. 9 of the Card group has no name, no letters and no description in the
specification, so it is left out (docs/decisions.md, "Issuer catalogue").
"""

from dataclasses import dataclass

M, O, C, NA = "M", "O", "C", "NA"  # noqa: E741 - the specification's letters


@dataclass(frozen=True)
class Entry:
    group: str
    name: str
    prepaid: str | None
    debit: str | None
    scope: str

    @property
    def path(self) -> str:
        return f"{self.group}/{self.name}"

    def applies(self, product: str) -> str | None:
        """The letter for a product kind ("prepaid" or "debit"); None: no letter given."""
        return {"prepaid": self.prepaid, "debit": self.debit}[product]


AUTHENTICATION_SCOPES = {
    "StartOOBAuthen": "START_OOB",
    "OOBResultInquiry": "CHECK_OOB",
    "SendOTP": "OTP",
    "VerifyOTP": "OTP",
}

SCOPE_DESCRIPTIONS = {
    "START_OOB": "Start an out-of-band authentication of a cardholder",
    "CHECK_OOB": "Read the result of an out-of-band authentication",
    "OTP": "Send and verify one-time passwords",
    "APPLICATION": "Apply for cards",
    "CUSTOMER": "Read and update cardholders and their accounts",
    "ACCOUNT": "Link accounts to cards, change an account's status",
    "CARD": "Card information, lifecycle, limits, CVV2, dCVV, PIN, 3-D Secure channel",
    "TRANSACTION": "Balances, money in and out, holds, reversals, histories",
    "TOKEN": "Scheme tokens of the issuer's cards",
    "PARAMETER": "Lookup tables",
}

_LETTERS: dict[str, list[tuple[str, str | None, str | None]]] = {
    "application": [("CardApplication", M, M)],
    "customer": [("CardInfoInquiry", M, M), ("AccountInfoInquiry", O, NA), ("InfoUpdate", O, O)],
    "account": [("AccountLinkage", O, O), ("StatusUpdate", O, NA)],
    "card": [
        ("CardInfoInquiry", O, O),
        ("Activation", O, O),
        ("Replacement", O, O),
        ("Cancellation", O, O),
        ("StatusUpdate", C, C),
        ("LimitSetting", O, O),
        ("CVV2Inquiry", O, NA),
        ("CVV2Verify", O, NA),
        ("GenerateDCVV", O, O),
        ("ExpiryDateUpdate", NA, NA),
        ("SecureRegist", O, O),
        ("BlacklistUpdate", NA, NA),
        ("PINReset", O, M),
        ("PINChange", O, M),
        ("PINVerify", O, O),
    ],
    "transaction": [
        ("BalanceInquiry", O, NA),
        ("LoadFund", O, NA),
        ("Withdraw", C, NA),
        ("TransferFund", O, NA),
        ("Purchase", C, NA),
        ("Refund", C, NA),
        ("Reversal", M, NA),
        ("BlockFund", C, NA),
        ("UnblockFund", C, NA),
        ("ServiceCharge", O, NA),
        ("Verification", O, NA),
        ("DebitAdjustment", O, NA),
        ("CreditAdjustment", O, NA),
        ("TransactionHistory", M, NA),
        ("AuthorizationHistory", O, NA),
    ],
    "token": [
        (name, None, None)
        for name in (
            "TokenInquiry",
            "TokenRequest",
            "TokenStateUpdate",
            "TokenStateNotification",
            "TokenMetadataUpdate",
            "ReplenishTokenLUK",
        )
    ],
    "authentication": [(name, None, None) for name in AUTHENTICATION_SCOPES],
    "parameter": [("DropDownListInquiry", None, None)],
}


def _scope(group: str, name: str) -> str:
    return (
        AUTHENTICATION_SCOPES.get(name, group.upper())
        if group == "authentication"
        else (group.upper())
    )


CATALOGUE: dict[tuple[str, str], Entry] = {
    (group, name): Entry(group, name, prepaid, debit, _scope(group, name))
    for group, entries in _LETTERS.items()
    for name, prepaid, debit in entries
}
