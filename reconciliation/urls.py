from django.urls import path

from .api import reports, views

urlpatterns = [
    path("v3/exchangerate/create", views.RateCreateView.as_view(), name="exchangerate-create"),
    path("v3/exchangerate/update", views.RateUpdateView.as_view(), name="exchangerate-update"),
    path("v3/exchangerate/Inquiry", views.RateInquiryView.as_view(), name="exchangerate-inquiry"),
    path(
        "merch-web/download/getSettleSummary",
        reports.SettleSummaryView.as_view(),
        name="settle-summary",
    ),
]
