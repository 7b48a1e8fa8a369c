"""What a payment answers (spec "Payment response" and the common response fields), as rows
rendered from the stored payment: the request's formats where the request has the field."""

from core.cards import BRANDS
from core.fields import AN, Amount, Base64, Choice, Currency, Month, N, Year
from core.tables import F, Table

from ...models import PaymentType
from ...registrations.tables import STANDING_INSTRUCTION_ANSWER
from ...threeds.tables import CARDHOLDER_HISTORY, TRANS_STATUS
from .addresses import BILLING, SHIPPING
from .cart import CUSTOM_PARAMETERS
from .parties import CUSTOMER
from .payment import TRANSACTION_ID

TEXT = AN(255)


PAYMENT_ANSWER = Table(
    [
        F("paymentType", Choice(tuple(PaymentType.values))),
        F("paymentBrand", Choice(BRANDS)),
        F("amount", Amount()),
        F("currency", Currency()),
        F("descriptor", AN(127)),
        F("referencedId", TRANSACTION_ID, attr="referenced_id"),
        F("card.bin", N(6), attr="card_bin"),
        F("card.last4Digits", N(4), attr="card_last4"),
        F("card.holder", AN(128), attr="card_holder"),
        F("card.expiryMonth", Month(), attr="card_expiry_month"),
        F("card.expiryYear", Year(), attr="card_expiry_year"),
        F("resultDetails.AuthCode", AN(6), attr="auth_code"),
        F("resultDetails.AcquirerResponse", TEXT, attr="acquirer_response"),
        F("resultDetails.clearingInstituteName", TEXT, attr="clearing_institute"),
        F(
            "resultDetails.ReversalId",
            TRANSACTION_ID,
            attr="timeout_reversal_id",
            meaning="with 900.100.301: the reversal that undid a payment whose answer never came",
        ),
        F("additionalData.TraceAuditNo", N(6), attr="stan"),
        F("additionalData.EntryMode", N(2), attr="entry_mode"),
        F("additionalData.ConditionCode", N(2), attr="condition_code"),
        F("additionalData.RetrievalRefNo", N(12), attr="retrieval_ref_no"),
        F("additionalData.AcquirerRefno", N(23), attr="acquirer_ref_no"),
        F("additionalData.RequestId", AN(64), attr="network_reference"),
        F("risk.score", AN(32), attr="risk_score"),
        F("risk.decision", AN(32), attr="risk_decision"),
        F("merchant.id", N(15), attr="merchant.merchant_id"),
        F("merchant.bankAccount.holder", AN(128), attr="merchant.bank_account_holder"),
        F("merchant.bankAccount.number", AN(64), attr="merchant.bank_account_number"),
        F("merchant.bankAccount.bic", AN(11), attr="merchant.bank_account_bic"),
        F("merchant.bankAccount.country", AN(2), attr="merchant.bank_account_country"),
        F("pos.terminalId", AN(8), attr="terminal.terminal_id"),
    ]
)

# The inquiry adds what the request said of itself.
PAYMENT_INQUIRY_ANSWER = Table(
    [
        F("merchantTransactionId", AN(32), attr="merchant_transaction_id"),
        F("merchantMemo", AN(255), attr="merchant_memo"),
        F("transactionSource", AN(32), attr="transaction_source"),
        F(
            "capturedAmount",
            Amount(),
            attr="captured_so_far",
            meaning="a successful PA: what its captures took (approved CPs)",
        ),
        F(
            "capturableAmount",
            Amount(),
            attr="left_to_capture",
            meaning="a successful PA: what a capture may still take (0 once closed or reversed)",
        ),
    ]
)

# The 3-D Secure block of a final answer (the built-in authentication's result, or the
# pre-authenticated data sent with indicator=third), and the redirect of a pending one.
ACS_ID = AN(64, pattern=r"[A-Za-z0-9-]+", what="letters, digits and hyphen")
THREEDS_ANSWER = [
    F("threeDSecure.eci", N(2, min=2), meaning="electronic commerce indicator"),
    F("threeDSecure.verificationId", Base64(255), meaning="the authentication value (CAVV)"),
    F("threeDSecure.version", Choice(("2.2.0", "2.1.0"))),
    F("threeDSecure.dsTransactionId", ACS_ID),
    F("threeDSecure.acsTransactionId", ACS_ID),
    F("threeDSecure.authenticationStatus", Choice(tuple(TRANS_STATUS)), meaning="transStatus"),
    F("redirect.url", AN(2048), meaning="where the shopper's browser posts redirect.parameters"),
    F("redirect.method", Choice(("POST",))),
    F("redirect.parameters[n].name", Choice(("threeDSSessionData", "threeDSMethodURL"))),
    F("redirect.parameters[n].value", AN(2048)),
]

# Everything a payment's answer may carry beside the envelope (payments.render.payment_body):
# the answer rows, the inquiry's, the 3-D Secure block, the custom parameters as sent (the
# cardholder history with its formats), and in the inquiry the customer, billing and shipping
# groups that were sent.
PAYMENT_DOCUMENTED = Table(
    [
        *PAYMENT_ANSWER,
        *PAYMENT_INQUIRY_ANSWER,
        *STANDING_INSTRUCTION_ANSWER,
        *THREEDS_ANSWER,
        *CUSTOM_PARAMETERS,
        *CARDHOLDER_HISTORY,
        *[row for row in CUSTOMER if not row.name.startswith("customer.browser.")],
        *BILLING,
        *SHIPPING,
    ]
)
