"""The merchant portal's payment pages: the overview (figures and charts) and the transactions
(filters, pages, CSV export, a payment's chain). Every query is the signed-in user's merchant's
(`request.merchant`, set by core.portal.portal_view); another merchant's payment is 404.
Aggregates run in the database; charts are SVG drawn on the server (pygal, no script, nothing
loaded from the network)."""

import re
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import django_filters
import pygal
from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.db.models.functions import TruncDate
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
)
from django.shortcuts import redirect, render
from django.urls import path
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from pygal.style import Style

from core.business_day import business_day_bounds, business_day_of
from core.business_day import zone as business_day_zone
from core.cards import masked_parts
from core.csvstream import csv_lines, csv_response
from core.errors import ApplicationError
from core.portal import list_operations, list_page, page_methods, portal_view
from core.replica import reads_from_replica
from core.schema.pages import documented, hex_id_parameter, html, portal_page
from merchants.models import PortalUser

from .backoffice.forms import ActionForm
from .backoffice.models import PaymentAction
from .backoffice.services import (
    ActionOutcome,
    ActionRefused,
    Possible,
    action_request,
    possible_actions,
    said,
)
from .models import Payment, PaymentType
from .registrations.models import Registration
from .registrations.services import registration_deregister
from .selectors import (
    OUTCOMES,
    SALE_TYPES,
    approval_rate,
    described_declines,
    figures_by,
    masked_search,
    outcome_q,
    payment_chain,
    payment_figures,
    payments_found,
    payments_marked,
    sales_volume,
)

NAV = [
    ("Overview", "portal:overview"),
    ("Transactions", "portal:transactions"),
    ("Stored cards", "portal:registrations"),
]
CHART_STYLE = Style(
    background="white",
    plot_background="white",
    foreground="#1f2933",
    foreground_strong="#1f2933",
    foreground_subtle="#9aa5b1",
    colors=("#1f6feb", "#d1242f", "#2da44e", "#bf8700", "#8250df", "#57606a"),
    font_family="system-ui, sans-serif",
)


def _chart(kind: type, title: str, **options: Any) -> Any:
    return kind(
        title=title,
        no_data_text=options.pop("no_data_text", "Nothing in these 30 days"),
        style=CHART_STYLE,
        js=[],  # no tooltips script: nothing is loaded from the network
        disable_xml_declaration=True,
        width=560,
        height=300,
        explicit_size=True,
        show_legend=options.pop("show_legend", False),
        **options,
    )


_CONFIG_SCRIPT = re.compile(r'<script type="text/javascript">window\.pygal = .*?</script>', re.S)


def _svg(chart: Any, *, nonce: str) -> SafeString:
    """The chart as inline SVG under the page's Content-Security-Policy: its stylesheet carries
    the request's nonce; its configuration script (read only by pygal's tooltips script, which
    is not loaded) and the tooltip's inline style are left out, the tooltip hidden by the
    portal's stylesheet instead."""
    svg = _CONFIG_SCRIPT.sub("", chart.render(is_unicode=True), count=1)
    svg = svg.replace('<style type="text/css">', f'<style type="text/css" nonce="{nonce}">', 1)
    svg = svg.replace(' style="opacity: 0" class="tooltip"', ' class="tooltip"')
    return mark_safe(svg)  # noqa: S308 - pygal escapes its labels; the nonce is base64


