"""What a payment answers (spec "Payment response" and the common response fields), as rows
rendered from the stored payment: the request's formats where the request has the field."""

from core.fields import AN, Amount, Choice, Currency, N
from core.tables import F, Table

from ...cards import BRANDS
from ...models import PaymentType
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
        F("card.expiryMonth", N(2), attr="card_expiry_month"),
        F("card.expiryYear", N(4), attr="card_expiry_year"),
        F("resultDetails.AuthCode", AN(6), attr="auth_code"),
        F("resultDetails.AcquirerResponse", TEXT, attr="acquirer_response"),
        F(
            "resultDetails.clearingInstituteName",
            TEXT,
            source=lambda payment: "Simulator" if payment.stan else None,
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
        F("pos.terminalId", AN(8), attr="terminal.terminal_id"),
    ]
)

# The inquiry adds what the request said of itself.
PAYMENT_INQUIRY_ANSWER = Table(
    [
        F("merchantTransactionId", AN(32), attr="merchant_transaction_id"),
        F("merchantMemo", AN(255), attr="merchant_memo"),
        F("transactionSource", AN(32), attr="transaction_source"),
    ]
)
