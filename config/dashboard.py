"""The admin's index opens with a dashboard for bank staff: today's volume and approval rate,
declines by code, failed notifications, the settlement runs and daily files of the last
business day, open chargebacks. It sits in config because it reads every app; the figures are
aggregated in the database."""

from typing import Any

from django.contrib import admin
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.models import OutboxMessage, OutboxStatus
from payments.models import Payment
from payments.selectors import declines_by_code, payment_figures
from reconciliation.models import Chargeback, ReconFile, SettlementRun
from reconciliation.settlement import last_business_day


def dashboard(now: Any = None) -> dict[str, Any]:
    now = now or timezone.now()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    payments = Payment.objects.filter(created_at__gte=today)
    day = last_business_day(now)
    runs = SettlementRun.objects.filter(day=day)
    return {
        "today": payment_figures(payments),
        "declines": declines_by_code(payments, limit=10),
        "failed_notifications": OutboxMessage.objects.filter(status=OutboxStatus.FAILED).count(),
        "business_day": day,
        "runs": runs.count(),
        "net": list(runs.values("currency").annotate(net=Sum("net_amount")).order_by("currency")),
        "files": ReconFile.objects.filter(day=day).count(),
        "open_chargebacks": Chargeback.objects.filter(reversed_on__isnull=True).count(),
    }


def _index(request: HttpRequest) -> HttpResponse:
    return admin.site.index(request, extra_context={"dashboard": dashboard()})  # type: ignore[return-value]


# admin_view: staff only (others go to the admin's sign-in page), as the admin's own index.
index = admin.site.admin_view(_index)
