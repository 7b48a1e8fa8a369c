"""The admin's side of acting on a payment: the buttons on a payment's page (by permission), the
form of each operation, the second approval's page, and the record of every operation asked for
(Payments › Payment operations)."""

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from core.admin import ReadOnlyMixin, amount_column, staff_actor
from core.display import result_html

from ..models import Payment, payment_type_name
from . import services
from .forms import ActionForm
from .models import PaymentAction

Kind = PaymentAction.Kind
PERMISSION: dict[str, str] = {
    Kind.CAPTURE: "payments.capture_payment",
    Kind.REVERSE: "payments.reverse_payment",
    Kind.REFUND: "payments.refund_payment",
}
APPROVE = "payments.approve_paymentaction"


def offered(request: HttpRequest, payment: Payment) -> dict[str, Any]:
    """What a payment's page shows this staff member: the operations they may ask for, and the
    held ones waiting for a second approval."""
    return {
        "possible": [
            possible
            for possible in services.possible_actions(payment)
            if request.user.has_perm(PERMISSION[possible.kind])
        ],
        "awaiting": services.awaiting(payment),
    }


def change_url(payment_id: str) -> str:
    return reverse("admin:payments_payment_change", args=[payment_id])


def report(request: HttpRequest, outcome: services.ActionOutcome) -> None:
    """The answer, in words, as a message on the payment's page."""
    words = services.said(outcome)
    messages.add_message(request, getattr(messages, words.level.upper()), words.text)


def act_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str, kind: str
) -> HttpResponse:
    if kind not in PERMISSION or not request.user.has_perm(PERMISSION[kind]):
        raise PermissionDenied
    payment = get_object_or_404(Payment.objects.select_related("merchant"), pk=object_id)
    possible = {p.kind: p for p in services.possible_actions(payment)}.get(kind)
    if possible is None:
        messages.error(request, f"{Kind(kind).label} is not possible on this payment now.")
        return redirect(change_url(payment.pk))
    form = ActionForm(
        request.POST if request.method == "POST" else None,
        kind=kind,
        up_to=possible.up_to,
        currency=payment.currency,
    )
    if request.method == "POST" and form.is_valid():
        try:
            outcome = services.action_request(
                form.action_request(
                    original_id=payment.pk,
                    channel=PaymentAction.Channel.ADMIN,
                    actor=staff_actor(request),
                    user_id=request.user.pk,
                )
            )
        except services.ActionRefused as refused:
            form.add_error(None, str(refused))
        else:
            report(request, outcome)
            return redirect(change_url(payment.pk))
    held = services.needs_approval(
        kind, PaymentAction.Channel.ADMIN, possible.up_to or payment.reversible, payment.currency
    )
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": Payment._meta,
        "title": f"{possible.label}: {payment_type_name(payment.payment_type)} {payment.pk[:10]}",
        "payment": payment,
        "possible": possible,
        "form": form,
        "threshold": services.approval_threshold(payment.currency),
        "may_be_held": kind in services.HELD and held,
        "reversible": payment.reversible,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/payments/act.html", context)


def decide_view(
    model_admin: admin.ModelAdmin, request: HttpRequest, action_id: str
) -> HttpResponse:
    action = get_object_or_404(
        PaymentAction.objects.select_related("original", "payment"), pk=action_id
    )
    actor = staff_actor(request)
    own = action.requested_by == actor or action.requested_by_user_id == request.user.pk
    may_approve = request.user.has_perm(APPROVE) and not own
    may_reject = request.user.has_perm(APPROVE) or own
    if not (may_approve or may_reject):
        raise PermissionDenied
    if request.method == "POST":
        note = request.POST.get("note", "")
        try:
            if "approve" in request.POST and may_approve:
                payment = services.action_approve(
                    action_id=action.pk, actor=actor, user_id=request.user.pk
                )
                done = "approved and sent"
            elif "reject" in request.POST and may_reject:
                payment = services.action_reject(action_id=action.pk, actor=actor, note=note)
                done = "rejected" if not own else "withdrawn"
            else:
                raise PermissionDenied
        except services.ActionRefused as refused:
            messages.error(request, str(refused))
        else:
            if payment is not None:
                messages.success(
                    request,
                    f"{action.get_kind_display()} {done}: "
                    f"{payment.result_code} {payment.result_description}.",
                )
        return redirect(change_url(action.original_id))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": PaymentAction._meta,
        "title": f"Approve or reject: {action.get_kind_display().lower()} of "
        f"{action.original_id[:10]}",
        "action": action,
        "own": own,
        "may_approve": may_approve,
        "may_reject": may_reject,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/payments/decide.html", context)


@admin.register(PaymentAction)
class PaymentActionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Every capture, reversal and refund asked for from the admin or the portal: who, when,
    why, and who approved it (read-only: the record)."""

    list_display = (
        "requested_at",
        "kind",
        "amount_shown",
        "original_shown",
        "state_shown",
        "result_shown",
        "requested_by",
        "reason",
        "decided_by",
    )
    list_filter = ("state", "kind", "channel")
    search_fields = ("=original__id", "=payment__id", "requested_by", "decided_by", "reason")
    date_hierarchy = "requested_at"
    list_select_related = ("original", "payment")
    ordering = ("-requested_at",)
    list_per_page = 50

    amount_shown = amount_column("amount", "amount", with_currency=True)

    @admin.display(description="payment", ordering="original")
    def original_shown(self, action: PaymentAction) -> SafeString:
        return format_html(
            '<a href="{}" title="{}">{}</a>',
            change_url(action.original_id),
            action.original_id,
            action.original_id[:10],
        )

    @admin.display(description="state", ordering="state")
    def state_shown(self, action: PaymentAction) -> SafeString:
        if action.state != PaymentAction.State.AWAITING_APPROVAL:
            return format_html("{}", action.get_state_display())
        url = reverse("admin:payments_paymentaction_decide", args=[action.pk])
        return format_html('<a href="{}">{}</a>', url, "Awaiting approval: decide")

    @admin.display(description="result")
    def result_shown(self, action: PaymentAction) -> SafeString:
        """What the operation answered (a "Sent" one may have been refused)."""
        if action.payment is None:
            return format_html("{}", "-")
        return result_html(action.payment.result_code, action.payment.result_description)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return [f.name for f in self.model._meta.fields]

    def get_urls(self) -> list[Any]:
        from django.urls import path

        return [
            path(
                "<str:action_id>/decide/",
                self.admin_site.admin_view(
                    lambda request, action_id: decide_view(self, request, action_id)
                ),
                name="payments_paymentaction_decide",
            ),
            *super().get_urls(),
        ]
