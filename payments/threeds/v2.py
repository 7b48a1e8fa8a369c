"""What a 3-D Secure 2 authentication needs of a payment (spec "3DS2 browser data", "Other
3DS2 data"), by protocol version. The payment table's rows hold for every payment; these
conditions hold only for a payment that goes through our 3-D Secure 2 flow, which the caller
decides (it knows the merchant's mode and the card's protocol version).
"""

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from core.tables import given

from .tables import BROWSER, MAX_THREEDS_AMOUNT

# --- Conditional rules of a 3-D Secure 2 authentication ------------------------------------------

V2 = "3-D Secure 2"
V2_REQUIRED = (
    "shopperResultUrl",
    f"{BROWSER}.acceptHeader",
    f"{BROWSER}.language",
    f"{BROWSER}.userAgent",
    f"{BROWSER}.javascriptEnabled",
    # "required unless a market or regional mandate restricts sending them": no such mandate is
    # modelled, so they are required.
    "billing.street1",
    "billing.city",
    "billing.postcode",
    "billing.country",
    "customer.email",
    "card.holder",
    "amount",
    "currency",
)
WITH_JAVASCRIPT = (f"{BROWSER}.screenHeight", f"{BROWSER}.screenWidth", f"{BROWSER}.timezone")
JAVA_AND_DEPTH = (f"{BROWSER}.javaEnabled", f"{BROWSER}.screenColorDepth")
# "Other 3DS2 data" (and customer.ip of the customer table): (min, max) characters.
V2_LENGTHS: dict[str, tuple[int, int]] = {
    "billing.city": (2, 45),
    "billing.street1": (1, 50),
    "billing.street2": (1, 50),
    "billing.postcode": (1, 50),
    "shipping.street1": (1, 50),
    "shipping.street2": (1, 50),
    "shipping.city": (1, 50),
    "shipping.postcode": (1, 16),
    "customer.email": (1, 128),
    "card.holder": (1, 128),
    "customer.ip": (1, 45),
}
SUBDIVISION = re.compile(r"[A-Za-z0-9]{1,3}")
V2_STATES = ("billing.state", "shipping.state")
# +ccc-nnnnnnnnn: + optional, a country code of up to 3 digits, a hyphen, up to 15 digits.
V2_PHONE = re.compile(r"\+?[0-9]{1,3}-[0-9]{1,15}")
V2_PHONES = ("customer.phone", "customer.workPhone", "customer.mobile")


def threeds_v2_problems(flat: Mapping[str, Any], *, version: str) -> list[tuple[str, str]]:
    """What a payment lacks, or sends too long, for a 3-D Secure 2 authentication of protocol
    `version` ("2.1.0", "2.2.0"; later 2.x versions follow 2.2's rules). `flat` holds the parsed
    values of Table.validate. Returns (dotted name, message) pairs, empty when all is well."""
    if not re.fullmatch(r"2\.[0-9]+\.[0-9]+", version):
        raise ValueError(f"not a 3-D Secure 2 protocol version: {version!r}")
    v21 = version.startswith("2.1.")
    problems: list[tuple[str, str]] = []

    def need(names: Iterable[str], why: str) -> None:
        problems.extend((name, f"is required for {why}") for name in names if not given(flat, name))

    need(V2_REQUIRED, V2)
    javascript = flat.get(f"{BROWSER}.javascriptEnabled") == "true"
    if javascript:
        need(WITH_JAVASCRIPT, f"{V2} when {BROWSER}.javascriptEnabled is true")
    if v21:
        need(JAVA_AND_DEPTH, f"{V2}.1")
    elif javascript:
        need(JAVA_AND_DEPTH, f"{V2}.2 when {BROWSER}.javascriptEnabled is true")

    for name, (low, high) in V2_LENGTHS.items():
        value = flat.get(name)
        if value not in (None, "") and not low <= len(str(value)) <= high:
            size = f"{low} to {high}" if low > 1 else f"at most {high}"
            problems.append((name, f"must be {size} characters for {V2}"))
    for name in V2_STATES:
        if given(flat, name) and not SUBDIVISION.fullmatch(flat[name]):
            problems.append(
                (name, f"must be at most 3 letters or digits for {V2} (ISO 3166-2 subdivision)")
            )
    for name in V2_PHONES:
        value = flat.get(name)
        if value not in (None, "") and not (len(value) <= 20 and V2_PHONE.fullmatch(value)):
            problems.append(
                (
                    name,
                    f"must be +ccc-nnnnnnnnn for {V2}: an optional +, a country code of up to 3 "
                    "digits, a hyphen and up to 15 digits (at most 20 characters)",
                )
            )
    # The amount authenticated is threeDSecure.amount when sent, else the payment amount, which
    # then has to fit the 3-D Secure "max 12" (N10.N2 allows 13 characters).
    amount = flat.get("amount") or Decimal(0)
    if not given(flat, "threeDSecure.amount") and Decimal(amount) > MAX_THREEDS_AMOUNT:
        problems.append(
            (
                "amount",
                f"must be at most {MAX_THREEDS_AMOUNT} for {V2} (at most 12 characters with "
                "two decimals)",
            )
        )
    return problems
