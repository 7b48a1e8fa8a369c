"""Staff admin for payments: read, and act through the services.

Payments change only through `payments.services` (money moves under the original's row lock), so
staff may not add, change or delete a payment here; staff with the permission capture, reverse
and refund from a payment's page through the same services as the API (payments.backoffice).
Card data stops at BIN, last four, holder and expiry: the PAN ciphertext and its fingerprint
are in no list, form or page.

The "Chain" section shows the original and every operation referencing it, with the original's
running totals and what may still be captured or refunded, computed as the services check them.
"""

import json
from datetime import date
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import flatten_fieldsets
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core import results
from core.admin import RangeFilter, ReadOnlyMixin, amount_column
from core.display import amount_text, code_with_name, mark_html, money_html, result_html

from .backoffice import admin as backoffice_admin  # also registers the operations' record
from .checkouts import admin as checkout_admin  # noqa: F401 - registers the checkout admin
from .models import (
    ZERO,
    Payment,
    PaymentType,
    ReversalAdvice,
    ThreeDSAuthentication,
    payment_type_name,
)
from .registrations.admin import instruction_chain  # also registers the card-on-file admins
from .selectors import (
    masked_search,
    payment_chain,
    payments_found,
    payments_marked,
    result_family_q,
)

UNCLASSIFIED = "unclassified"


class ResultFamilyFilter(admin.SimpleListFilter):
    """The result-code families that occur, in the catalogue's order."""

    title = "result family"
    parameter_name = "family"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        codes = (
            model_admin.get_queryset(request)
            .order_by()
            .values_list("result_code", flat=True)
            .distinct()
        )
        present = {results.family_of(code) for code in codes}
        names = [name for name, _ in results.FAMILIES] + [UNCLASSIFIED]
        return [(name, results.FAMILY_NAMES.get(name, name)) for name in names if name in present]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Payment]) -> QuerySet[Payment]:
        value = self.value()
        if not value:
            return queryset
        if value != UNCLASSIFIED and value not in dict(results.FAMILIES):
            return queryset.none()
        return queryset.filter(result_family_q(value))


class CreatedBetween(RangeFilter):
    title = "date range (UTC)"
    field = "created_at__date"
    input_type = "date"

    def parse(self, text: str) -> Any:
        return date.fromisoformat(text)


class AmountBetween(RangeFilter):
    title = "amount"
    field = "amount"
    input_type = "number"

    def parse(self, text: str) -> Any:
        return Decimal(text)


def _money(value: Decimal | None, currency: str) -> str:
    return "-" if value is None else amount_text(value, currency)


def _change_url(payment: Payment) -> str:
    return reverse("admin:payments_payment_change", args=[payment.pk])


def _original_of(payment: Payment) -> Payment:
    """The operation at the top of the chain: a refund of a capture refers to the capture, which
    refers to the preauthorization."""
    while payment.referenced is not None:
        payment = payment.referenced
    return payment


def remaining_capturable(original: Payment) -> tuple[Decimal | None, str]:
    """What a CP may still take from this original, and why it is nil when it is."""
    if original.payment_type != PaymentType.PA:
        return None, "only a preauthorization is captured"
    if not original.successful:
        return ZERO, "the preauthorization did not succeed"
    if original.closed_at is not None:
        return ZERO, "closed when its validity period elapsed"
    return max(original.capturable, ZERO), ""


def remaining_refundable(original: Payment) -> tuple[Decimal | None, str]:
    """What RF/PR may still give back: captured less refunded, and for a DB less reversed."""
    if original.payment_type not in (PaymentType.PA, PaymentType.DB):
        return None, "only a debit or a captured preauthorization is refunded"
    if not original.successful:
        return ZERO, "the original did not succeed"
    refundable = original.refundable
    if original.payment_type == PaymentType.DB:
        refundable -= original.reversed_amount  # a reversal gave part of the debit back
    return max(refundable, ZERO), ""


def _referenced_label(payment: Payment, by_id: dict[str, Payment]) -> str:
    referenced = by_id.get(payment.referenced_id or "")
    if referenced is None:
        return ""
    return f"{payment_type_name(referenced.payment_type)} …{referenced.pk[-6:]}"