@page_methods("GET")
@portal_view
@reads_from_replica
def overview(request: HttpRequest) -> HttpResponse:
    """Today's and this month's figures and four charts over 30 days, all from the selectors'
    definitions of sales, approval rate and declines (payments.selectors)."""
    merchant = request.merchant  # type: ignore[attr-defined]
    # Today is the business day settlement counts (core.business_day: SETTLEMENT_TIME_ZONE and
    # SETTLEMENT_CUTOFF), this month from the first business day of its month; the charts' days
    # are dates in the settlement time zone.
    today = business_day_of(timezone.now())
    start, end = business_day_bounds(today)
    month_start = business_day_bounds(today.replace(day=1))[0]
    mine = Payment.objects.filter(merchant=merchant)
    days = [today - timedelta(days=n) for n in range(29, -1, -1)]
    recent = mine.filter(created_at__gte=business_day_bounds(days[0])[0], created_at__lt=end)
    # The four charts from one query over the 30 days (by day, currency, brand and result code;
    # a few hundred groups), added up here.
    local_day = TruncDate("created_at", tzinfo=business_day_zone())
    rows = figures_by(recent, "currency", "payment_brand", "result_code", day=local_day)
    # The chart's currency is the one the merchant sells in most (by count: 1500 JPY is no
    # bigger a business than 240 EUR).
    by_currency = sales_volume(rows)
    currency = max(by_currency, key=lambda row: row["count"])["currency"] if by_currency else "EUR"
    sales_per_day: dict[Any, Decimal] = {}
    decided: dict[Any, list[int]] = {}
    per_brand: Counter[str] = Counter()
    per_code: Counter[str] = Counter()
    for row in rows:
        if row["currency"] == currency and row["sales_count"]:
            sales_per_day[row["day"]] = sales_per_day.get(row["day"], Decimal(0)) + row["sales"]
        counts = decided.setdefault(row["day"], [0, 0])
        counts[0] += row["approved"]
        counts[1] += row["declined"]
        per_brand[row["payment_brand"] or "other"] += row["n"]
        if row["declined"]:
            per_code[row["result_code"]] += row["declined"]
    decided_per_day = {day: approval_rate(*counts) for day, counts in decided.items()}
    labels = [f"{d:%d %b}" for d in days]
    volume = _chart(pygal.Bar, f"Sales per day ({currency})", x_label_rotation=60)
    volume.x_labels = labels
    if sales_per_day:
        volume.add(currency, [float(sales_per_day.get(d) or 0) for d in days])
    else:  # nothing sold: no axis from 0 to 1, the chart says so
        volume.show_y_labels = volume.show_x_labels = volume.show_y_guides = False
    approval = _chart(pygal.Line, "Approval rate (%)", x_label_rotation=60, range=(0, 100))
    approval.x_labels = labels
    rates = [decided_per_day.get(d) for d in days]
    approval.add("approved", [None if rate is None else round(rate, 1) for rate in rates])
    brands = _chart(pygal.Pie, "Payments by brand (30 days)", show_legend=True, inner_radius=0.4)
    for brand, n in sorted(per_brand.items(), key=lambda item: (-item[1], item[0]))[:6]:
        brands.add(brand, n)
    declines = _chart(
        pygal.HorizontalBar,
        "Declines by result code (30 days)",
        show_legend=True,
        legend_at_bottom=True,
        truncate_legend=-1,  # the families' names whole
    )
    found = described_declines(sorted(per_code.items(), key=lambda item: (-item[1], item[0]))[:8])
    declines.x_labels = [row["result_code"] for row in found]  # described under the chart
    if found:
        top = max(row["n"] for row in found)
        declines.y_labels = list(range(0, top + 1, max(1, -(-top // 8))))  # whole payments
    for family in dict.fromkeys(row["family"] for row in found):
        declines.add(family, [row["n"] if row["family"] == family else None for row in found])
    context = {
        "title": "Overview",
        "no_payments": not rows,  # one empty state instead of four empty charts
        "today": payment_figures(mine.filter(created_at__gte=start, created_at__lt=end)),
        "month": payment_figures(mine.filter(created_at__gte=month_start, created_at__lt=end)),
        "charts": [
            _svg(chart, nonce=str(request.csp_nonce))  # type: ignore[attr-defined]
            for chart in (volume, approval, brands, declines)
        ],
        "declines": found,
    }
    return render(request, "portal/overview.html", context)


FAMILIES = {outcome: outcome_q(outcome) for outcome in OUTCOMES}


class PaymentFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(
        method="find",
        label="Find",
        widget=forms.TextInput(
            attrs={
                "placeholder": "id, your reference, ARN, RRN, STAN, approval code, 411111…1111",
                "title": "The payment's id (or its first characters), your reference "
                "(merchantTransactionId), ARN, RRN, STAN, approval code, or the card as BIN and "
                "last four",
                "size": 34,
            }
        ),
    )
    date_from = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__gte", label="From"
    )
    date_to = django_filters.DateFilter(
        field_name="created_at", lookup_expr="date__lte", label="To"
    )
    payment_type = django_filters.ChoiceFilter(choices=PaymentType.choices, label="Type")
    family = django_filters.ChoiceFilter(
        choices=[(name, name.capitalize()) for name in FAMILIES],
        method="by_family",
        label="Result",
    )
    amount_min = django_filters.NumberFilter(
        field_name="amount", lookup_expr="gte", label="Amount ≥"
    )
    amount_max = django_filters.NumberFilter(
        field_name="amount", lookup_expr="lte", label="Amount ≤"
    )
    card_last4 = django_filters.CharFilter(label="Card last 4")
    merchant_transaction_id = django_filters.CharFilter(label="Your reference")
    terminal = django_filters.CharFilter(field_name="terminal__terminal_id", label="Terminal")

    class Meta:
        model = Payment
        fields: list[str] = []

    def by_family(self, queryset: QuerySet[Payment], name: str, value: str) -> QuerySet[Payment]:
        return queryset.filter(FAMILIES[value])

    def find(self, queryset: QuerySet[Payment], name: str, value: str) -> QuerySet[Payment]:
        return payments_found(queryset, value)


CSV_COLUMNS = (
    ("created (UTC)", lambda p: f"{p.created_at:%Y-%m-%d %H:%M:%S}"),
    ("id", lambda p: p.pk),
    ("merchantTransactionId", lambda p: p.merchant_transaction_id),
    ("type", lambda p: p.payment_type),
    ("amount", lambda p: "" if p.amount is None else f"{p.amount}"),
    ("currency", lambda p: p.currency),
    ("brand", lambda p: p.payment_brand),
    ("card", lambda p: masked(p)),
    ("result code", lambda p: p.result_code),
    ("result", lambda p: p.result_description),
    ("terminal", lambda p: p.terminal.terminal_id if p.terminal_id else ""),
)


def masked(payment: Payment) -> str:
    return masked_parts(payment.card_bin, payment.card_last4)


def _csv(payments: QuerySet[Payment]) -> Iterator[str]:
    return csv_lines(
        [name for name, _ in CSV_COLUMNS],
        ([value(p) for _, value in CSV_COLUMNS] for p in payments.iterator(chunk_size=2000)),
    )


@page_methods("GET")
@portal_view
@reads_from_replica
def transactions(request: HttpRequest) -> HttpResponseBase:
    masked = masked_search(request.GET)
    if masked is not None:  # a card number typed into "Find": never echoed
        return redirect(f"{request.path}?{masked}")
    merchant = request.merchant  # type: ignore[attr-defined]
    mine = payments_marked(
        payments=Payment.objects.filter(merchant=merchant)
        .select_related("terminal")
        .order_by("-created_at", "-pk")
    )
    found = PaymentFilter(request.GET, queryset=mine)
    payments = found.qs
    if request.GET.get("export") == "csv":
        return csv_response(_csv(payments), f"transactions-{merchant.merchant_id}.csv")
    page = Paginator(payments, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "portal/transactions.html",
        {
            "title": "Transactions",
            "filter": found,
            "page": page,
            "query": query.urlencode(),
            "masked": masked,
        },
    )


ACTING_ROLES = (PortalUser.Role.ADMINISTRATOR.value, PortalUser.Role.OPERATOR.value)


def _own_payment(request: HttpRequest, payment_id: str) -> Payment:
    merchant = request.merchant  # type: ignore[attr-defined]
    payment = payments_marked(
        payments=Payment.objects.filter(merchant=merchant, pk=payment_id)
    ).first()
    if payment is None:
        raise Http404("no such payment")
    return payment


def _act_forms(
    request: HttpRequest, payment: Payment, bound: ActionForm | None = None
) -> list[tuple[Possible, ActionForm]]:
    """The operations the signed-in member may ask for on this payment, each with its form
    (`bound`: the one just sent back with its errors)."""
    if request.portal_user.role not in ACTING_ROLES:  # type: ignore[attr-defined]
        return []
    forms = []
    for possible in possible_actions(payment):
        form = bound if bound is not None and bound.kind == possible.kind else None
        forms.append(
            (
                possible,
                form
                or ActionForm(
                    kind=possible.kind,
                    up_to=possible.up_to,
                    currency=payment.currency,
                    prefix=possible.kind,
                ),
            )
        )
    return forms


def _transaction_page(
    request: HttpRequest, payment: Payment, bound: ActionForm | None = None
) -> HttpResponse:
    threeds = getattr(payment, "threeds", None)
    chain = payment_chain(payment=payment)
    return render(
        request,
        "portal/transaction.html",
        {
            "title": f"Payment {payment.pk}",
            "payment": payment,
            "card": masked(payment),
            "chain": [(p, masked(p)) for p in chain],
            "threeds": threeds,
            "refundable": payment.refundable if payment.payment_type in SALE_TYPES else Decimal(0),
            "act_forms": _act_forms(request, payment, bound),
            "actions": payment.actions.order_by("-requested_at")[:20],
        },
        status=400 if bound is not None else 200,
    )


@page_methods("GET")
@portal_view
def transaction(request: HttpRequest, payment_id: str) -> HttpResponse:
    return _transaction_page(request, _own_payment(request, payment_id))


@page_methods("POST")
@portal_view(roles=ACTING_ROLES)
def act(request: HttpRequest, payment_id: str, kind: str) -> HttpResponseBase:
    """Capture, reverse or refund one of the merchant's payments (an operator or administrator):
    the API's services and result codes, once per form, recorded with the user's name."""
    payment = _own_payment(request, payment_id)
    possible = {p.kind: p for p in possible_actions(payment)}.get(kind)
    if possible is None:
        messages.error(request, "That is not possible on this payment now.")
        return redirect("portal:transaction", payment_id=payment.pk)
    form = ActionForm(
        request.POST, kind=kind, up_to=possible.up_to, currency=payment.currency, prefix=kind
    )
    if form.is_valid():
        try:
            outcome = action_request(
                form.action_request(
                    original_id=payment.pk,
                    channel=PaymentAction.Channel.PORTAL,
                    actor=f"portal:{request.user.get_username()}",
                    user_id=request.user.pk,
                    merchant=request.merchant,  # type: ignore[attr-defined]
                )
            )
        except ActionRefused as refused:
            form.add_error(None, str(refused))
        else:
            _said(request, outcome)
            return redirect("portal:transaction", payment_id=payment.pk)
    return _transaction_page(request, payment, bound=form)


def _said(request: HttpRequest, outcome: ActionOutcome) -> None:
    words = said(outcome)
    messages.add_message(request, getattr(messages, words.level.upper()), words.text)


def _overview_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("Today's and this month's figures, and four charts (inline SVG).")}
    return {"get": portal_page("portal_overview", "Portal: overview", page)}


def _transactions_operations() -> dict[str, dict[str, Any]]:
    listed = html("A page of the merchant's payments, newest first, as filtered.")
    listed["content"]["text/csv"] = {"schema": {"type": "string"}}
    text = {"type": "string"}
    parameters = [
        {"name": name, "in": "query", "required": False, "schema": text}
        for name in (
            "q",
            *("date_from", "date_to", "payment_type", "family", "amount_min", "amount_max"),
            *("card_last4", "merchant_transaction_id", "terminal", "page", "export"),
        )
    ]
    return {
        "get": portal_page(
            "portal_transactions",
            "Portal: transactions (export=csv: the filtered list as CSV)",
            {"200": listed},
            parameters=parameters,
        )
    }


def _transaction_operations() -> dict[str, dict[str, Any]]:
    page = {"200": html("The payment, its 3-D Secure result and its chain.")}
    return {
        "get": portal_page(
            "portal_transaction",
            "Portal: a payment and its chain",
            page,
            parameters=[hex_id_parameter("payment_id", "The payment's id.")],
        )
    }


def _act_operations() -> dict[str, dict[str, Any]]:
    return {
        "post": portal_page(
            "portal_act",
            "Portal: capture (CP), reverse (RV) or refund (RF) a payment (operators, "
            "administrators)",
            {
                "400": html("The payment's page again, with the form's problem."),
                "403": html("A viewer: the role allows reading only."),
            },
            parameters=[
                hex_id_parameter("payment_id", "The payment's id."),
                {
                    "name": "kind",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string", "enum": list(PaymentAction.Kind.values)},
                },
            ],
            form=(
                "csrfmiddlewaretoken",
                *(
                    f"{kind}-{name}"
                    for kind in ("CP", "RF")
                    for name in ("amount", "reason", "key")
                ),
                "RV-reason",
                "RV-key",
            ),
        )
    }


@page_methods("GET")
@portal_view
def registrations(request: HttpRequest) -> HttpResponse:
    merchant = request.merchant  # type: ignore[attr-defined]
    stored = Registration.objects.filter(merchant=merchant).order_by("-created_at", "-pk")
    may_deregister = request.portal_user.role in ACTING_ROLES  # type: ignore[attr-defined]
    return list_page(
        request,
        stored,
        "portal/registrations.html",
        "Stored cards",
        extra={"may_deregister": may_deregister},
    )


@page_methods("POST")
@portal_view(roles=ACTING_ROLES)
def deregister(request: HttpRequest, registration_id: str) -> HttpResponseBase:
    """Destroy a stored card of the merchant's (another's: 404), as DELETE /registrations/{id}."""
    merchant = request.merchant  # type: ignore[attr-defined]
    try:
        registration_deregister(entity=merchant.entity, registration_id=registration_id)
    except ApplicationError as exc:
        if exc.http_status == 404:
            raise Http404("no such stored card") from None
        messages.error(request, f"Not deregistered: {exc.description}.")
    else:
        messages.success(request, "The stored card is deregistered: it can no longer pay.")
    return redirect("portal:registrations")


def _deregister_operations() -> dict[str, dict[str, Any]]:
    return {
        "post": portal_page(
            "portal_deregister",
            "Portal: deregister a stored card (operators, administrators)",
            {"403": html("A viewer: the role allows reading only.")},
            parameters=[hex_id_parameter("registration_id", "The registration's id.")],
            form=("csrfmiddlewaretoken",),
        )
    }


urlpatterns = [
    path(
        "registrations/",
        documented(
            list_operations("portal_registrations", "Portal: stored cards", "The stored cards.")
        )(registrations),
        name="registrations",
    ),
    path(
        "registrations/<hexid:registration_id>/deregister/",
        documented(_deregister_operations)(deregister),
        name="deregister",
    ),
    path("", documented(_overview_operations)(overview), name="overview"),
    path(
        "transactions/",
        documented(_transactions_operations)(transactions),
        name="transactions",
    ),
    path(
        "transactions/<hexid:payment_id>/",
        documented(_transaction_operations)(transaction),
        name="transaction",
    ),
    path(
        "transactions/<hexid:payment_id>/act/<str:kind>/",
        documented(_act_operations)(act),
        name="act",
    ),
]
