"""An example request of every catalogue operation, in an order that works against a fresh
`make run` (its demo cards crd_demo_prepaid and crd_demo_debit, issuer.demo). A value
`<name>` is an id an earlier answer returned (the fourth item says which member) or one of the
demo's own values (GIVEN: the prepaid card's number): docs/issuer.md
shows these examples, in this order (`manage.py issuer_catalogue --write docs/issuer.md`), and
tests/issuer/test_operations.py runs them in this order, filling the ids in."""

from typing import Any

PREPAID, DEBIT = "crd_demo_prepaid", "crd_demo_debit"

# Values an example takes from the demo itself, not from an earlier answer: what the docs say
# of each, and how the tests fill it in (`given_values`).
GIVEN = {
    "number": "the demo prepaid card's number: the `on-us card` line `make run` (seed_demo) prints",
}


def given_values(client_id: str) -> dict[str, str]:
    """The GIVEN values for the demo requestor `client_id` (its demo cards, issuer.demo)."""
    from ..cards import services
    from ..demo import PREPAID_CARD

    card = services.card_of(client_id=client_id, reference=PREPAID_CARD)
    return {"number": services.card_number(card=card)}


# (group, operation, payload, the answer's id or member kept as <name>, expected result)
EXAMPLES: list[tuple[str, str, dict[str, Any], dict[str, str], str]] = [
    ("parameter", "DropDownListInquiry", {"listName": "CARD_PRODUCTS"}, {}, ""),
    (
        "application",
        "CardApplication",
        {
            "productCode": "DEMO-PREPAID-EUR",
            "cardForm": "VIRTUAL",
            "customer": {
                "firstName": "Max",
                "lastName": "Mustermann",
                "email": "max@example.org",
                "mobile": "+4915112345679",
                "kycStatus": "VERIFIED",
            },
        },
        {"card": "cardReference", "account": "accountReference", "customer": "customerReference"},
        "",
    ),
    ("customer", "CardInfoInquiry", {"cardReference": PREPAID}, {}, ""),
    # A requestor that knows only the number finds its card's cardReference (never the number).
    ("customer", "CardInfoInquiry", {"cardNumber": "<number>"}, {}, ""),
    ("customer", "AccountInfoInquiry", {"accountReference": "<account>"}, {}, ""),
    (
        "customer",
        "InfoUpdate",
        {"cardReference": "<card>", "mobile": "+4915112345670", "address": {"city": "Bonn"}},
        {},
        "",
    ),
    ("transaction", "BalanceInquiry", {"cardReference": PREPAID}, {}, ""),
    (
        "transaction",
        "LoadFund",
        {
            "cardReference": "<card>",
            "requestorReference": "load-0001",
            "amount": "100.00",
            "currency": "EUR",
        },
        {},
        "",
    ),
    (
        "transaction",
        "Purchase",
        {
            "cardReference": PREPAID,
            "requestorReference": "purchase-0001",
            "amount": "25.00",
            "currency": "EUR",
            "channel": "ECOMMERCE",
            "merchantName": "Demo Shop",
            "merchantCountry": "DE",
            "mcc": "5732",
        },
        {"purchase": "transactionId"},
        "",
    ),
    (
        "transaction",
        "Refund",
        {
            "originalTransactionId": "<purchase>",
            "requestorReference": "refund-0001",
            "amount": "5.00",
            "currency": "EUR",
        },
        {},
        "",
    ),
    (
        "transaction",
        "Withdraw",
        {
            "cardReference": PREPAID,
            "requestorReference": "withdraw-0001",
            "amount": "20.00",
            "currency": "EUR",
            "merchantName": "ATM Hauptbahnhof",
        },
        {"withdrawal": "transactionId"},
        "",
    ),
    (
        "transaction",
        "Reversal",
        {"originalTransactionId": "<withdrawal>", "requestorReference": "reversal-0001"},
        {},
        "",
    ),
    (
        "transaction",
        "BlockFund",
        {
            "cardReference": PREPAID,
            "requestorReference": "block-0001",
            "amount": "40.00",
            "currency": "EUR",
            "expiry": "3600",
            "merchantName": "Demo Hotel",
        },
        {"block": "transactionId"},
        "",
    ),
    (
        "transaction",
        "UnblockFund",
        {"originalTransactionId": "<block>", "requestorReference": "unblock-0001"},
        {},
        "",
    ),
    (
        "transaction",
        "TransferFund",
        {
            "cardReference": PREPAID,
            "targetCardReference": "<card>",
            "requestorReference": "transfer-0001",
            "amount": "10.00",
            "currency": "EUR",
        },
        {},
        "",
    ),
    (
        "transaction",
        "ServiceCharge",
        {
            "cardReference": PREPAID,
            "requestorReference": "fee-0001",
            "amount": "1.50",
            "currency": "EUR",
            "description": "monthly fee",
        },
        {},
        "",
    ),
    (
        "transaction",
        "Verification",
        {
            "cardReference": PREPAID,
            "requestorReference": "verify-0001",
            "merchantName": "Demo Shop",
        },
        {},
        "",
    ),
    (
        "transaction",
        "DebitAdjustment",
        {
            "cardReference": PREPAID,
            "requestorReference": "adjust-0001",
            "amount": "0.50",
            "currency": "EUR",
            "description": "correction",
        },
        {},
        "",
    ),
    (
        "transaction",
        "CreditAdjustment",
        {
            "cardReference": PREPAID,
            "requestorReference": "adjust-0002",
            "amount": "0.50",
            "currency": "EUR",
            "description": "goodwill",
        },
        {},
        "",
    ),
    (
        "transaction",
        "TransactionHistory",
        {"cardReference": PREPAID, "fromDate": "20260101", "page": "1", "pageSize": "20"},
        {},
        "",
    ),
    ("transaction", "AuthorizationHistory", {"cardReference": PREPAID, "type": "PURCHASE"}, {}, ""),
    (
        "token",
        "TokenInquiry",
        {"cardReference": PREPAID},
        {"token": "tokens[0].tokenUniqueReference"},
        "",
    ),
    (
        "token",
        "TokenRequest",
        {"cardReference": PREPAID, "tokenRequestorId": "demo-wallet"},
        {},
        "",
    ),
    ("token", "TokenMetadataUpdate", {"tokenUniqueReference": "<token>"}, {}, ""),
    ("token", "ReplenishTokenLUK", {"tokenUniqueReference": "<token>"}, {}, ""),
    (
        "token",
        "TokenStateNotification",
        {"tokenUniqueReference": "<token>", "status": "ACTIVE", "eventReasonCode": "PROVISIONED"},
        {},
        "",
    ),
    (
        "token",
        "TokenStateUpdate",
        {"tokenUniqueReference": "<token>", "action": "SUSPEND", "reason": "SUSPECTED_FRAUD"},
        {},
        "",
    ),
    ("card", "Activation", {"cardReference": "<card>"}, {}, ""),
    ("card", "CardInfoInquiry", {"cardReference": PREPAID}, {}, ""),
    (
        "card",
        "LimitSetting",
        {
            "cardReference": PREPAID,
            "limits": [
                {
                    "region": "DOMESTIC",
                    "channel": "ECOMMERCE",
                    "perTransactionAmount": "250.00",
                    "dailyAmount": "500.00",
                    "dailyCount": "20",
                },
                {"region": "OVERSEAS", "channel": "POS", "perTransactionAmount": "100.00"},
            ],
        },
        {},
        "",
    ),
    ("card", "CVV2Inquiry", {"cardReference": PREPAID}, {"cvv2": "cvv2"}, ""),
    ("card", "CVV2Verify", {"cardReference": PREPAID, "cvv2": "<cvv2>"}, {}, ""),
    ("card", "GenerateDCVV", {"cardReference": PREPAID}, {}, ""),
    ("card", "SecureRegist", {"cardReference": "<card>", "channel": "SMS"}, {}, ""),
    ("card", "PINReset", {"cardReference": "<card>", "newPin": "4321"}, {}, ""),
    ("card", "PINChange", {"cardReference": "<card>", "oldPin": "4321", "newPin": "8642"}, {}, ""),
    ("card", "PINVerify", {"cardReference": "<card>", "pin": "8642"}, {}, ""),
    (
        "card",
        "StatusUpdate",
        {"cardReference": "<card>", "status": "SUSPENDED", "reason": "CARDHOLDER_REQUEST"},
        {},
        "",
    ),
    (
        "card",
        "Replacement",
        {"cardReference": "<card>", "replacementType": "RANDOM", "reason": "DAMAGED"},
        {"replacement": "cardReference"},
        "",
    ),
    (
        "card",
        "Cancellation",
        {"cardReference": "<replacement>", "reason": "CARDHOLDER_REQUEST"},
        {},
        "",
    ),
    (
        "card",
        "ExpiryDateUpdate",
        {"cardReference": PREPAID, "expiryMonth": "12", "expiryYear": "2030"},
        {},
        "600.200.500",
    ),
    ("card", "BlacklistUpdate", {"cardReference": PREPAID, "blacklisted": "Y"}, {}, "600.200.500"),
    (
        "account",
        "AccountLinkage",
        {"cardReference": DEBIT, "iban": "DE89370400440532013000"},
        {},
        "",
    ),
    ("account", "StatusUpdate", {"accountReference": "<account>", "status": "SUSPENDED"}, {}, ""),
    (
        "authentication",
        "StartOOBAuthen",
        {
            "cardReference": PREPAID,
            "transactionId": "oob-0001",
            "amount": "10.00",
            "currency": "EUR",
            "merchantName": "Demo Shop",
        },
        {"authentication": "authenticationId"},
        "",
    ),
    ("authentication", "OOBResultInquiry", {"authenticationId": "<authentication>"}, {}, ""),
    (
        "authentication",
        "SendOTP",
        {"cardReference": DEBIT, "transactionId": "otp-0001", "channel": "SMS"},
        {"otp": "otpId", "code": "simulatorCode"},
        "",
    ),
    ("authentication", "VerifyOTP", {"otpId": "<otp>", "code": "<code>"}, {}, ""),
]
