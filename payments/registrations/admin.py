"""Staff admin for card on file: registrations (masked; searchable by last four and merchant;
deregistration through the service) and standing instructions with their chains. The card
number and its fingerprint are on no page."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin, each_through_service, staff_actor

from ..models import Payment
from . import services
from .models import Registration, StandingInstruction

HIDDEN = ("pan_ciphertext", "pan_fingerprint")


def _when(moment: Any) -> str:
    return formats.date_format(timezone.localtime(moment), "Y-m-d H:i:s") if moment else ""


def instruction_chain(chain: StandingInstruction | None, *, current: str = "") -> SafeString:
    """The CIT of a standing instruction and every MIT that named it, oldest first."""
    if chain is None:
        return format_html("{}", "—")
    payments = Payment.objects.filter(standing_instruction=chain).order_by("created_at")
    rows = format_html_join(
        "",
        '<tr><td>{}</td><td><a href="{}">{}</a></td><td>{}</td><td>{} {}</td><td>{}</td>'
        "<td>{}</td><td>{}</td></tr>",
        (
            (
                "CIT" if payment.pk == chain.initial_payment_id else "MIT",
                reverse("admin:payments_payment_change", args=[payment.pk]),
                payment.pk,
                payment.payment_type,
                payment.amount if payment.amount is not None else "",
                payment.currency,
                payment.result_code,
                _when(payment.created_at),
                "this payment" if payment.pk == current else "",
            )
            for payment in payments
        ),
    )
    return format_html(
        "<p>{} {} · initialTransactionId <code>{}</code> · {} authorized{}{}{}</p>"
        '<table class="instruction-chain"><thead><tr><th>source</th><th>id</th><th>type</th>'
        "<th>amount</th><th>result</th><th>created</th><th></th></tr></thead>"
        "<tbody>{}</tbody></table>",
        chain.type,
        f"every {chain.frequency_days} days" if chain.frequency_days else "",
        chain.initial_transaction_id,
        chain.authorizations,
        f" of {chain.number_of_installments}" if chain.number_of_installments else "",
        f" · until {chain.expiry:%Y-%m-%d}" if chain.expiry else "",
        f" · {chain.in_flight} in flight" if chain.in_flight else "",
        rows,
    )


class StandingInstructionInline(ReadOnlyMixin, admin.TabularInline):
    model = StandingInstruction
    fk_name = "registration"
    extra = 0
    fields = (
        "initial_transaction_id",
        "type",
        "frequency_days",
        "number_of_installments",
        "expiry",
        "authorizations",
        "last_authorized_at",
        "initial_payment",
    )
    readonly_fields = fields
    show_change_link = True


@admin.register(Registration)
class RegistrationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Stored cards: masked, read-only; staff may deregister (the card number is destroyed)."""

    list_display = (
        "id",
        "created_at",
        "merchant_display",
        "payment_brand",
        "masked_card",
        "card_holder",
        "expiry",
        "status",
        "merchant_customer_id",
    )
    list_filter = ("status", "payment_brand", ("merchant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=id", "=card_last4", "=merchant__merchant_id", "=merchant_customer_id")
    list_select_related = ("merchant",)
    ordering = ("-created_at",)
    date_hierarchy = "created_at"
    list_per_page = 50
    exclude = HIDDEN
    inlines = (StandingInstructionInline,)
    actions = ("deregister",)

    @admin.display(description="merchant", ordering="merchant__merchant_id")
    def merchant_display(self, obj: Registration) -> str:
        return obj.merchant.merchant_id

    @admin.display(description="card")
    def masked_card(self, obj: Registration) -> str:
        return obj.masked

    @admin.display(description="expiry")
    def expiry(self, obj: Registration) -> str:
        return f"{obj.card_expiry_month}/{obj.card_expiry_year}"

    @admin.action(
        description="Deregister the selected registrations (destroys the card number)",
        permissions=["manage"],
    )
    def deregister(self, request: HttpRequest, queryset: QuerySet[Registration]) -> None:
        actor = staff_actor(request)
        each_through_service(
            request,
            queryset,
            lambda registration: services.registration_deregister_by_staff(
                registration_id=registration.pk, actor=actor
            ),
            name=lambda registration: registration.masked,
            done=lambda names: f"Deregistered {len(names)}: {', '.join(names)}.",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields if f.name not in HIDDEN]


@admin.register(StandingInstruction)
class StandingInstructionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Standing instructions (the CIT's agreement) and the MITs of each chain."""

    list_display = (
        "initial_transaction_id",
        "created_at",
        "merchant",
        "type",
        "frequency_days",
        "number_of_installments",
        "expiry",
        "authorizations",
        "in_flight",
        "last_authorized_at",
    )
    list_filter = ("type", ("merchant", admin.RelatedOnlyFieldListFilter))
    search_fields = ("=initial_transaction_id", "=merchant__merchant_id", "=registration__id")
    list_select_related = ("merchant",)
    ordering = ("-created_at",)
    exclude = ("pan_fingerprint",)
    readonly_fields = ("chain",)

    @admin.display(description="chain")
    def chain(self, obj: StandingInstruction) -> SafeString:
        return instruction_chain(obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields if f.name != "pan_fingerprint"] + ["chain"]
