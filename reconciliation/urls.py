from django.urls import path

from .api import records, reports, views

urlpatterns = [
    path("v3/exchangerate/create", views.RateCreateView.as_view(), name="exchangerate-create"),
    path("v3/exchangerate/update", views.RateUpdateView.as_view(), name="exchangerate-update"),
    path("v3/exchangerate/Inquiry", views.RateInquiryView.as_view(), name="exchangerate-inquiry"),
    path(
        "merch-web/download/getSettleSummary",
        reports.SettleSummaryView.as_view(),
        name="settle-summary",
    ),
    path("merch-web/download/getReport", records.ReportView.as_view(), name="report"),
    path(
        "merch-web/download/getChargeback",
        records.ChargebackReportView.as_view(),
        name="chargeback-report",
    ),
]