def _figure(value: tuple[Decimal | None, str], currency: str) -> SafeString:
    amount, why = value
    if not why:
        return format_html("{}", _money(amount, currency))
    return format_html('{} <span class="quiet">({})</span>', _money(amount, currency), why)


def _data_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def duration_words(milliseconds: int | None) -> str:
    """A validity period as people say it: "7 days", "2 hours 30 minutes", "45 seconds"."""
    if milliseconds is None:
        return "-"
    seconds = milliseconds // 1000
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {unit}{'' if count == 1 else 's'}")
    return " ".join(parts[:2]) or f"{milliseconds} ms"


def _pretty_json(value: Any) -> SafeString:
    return format_html(
        "<pre>{}</pre>", json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    )


@admin.register(Payment)
class PaymentAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Payments as stored, for support and investigation; nothing is written from here."""

    # What staff look for first, each on one line of a 1280-pixel screen: the type's code and
    # name (and whether it was reversed or refunded), the amount with its currency's decimals,
    # the result's code and words, the masked card, the whole merchantTransactionId.
    list_display = (
        "short_id",
        "created_display",
        "type_code",
        "amount_display",
        "result_display",
        "card_display",
        "merchant_display",
        "merchant_transaction_id",
    )
    list_display_links = ("short_id",)
    list_filter = (
        "payment_type",
        ResultFamilyFilter,
        ("merchant", admin.RelatedOnlyFieldListFilter),
        ("created_at", admin.DateFieldListFilter),
        CreatedBetween,
        AmountBetween,
        "successful",
        "state",
        "test_mode",
    )
    # Any identifier a dispute or a phone call brings (payments_found); the field list only
    # makes Django show the search box.
    search_fields = ("=id",)
    search_help_text = (
        "The id (or its first 10 characters), merchantTransactionId, ARN, RRN, STAN, approval "
        "code, or the card as BIN and last four (411111…1111)."
    )
    list_select_related = ("merchant",)
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50
    show_full_result_count = False  # a filtered page does not count the whole table as well

    # Never pan_ciphertext or pan_fingerprint.
    fieldsets = (
        (
            "Payment",
            {
                "fields": (
                    "id",
                    "payment_type",
                    "merchant",
                    "terminal",
                    ("entity", "entity_type"),
                    "merchant_transaction_id",
                    "referenced",
                    ("amount_shown", "currency", "tax_amount_shown"),
                    "payment_brand",
                    "descriptor",
                    "merchant_invoice_id",
                    "merchant_memo",
                    "checkout_type",
                    ("transaction_source", "transaction_category"),
                    ("risk_score", "risk_decision"),
                )
            },
        ),
        (
            "Card",
            {
                "fields": (
                    ("card_bin", "card_last4"),
                    "card_holder",
                    ("card_expiry_month", "card_expiry_year"),
                ),
                "description": "The full card number is stored only encrypted and never shown.",
            },
        ),
        (
            "Network answer",
            {
                "fields": (
                    ("result_code", "result_family"),
                    "result_description",
                    "successful",
                    "auth_code",
                    "acquirer_response",
                    ("avs_response", "cvv_response", "mac_response"),
                    ("stan", "retrieval_ref_no", "acquirer_ref_no"),
                    "network_reference",
                    ("entry_mode", "condition_code"),
                )
            },
        ),
        (
            "Totals",
            {
                "fields": (
                    ("captured_shown", "refunded_shown", "reversed_shown"),
                    ("capturing_shown", "refunding_shown", "reversing_shown"),
                ),
                "description": "Running totals of the operations referencing this one, and "
                "what operations in flight hold (the second line).",
            },
        ),
        (
            "Lifecycle",
            {
                "fields": (
                    ("state", "in_flight_since"),
                    "test_mode",
                    "created_at",
                    "validity_period_shown",
                    "expires_at",
                    "closed_at",
                    "request_hash",
                )
            },
        ),
        ("Data groups", {"fields": ("data_display",)}),
        ("Response", {"fields": ("response_display",), "classes": ("collapse",)}),
        ("Chain", {"fields": ("chain",)}),
        (
            "Card on file",
            {"fields": ("registration", "standing_instruction_chain")},
        ),
    )
    readonly_fields = flatten_fieldsets(fieldsets)

    # The amounts with their currency's decimals (1500 JPY, not 1500.00).
    amount_shown = amount_column("amount", "amount")
    tax_amount_shown = amount_column("tax_amount", "tax amount")
    captured_shown = amount_column("captured_amount", "captured")
    refunded_shown = amount_column("refunded_amount", "refunded")
    reversed_shown = amount_column("reversed_amount", "reversed")
    capturing_shown = amount_column("capturing_amount", "capturing")
    refunding_shown = amount_column("refunding_amount", "refunding")
    reversing_shown = amount_column("reversing_amount", "reversing")

    # --- columns ---------------------------------------------------------------------------

    @admin.display(description="id", ordering="pk")
    def short_id(self, obj: Payment) -> str:
        return f"{obj.pk[:10]}…"

    @admin.display(description="created (UTC)", ordering="created_at")
    def created_display(self, obj: Payment) -> str:
        return f"{obj.created_at:%Y-%m-%d %H:%M:%S}"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Payment]:
        return payments_marked(payments=super().get_queryset(request))

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        masked = masked_search(request.GET)
        if masked is not None:  # a card number typed into the search: never echoed
            return HttpResponseRedirect(f"{request.path}?{masked}")
        return super().changelist_view(request, extra_context)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Payment], search_term: str
    ) -> tuple[QuerySet[Payment], bool]:
        return payments_found(queryset, search_term), False

    @admin.display(description="type", ordering="payment_type")
    def type_code(self, obj: Payment) -> SafeString:
        code = obj.payment_type
        name = code_with_name(
            code, payment_type_name(code), title=payment_type_name(code, full=True)
        )
        return format_html("{}{}", name, mark_html(getattr(obj, "mark", "")))

    @admin.display(description="amount", ordering="amount")
    def amount_display(self, obj: Payment) -> SafeString:
        return money_html(obj.amount, obj.currency)

    @admin.display(description="merchant", ordering="merchant__merchant_id")
    def merchant_display(self, obj: Payment) -> str:
        return obj.merchant.merchant_id

    @admin.display(description="result", ordering="result_code")
    def result_display(self, obj: Payment) -> SafeString:
        return result_html(obj.result_code, obj.result_description)

    @admin.display(description="card", ordering="card_last4")
    def card_display(self, obj: Payment) -> str | None:
        if not (obj.card_bin or obj.card_last4):
            return None
        return f"{obj.card_bin}…{obj.card_last4}"

    # --- detail ----------------------------------------------------------------------------

    @admin.display(description="family")
    def result_family(self, obj: Payment) -> str:
        family = results.family_of(obj.result_code)
        return results.FAMILY_NAMES.get(family, family)

    @admin.display(description="data groups")
    def data_display(self, obj: Payment) -> SafeString:
        """The request's data groups (customer, billing, cart, ...) as a table of the API's
        names and values."""
        if not obj.data:
            return format_html("{}", "-")
        rows = format_html_join(
            "",
            "<tr><th><code>{}</code></th><td>{}</td></tr>",
            ((name, _data_value(value)) for name, value in sorted(obj.data.items())),
        )
        return format_html('<table class="data-groups">{}</table>', rows)

    @admin.display(description="validity period")
    def validity_period_shown(self, obj: Payment) -> str:
        return duration_words(obj.validity_period_ms)

    @admin.display(description="response body")
    def response_display(self, obj: Payment) -> SafeString:
        return _pretty_json(obj.response_body)

    @admin.display(description="standing instruction")
    def standing_instruction_chain(self, obj: Payment) -> SafeString:
        return instruction_chain(obj.standing_instruction, current=obj.pk)

    @admin.display(description="operations")
    def chain(self, obj: Payment) -> SafeString:
        original = _original_of(obj)
        operations = payment_chain(payment=original)
        by_id = {op.pk: op for op in operations}
        rows = format_html_join(
            "",
            '<tr><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{}</td><td>{}</td>'
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    code_with_name(op.payment_type, payment_type_name(op.payment_type)),
                    _change_url(op),
                    op.pk,
                    _referenced_label(op, by_id),
                    _money(op.amount, op.currency),
                    op.currency,
                    result_html(op.result_code, op.result_description),
                    formats.date_format(timezone.localtime(op.created_at), "Y-m-d H:i:s"),
                    "this payment" if op.pk == obj.pk else "",
                )
                for op in operations
            ),
        )
        summary = format_html(
            '<table class="payment-totals">'
            "<caption>Original {} {}</caption>"
            "<tr><th>Amount</th><td>{} {}</td></tr>"
            "<tr><th>Captured</th><td>{}</td></tr>"
            "<tr><th>Refunded</th><td>{}</td></tr>"
            "<tr><th>Reversed</th><td>{}</td></tr>"
            "<tr><th>Remaining capturable</th><td>{}</td></tr>"
            "<tr><th>Remaining refundable</th><td>{}</td></tr>"
            "</table>",
            original.payment_type,
            original.pk,
            _money(original.amount, original.currency),
            original.currency,
            _money(original.captured_amount, original.currency),
            _money(original.refunded_amount, original.currency),
            _money(original.reversed_amount, original.currency),
            _figure(remaining_capturable(original), original.currency),
            _figure(remaining_refundable(original), original.currency),
        )
        return format_html(
            '<table class="payment-chain"><thead><tr><th>type</th><th>id</th><th>references</th>'
            "<th>amount</th><th>currency</th><th>result</th><th>created</th><th></th></tr>"
            "</thead><tbody>{}</tbody></table>{}",
            rows,
            summary,
        )

    # --- acting on it (payments.backoffice) -----------------------------------------------

    def get_urls(self) -> list[Any]:
        def act(request: HttpRequest, object_id: str, kind: str) -> HttpResponse:
            return backoffice_admin.act_view(self, request, object_id, kind)

        return [
            path(
                "<path:object_id>/act/<str:kind>/",
                self.admin_site.admin_view(act),
                name="payments_payment_act",
            ),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        payment = Payment.objects.filter(pk=object_id).first()
        if payment is not None:
            extra_context = {**(extra_context or {}), **backoffice_admin.offered(request, payment)}
        return super().change_view(request, object_id, form_url, extra_context)

    # --- read-only ---------------------------------------------------------------------------


@admin.register(ThreeDSAuthentication)
class ThreeDSAuthenticationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """3-D Secure authentications, read-only: where each shopper stands in the flow."""

    list_display = (
        "id",
        "payment",
        "state",
        "flow",
        "version",
        "trans_status",
        "eci",
        "amount_shown",
        "created_at",
        "completed_at",
    )
    list_filter = ("state", "flow", "version", "trans_status")
    search_fields = ("=id", "=payment__id", "payment__merchant_transaction_id")
    list_select_related = ("payment",)
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    exclude = ("nonce",)
    list_per_page = 50

    amount_shown = amount_column("amount", "amount", with_currency=True)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields if f.name != "nonce"]


@admin.register(ReversalAdvice)
class ReversalAdviceAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Reversal advices (ISO 8583 0420) owed to the network or acknowledged, read-only: what the
    network still has to be told (docs/runbook.md, "Reversal advices piling up")."""

    list_display = (
        "reversal_shown",
        "original_shown",
        "state",
        "attempts",
        "next_attempt_shown",
        "response_code",
        "last_error",
        "created_at",
    )
    list_filter = ("state",)
    search_fields = ("=reversal__id", "=reversal__referenced__id")
    list_select_related = ("reversal",)
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    list_per_page = 50

    @admin.display(description="reversal")
    def reversal_shown(self, advice: ReversalAdvice) -> SafeString:
        return _payment_link(advice.reversal_id)

    @admin.display(description="original payment")
    def original_shown(self, advice: ReversalAdvice) -> SafeString:
        return _payment_link(advice.reversal.referenced_id)

    @admin.display(description="next attempt")
    def next_attempt_shown(self, advice: ReversalAdvice) -> str:
        if advice.state != ReversalAdvice.State.OWED:
            return "-"
        return formats.date_format(timezone.localtime(advice.next_attempt_at), "Y-m-d H:i:s")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]


def _payment_link(payment_id: str | None) -> SafeString:
    """A payment's id as the payments list shows it (its first ten characters), linked."""
    if not payment_id:
        return format_html("{}", "-")
    url = reverse("admin:payments_payment_change", args=[payment_id])
    return format_html('<a href="{}" title="{}">{}</a>', url, payment_id, payment_id[:10])
