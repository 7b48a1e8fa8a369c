"""Reads of payments, through the caller's reach (bank staff's and reconciliation's reads say
they have none); and the one definition of the figures every page and report shows of them
(sales, the approval rate, declines), which the portal's overview, the staff dashboard and
settlement (reconciliation) all call.

- A sale is an approved DB or CP (not made in connector test mode: no money moves) less what
  approved reversals took back of it; a fully reversed DB is no sale. A refund is no negative
  sale: it is a refund (settlement counts it as such).
- A payment is decided when its card's issuer or a risk system approved or declined it (a PA or
  DB); pending, in flight, refused by a workflow or a validation, or lost in an error, it is not.
  The approval rate is approved / (approved + declined).
- A decline is a result code of core.results.DECLINE_FAMILIES.
"""

import operator
import re
from collections.abc import Collection, Sequence
from datetime import datetime
from decimal import Decimal
from functools import reduce
from typing import Any
from urllib.parse import urlsplit

from django.db.models import (
    Case,
    CharField,
    Count,
    DecimalField,
    ExpressionWrapper,
    F,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import QueryDict
from django.utils import timezone

from core import results
from core.errors import NotFound
from core.lookups import one
from core.redaction import mask_pans
from merchants.models import Entity, Merchant
from merchants.selectors import merchants_by_pk, merchants_reachable

from .models import (
    Payment,
    PaymentState,
    PaymentType,
    ReversalAdvice,
    ThreeDSAuthentication,
)

SALE_TYPES = (PaymentType.DB, PaymentType.CP)
DECIDED_TYPES = (PaymentType.PA, PaymentType.DB)  # what an issuer approves or declines
MONEY = DecimalField(max_digits=12, decimal_places=2)


def payments_reachable(*, entity: Entity) -> QuerySet[Payment]:
    return Payment.objects.filter(merchant__in=merchants_reachable(entity=entity))


def payment_get(
    *, entity: Entity, payment_id: str, merchant_transaction_id: str | None = None
) -> Payment:
    """The payment if the entity reaches its merchant (and the reference matches); else 404
    with 700.100.100, whether it does not exist or belongs to someone else."""
    query = payments_reachable(entity=entity).filter(pk=payment_id)
    if merchant_transaction_id:
        query = query.filter(merchant_transaction_id=merchant_transaction_id)
    payment = one(query.select_related("merchant", "terminal"))
    if payment is None:
        raise NotFound(results.REFERENCE_NOT_FOUND)
    return payment


def payments_made(*, merchant: Merchant, start: datetime, end: datetime) -> QuerySet[Payment]:
    """The merchant's payments created in [start, end) (a business day's: core.business_day),
    unordered, for bank staff's reports and settlement (no entity's reach)."""
    return Payment.objects.filter(merchant=merchant, created_at__gte=start, created_at__lt=end)


def merchants_with_payments(
    *, start: datetime, end: datetime, among: Collection[int] | None = None
) -> QuerySet[Merchant]:
    """The merchants with a payment created in [start, end), each once, by primary key (one
    statement); with `among`, of those merchants only."""
    if among is None:
        made = Payment.objects.filter(created_at__gte=start, created_at__lt=end)
        return merchants_by_pk(pks=made.values("merchant_id").distinct())
    # One filter() for both bounds: two would join the payments twice, each merchant's payments
    # multiplied by themselves (35 s instead of 3 for 2 x 1,500 payments).
    return (
        merchants_by_pk(pks=among)
        .filter(payments__created_at__gte=start, payments__created_at__lt=end)
        .distinct()
    )


def payment_by_reference(*, reference: str) -> Payment | None:
    """A payment by its id or its acquirer reference number (ARN), for bank staff: a
    chargeback names the payment either way (no entity's reach: staff see every payment)."""
    return (
        Payment.objects.filter(pk=reference).first()
        or Payment.objects.filter(acquirer_ref_no=reference).first()
    )


# What the daily reconciliation file reads of a payment, by the names it reads them: payments
# owns its columns and its joins (the terminal, the 3-D Secure authentication); the file's SQL
# (reconciliation.recon.sql) selects from these rows and names nothing else of payments.
FILE_COLUMNS = (
    "id",
    "merchant_id",
    "merchant_transaction_id",
    "payment_type",
    "card_bin",
    "card_last4",
    "amount",
    "currency",
    "created_at",
    "result_code",
    "auth_code",
    "acquirer_ref_no",
    "network_reference",
    "stan",
    "entry_mode",
    "condition_code",
)


def payment_file_rows(
    *,
    merchants: Sequence[int] | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    production: bool = False,
) -> QuerySet[Any]:
    """Payments as the daily reconciliation file reads them, one row each: FILE_COLUMNS, the
    terminal's id (`terminal_code`) and the 3-D Secure authentication's ECI (`eci`), unordered
    (the file orders them), for the file's SQL to select from (`.query.sql_with_params()`).

    With `merchants`, `start` and `end`: those merchants' payments created in [start, end),
    without the ones made in connector test mode for a `production` file. Without: every
    payment (the file joins the ones its chargebacks name)."""
    rows = Payment.objects.order_by()
    if merchants is not None:
        rows = rows.filter(merchant_id__in=merchants)
    if start is not None:
        rows = rows.filter(created_at__gte=start)
    if end is not None:
        rows = rows.filter(created_at__lt=end)
    if production:
        rows = rows.filter(test_mode=False)
    return rows.values(
        *FILE_COLUMNS, terminal_code=F("terminal__terminal_id"), eci=F("threeds__eci")
    )


def payment_chain(*, payment: Payment) -> list[Payment]:
    """The top original and every payment under it, at any depth (its captures, reversals and
    refunds, and the refunds of those captures), oldest first, from any member of the chain."""
    root = payment
    while root.referenced_id is not None and root.referenced is not None:
        root = root.referenced
    descendants: list[Payment] = []
    level = [root.pk]
    while level:
        found = list(Payment.objects.filter(referenced_id__in=level, merchant_id=root.merchant_id))
        descendants += found
        level = [p.pk for p in found]
    return [root, *sorted(descendants, key=lambda p: (p.created_at, p.pk))]


def result_family_q(*families: str) -> Q:
    """Payments whose result code is of one of `families` (core.results.FAMILIES' names, or
    "unclassified"), by the registry's rule: the first family whose pattern matches names it."""
    parts = []
    for family in families:
        if family == "unclassified":
            parts.append(~Q(result_code__regex="|".join(p.pattern for _, p in results.FAMILIES)))
            continue
        pattern, before = results.family_patterns(family)
        part = Q(result_code__regex=pattern)
        if before:
            part &= ~Q(result_code__regex="|".join(before))
        parts.append(part)
    return reduce(operator.or_, parts)


def approved_q() -> Q:
    return Q(payment_type__in=DECIDED_TYPES, state=PaymentState.DONE, successful=True)


def declined_q() -> Q:
    return Q(
        payment_type__in=DECIDED_TYPES, state=PaymentState.DONE, successful=False
    ) & result_family_q(*results.DECLINE_FAMILIES)


OUTCOMES = ("approved", "pending", "declined", "refused")


def outcome_q(outcome: str) -> Q:
    """Payments of one outcome: approved; pending (3-D Secure, or the network's answer awaited);
    declined (by the issuer or a risk system); refused (anything else: a workflow, a validation,
    the configuration, an error)."""
    pending = result_family_q("pending")
    declined = Q(successful=False) & result_family_q(*results.DECLINE_FAMILIES)
    queries = {
        "approved": Q(successful=True),
        "pending": Q(successful=False) & pending,
        "declined": declined,
        "refused": Q(successful=False) & ~pending & ~declined,
    }
    return queries[outcome]


def approval_rate(approved: int, declined: int) -> float | None:
    """Percent approved of those decided; None when none was decided."""
    decided = approved + declined
    return 100 * approved / decided if decided else None


def payment_sales(
    payments: QuerySet[Payment], *, until: datetime | None = None
) -> QuerySet[Payment]:
    """The sales among `payments`, each with `sale_amount`: its amount less what approved
    reversals of it took back, counting the reversals made before `until` when given (settlement:
    a reversal after the business day's cut-off is a refund of a later day) or all of them
    (kept on the row as `reversed_amount`, under its lock). A fully reversed DB is left out."""
    taken_back: Any
    if until is None:
        taken_back = F("reversed_amount")
    else:
        reversals = (
            Payment.objects.filter(
                referenced=OuterRef("pk"),
                payment_type=PaymentType.RV,
                successful=True,
                created_at__lt=until,
            )
            .order_by()
            .values("referenced")
            .annotate(total=Sum("amount"))
            .values("total")
        )
        taken_back = Coalesce(Subquery(reversals), Value(Decimal(0)), output_field=MONEY)
    return (
        payments.filter(
            payment_type__in=SALE_TYPES,
            state=PaymentState.DONE,
            successful=True,
            test_mode=False,
        )
        .annotate(sale_amount=ExpressionWrapper(F("amount") - taken_back, output_field=MONEY))
        .filter(sale_amount__gt=0)
    )


def sales_by_currency(
    payments: QuerySet[Payment], *, until: datetime | None = None
) -> list[dict[str, Any]]:
    """[{currency, amount, count}] of payment_sales, the largest amount first."""
    rows = (
        payment_sales(payments, until=until)
        .values("currency")
        .annotate(amount=Sum("sale_amount"), count=Count("pk"))
        .order_by("-amount", "currency")
    )
    return [dict(row) for row in rows]


def sale_q() -> Q:
    """The sales payment_sales keeps when every reversal counts (the row's `reversed_amount`):
    for a FILTER beside other counts in one query. Its amount is `sale_amount_all()`."""
    return Q(
        payment_type__in=SALE_TYPES,
        state=PaymentState.DONE,
        successful=True,
        test_mode=False,
        amount__gt=F("reversed_amount"),
    )


def sale_amount_all() -> Any:
    return ExpressionWrapper(F("amount") - F("reversed_amount"), output_field=MONEY)


def figures_by(payments: QuerySet[Payment], *keys: Any, **named: Any) -> list[dict[str, Any]]:
    """One row per group of `payments` (by the fields `keys` and the expressions `named`): its
    payments (`n`), its sales as payment_sales counts them with every reversal (`sales`,
    `sales_count`), and its approved and declined payments: one query for what the overview's
    and the dashboard's figures and charts add up in Python."""
    return list(
        payments.annotate(**named)
        .values(*keys, *named)
        .annotate(
            n=Count("pk"),
            sales=Sum(sale_amount_all(), filter=sale_q()),
            sales_count=Count("pk", filter=sale_q()),
            approved=Count("pk", filter=approved_q()),
            declined=Count("pk", filter=declined_q()),
        )
        .order_by()
    )


def sales_volume(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """[{currency, amount, count}] of the sales in figures_by's rows (grouped by at least the
    currency), the largest amount first, as sales_by_currency answers it."""
    volume: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["sales_count"]:
            into = volume.setdefault(
                row["currency"], {"currency": row["currency"], "amount": Decimal(0), "count": 0}
            )
            into["amount"] += row["sales"]
            into["count"] += row["sales_count"]
    return sorted(volume.values(), key=lambda v: (-v["amount"], v["currency"]))


def figures_by_merchant(payments: QuerySet[Payment], *, limit: int = 50) -> list[dict[str, Any]]:
    """payment_figures for each merchant of `payments` (one query), the busiest first: the
    dashboard's Today broken down."""
    rows = figures_by(
        payments, "merchant_id", "merchant__merchant_id", "merchant__name", "currency"
    )
    merchants: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        merchants.setdefault(row["merchant_id"], []).append(row)
    found = []
    for pk, own in merchants.items():
        approved = sum(row["approved"] for row in own)
        declined = sum(row["declined"] for row in own)
        found.append(
            {
                "pk": pk,
                "merchant_id": own[0]["merchant__merchant_id"],
                "name": own[0]["merchant__name"],
                "volume": sales_volume(own),
                "count": sum(row["n"] for row in own),
                "approval_rate": approval_rate(approved, declined),
            }
        )
    found.sort(key=lambda m: (-m["count"], m["merchant_id"]))
    return found[:limit]


def payment_figures(payments: QuerySet[Payment]) -> dict[str, Any]:
    """Sales per currency, the number of payments and the approval rate of `payments` (the
    overview's Today and This month, the dashboard's Today): one query, by currency."""
    rows = figures_by(payments, "currency")
    approved = sum(row["approved"] for row in rows)
    declined = sum(row["declined"] for row in rows)
    return {
        "volume": sales_volume(rows),
        "count": sum(row["n"] for row in rows),
        "approved": approved,
        "declined": declined,
        "approval_rate": approval_rate(approved, declined),
    }


def declines_by_code(payments: QuerySet[Payment], *, limit: int = 10) -> list[dict[str, Any]]:
    """[{result_code, description, family, n}] of the declines among `payments`, the most
    frequent first; the description is the registry's, the family as docs/api.md names it."""
    rows = (
        payments.filter(declined_q())
        .values("result_code")
        .annotate(n=Count("pk"))
        .order_by("-n", "result_code")[:limit]
    )
    return described_declines([(row["result_code"], row["n"]) for row in rows])


def described_declines(counted: list[tuple[str, int]]) -> list[dict[str, Any]]:
    """[{result_code, description, family, n}] of (code, count) pairs, in their order."""
    catalogue = results.catalogue()
    found = []
    for code, n in counted:
        known = catalogue.get(code)
        found.append(
            {
                "result_code": code,
                "description": known.description if known else "",
                "family": results.family_name(code),
                "n": n,
            }
        )
    return found


# What was given back of a payment, from the running totals its reversals and refunds (and the
# refunds of its captures) keep on it under its row lock (payments.services.referenced): one
# expression in the list's own query, so a page of 50 costs no query per row.
MARK = Case(
    When(reversed_amount__gt=0, reversed_amount__gte=F("amount"), then=Value("reversed")),
    When(reversed_amount__gt=0, then=Value("partly reversed")),
    When(
        refunded_amount__gt=0,
        refunded_amount__gte=F("captured_amount"),
        then=Value("refunded"),
    ),
    When(refunded_amount__gt=0, then=Value("partly refunded")),
    default=Value(""),
    output_field=CharField(),
)


def payments_marked(*, payments: QuerySet[Payment]) -> QuerySet[Payment]:
    """`payments` with `mark`: "reversed" or "refunded" when all of it was given back, "partly
    reversed" or "partly refunded" when some was, "" otherwise (and for the reversals and
    refunds themselves)."""
    return payments.annotate(mark=MARK)


def payments_in_flight(*, now: datetime | None = None) -> tuple[int, float]:
    """How many payments are IN_FLIGHT (the network asked, no answer recorded yet) and the age
    in seconds of the oldest (0 when none): the metrics' in-flight gauges. The janitor resolves
    those older than the connector's timeout."""
    found = Payment.objects.filter(state=PaymentState.IN_FLIGHT).aggregate(
        count=Count("pk"), oldest=Min("in_flight_since")
    )
    oldest = found["oldest"]
    age = ((now or timezone.now()) - oldest).total_seconds() if oldest else 0.0
    return found["count"], max(age, 0.0)


def reversal_advices_outstanding() -> int:
    """Reversal advices the network has not acknowledged (payments.services.advices)."""
    return ReversalAdvice.objects.filter(state=ReversalAdvice.State.OWED).count()


def threeds_frame_origins(*, auth_id: str) -> list[str]:
    """The origins that may frame an authentication's pages: the merchant's shopperResultUrl's
    (scheme, host and port), where its page runs the 3-D Secure steps; none for an unknown id."""
    url = (
        ThreeDSAuthentication.objects.filter(pk=auth_id)
        .values_list("shopper_result_url", flat=True)
        .first()
    )
    parts = urlsplit(url or "")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return []
    return [f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"]


_HEX = re.compile(r"[0-9a-f]{6,32}")
_BIN_AND_LAST4 = re.compile(r"(\d{6})\s*(?:\.{2,3}|…|\*+|x+|\s)\s*(\d{4})", re.I)


def masked_search(query: QueryDict, name: str = "q") -> str | None:
    """The query string with a card number typed into the search masked (first six and last
    four, which `payments_found` searches as BIN and last four), or None when there is none:
    the page redirects to it, so the number is never echoed in the search box, a link or a log."""
    term = query.get(name, "")
    masked = mask_pans(term)
    if masked == term:
        return None
    changed = query.copy()
    changed[name] = masked
    return changed.urlencode()


def payments_found(payments: QuerySet[Payment], term: str) -> QuerySet[Payment]:
    """The payments that a dispute or a phone call's identifier names, whichever it is: the id
    or its first characters (as lists show it: 10), merchantTransactionId, ARN, RRN, STAN,
    approval code, the card's BIN and last four ("411111…1111", "411111 1111") or its last four
    alone, or the merchant's id.
    Each is an exact match on an indexed column (an id's prefix a range on the primary key)."""
    term = term.strip()
    if not term:
        return payments
    card = _BIN_AND_LAST4.fullmatch(term)
    if card:
        return payments.filter(card_bin=card.group(1), card_last4=card.group(2))
    term = term.rstrip("…").strip()
    matches = Q(merchant_transaction_id=term)
    lowered = term.lower()
    if _HEX.fullmatch(lowered):
        matches |= Q(pk=lowered) if len(lowered) == 32 else Q(pk__startswith=lowered)
    if term.isdigit():
        if len(term) == 23:
            matches |= Q(acquirer_ref_no=term)
        if len(term) == 12:
            matches |= Q(retrieval_ref_no=term)
        if len(term) == 6:  # a BIN alone names too many payments: BIN and last four do
            matches |= Q(stan=term)
        if len(term) == 4:
            matches |= Q(card_last4=term)
        if len(term) == 8:  # the merchant's, by its unique id (no join over every payment)
            matches |= Q(merchant_id__in=Merchant.objects.filter(merchant_id=term).values("pk"))
    if len(term) == 6 and term.isalnum():
        matches |= Q(auth_code=term.upper())
    return payments.filter(matches)
