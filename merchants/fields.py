"""The merchant's field rows (spec: "Merchant"): `merchant.id` and the registered data, one row
per field (dotted name, spec type, requirement word).

The one definition of a merchant field's shape, and the module of merchants that other apps
import for it: payments' merchant override takes the formats of these rows, terminals' tables
name the merchant by MERCHANT_ID. Merchants' own API tables (merchants.api.tables, which no
other app imports) and staff forms build their tables from the same rows.
"""

from core.fields import AN, LETTER, UN, Choice, Country, Currency, Date, Hex, LocalUrl, N
from core.tables import CONDITIONAL, MANDATORY, OPTIONAL, F

M, OPT, C = MANDATORY, OPTIONAL, CONDITIONAL

# Place names: letters (any script), digits, and the space, hyphen, apostrophe and dot they carry.
PLACE = rf"(?:{LETTER}|[0-9 .,'\-/])+"

MERCHANT_ID = F(
    "merchant.id", N(15), M, attr="merchant_id", meaning="acquirer-assigned merchant id"
)

MERCHANT_FIELDS = [
    F(
        "merchant.name",
        AN(100, example="Acme Trading Ltd"),
        M,
        meaning="registered legal business name (AN75; the pattern allows 100)",
    ),
    F("merchant.business", AN(22, example="ACME SHOP"), M, meaning="statement line 1"),
    F("merchant.website", AN(100, example="www.acme.example"), OPT, meaning="statement line 2"),
    F("merchant.street", AN(100, example="1 Main Street"), M, meaning="outlet location, no PO box"),
    F(
        "merchant.postcode",
        AN(10, pattern=r"[A-Za-z0-9\-]+", what="letters, digits and hyphen", example="10115"),
        M,
    ),
    F("merchant.city", AN(50, pattern=PLACE, what="letters and digits", example="Berlin"), M),
    F("merchant.state", AN(50, pattern=PLACE, what="letters and digits", example="Berlin"), M),
    F("merchant.country", Country(), M),
    F(
        "merchant.phone",
        AN(
            25, pattern=r"[A-Za-z0-9+\-.]+", what="letters, digits, + - .", example="+49-30-1234567"
        ),
        M,
    ),
    F(
        "merchant.mmcc",
        AN(4, min=4, pattern=r"[0-9]{4}", what="4 digits", example="5411"),
        M,
        meaning="MCC for the first card network",
    ),
    F(
        "merchant.vmcc",
        AN(4, min=4, pattern=r"[0-9]{4}", what="4 digits", example="5411"),
        M,
        meaning="MCC for the second card network",
    ),
    F("merchant.pfId", AN(11, example="PF000000001"), M, meaning="payment-facilitator id"),
    F("merchant.isoId", AN(8, example="ISO00001"), OPT),
    F("merchant.submerchantId", AN(15, example="SUB000000000001"), OPT),
    F("merchant.pfAbbv", AN(7, example="PFABBV"), OPT),
    F("merchant.nationalTaxIdentificationNumber", AN(14, example="DE123456789"), OPT),
    F("merchant.locationStreetAddress1", AN(60, example="1 Main Street"), OPT),
    *[F(f"merchant.mcc{i}", UN(4, min=4), OPT, meaning="extra MCC") for i in range(2, 11)],
    F(
        "merchant.aggregatorID",
        AN(8, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="AGG00001"),
        C,
    ),
    F(
        "merchant.aggregatorName",
        AN(
            25, pattern=r"[A-Za-z0-9 ]+", what="letters, digits, spaces", example="Acme Marketplace"
        ),
        C,
    ),
    F("merchant.aggregatorType", Choice(("P", "M")), C, meaning="P facilitator, M marketplace"),
    F(
        "merchant.aggregatorAbbv",
        AN(7, pattern=r"[A-Za-z0-9]+", what="letters and digits", example="ACMEMP"),
        C,
    ),
    F(
        "merchant.corporateStatus",
        Choice(("0", "1")),
        M,
        meaning="0 not a sole proprietor, 1 individual/sole proprietor",
    ),
    F("merchant.corporateName", AN(100, example="Acme Holdings"), OPT),
    F("merchant.dateDesigned", Date("ccyymmdd"), M, meaning="relationship start date"),
    F("merchant.mvvID", Hex(10, min=10), C, meaning="Merchant Verification Value"),
    F(
        "merchant.bankAccount.holder",
        AN(128, min=4, example="Acme Trading Ltd"),
        C,
        meaning="settlement account holder; with number and country",
        attr="bank_account_holder",
    ),
    F(
        "merchant.bankAccount.number",
        AN(
            64,
            min=3,
            pattern=r"[A-Za-z0-9]+",
            what="letters and digits",
            example="DE89370400440532013000",
        ),
        C,
        meaning="IBAN for IBAN countries (checked), else the account number",
        attr="bank_account_number",
    ),
    F(
        "merchant.bankAccount.bic",
        AN(11, min=8, pattern=r"[A-Z0-9]+", what="a BIC", example="COBADEFFXXX"),
        OPT,
        meaning="checked; its country is the account's",
        attr="bank_account_bic",
    ),
    F("merchant.bankAccount.country", Country(), C, attr="bank_account_country"),
    F(
        "merchant.settlementCurrency",
        Currency(),
        OPT,
        meaning="the currency the merchant is paid in",
    ),
    F(
        "merchant.notificationUrl",
        LocalUrl(),
        OPT,
        meaning="where token status notifications are posted: HTTPS, a public host",
    ),
]
