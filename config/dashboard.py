"""The admin's index opens with a dashboard for bank staff: today's volume and approval rate,
declines by code, failed notifications, the settlement runs and daily files of the last
business day, open chargebacks. It sits in config because it reads every app; the figures are
aggregated in the database."""

from typing import Any

from django.contrib import admin
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.business_day import business_day_bounds, business_day_of, last_business_day
from core.models import OutboxMessage, OutboxStatus
from payments.models import Payment
from payments.selectors import declines_by_code, figures_by_merchant, payment_figures
from reconciliation.models import Chargeback, ReconFile, SettlementRun


def dashboard(now: Any = None) -> dict[str, Any]:
    now = now or timezone.now()
    start, end = business_day_bounds(business_day_of(now))  # the portal's Today, settlement's day
    payments = Payment.objects.filter(created_at__gte=start, created_at__lt=end)
    day = last_business_day(now)
    runs = SettlementRun.objects.filter(day=day)
    return {
        "today": payment_figures(payments),
        "today_by_merchant": figures_by_merchant(payments),
        "today_from": start,
        "declines": declines_by_code(payments, limit=10),
        "failed_notifications": OutboxMessage.objects.filter(status=OutboxStatus.FAILED).count(),
        "business_day": day,
        "runs": runs.count(),
        "net": list(runs.values("currency").annotate(net=Sum("net_amount")).order_by("currency")),
        "files": ReconFile.objects.filter(day=day).count(),
        "open_chargebacks": Chargeback.objects.filter(reversed_on__isnull=True).count(),
    }


# The apps bank staff work in, in the order they reach for them (core last: its notifications
# and stored answers); every other app (users and groups, django-axes, the OAuth toolkit, Celery
# beat's schedules) goes under "Technical".
STAFF_APPS = (
    "payments",
    "merchants",
    "terminals",
    "reconciliation",
    "tokenization",
    "issuer",
    "core",
)


def app_groups(app_list: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The index's app list in two: what bank staff use (`staff_apps`), then the rest
    (`technical_apps`), each in a stable order."""
    order = {label: n for n, label in enumerate(STAFF_APPS)}
    staff = sorted(
        (app for app in app_list if app["app_label"] in order),
        key=lambda app: order[app["app_label"]],
    )
    technical = [app for app in app_list if app["app_label"] not in order]
    return {"staff_apps": staff, "technical_apps": technical}


def _index(request: HttpRequest) -> HttpResponse:
    groups = app_groups(admin.site.get_app_list(request))
    return admin.site.index(request, extra_context={"dashboard": dashboard(), **groups})  # type: ignore[return-value]


# admin_view: staff only (others go to the admin's sign-in page), as the admin's own index.
index = admin.site.admin_view(_index)
