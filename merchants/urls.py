"""Merchant management paths. A trailing slash is optional on every path (the spec prints some
with one and some without)."""

from django.urls import re_path

from .api import views

urlpatterns = [
    re_path(r"^merchant/create/?$", views.MerchantCreateView.as_view(), name="merchant-create"),
    re_path(r"^merchant/update/?$", views.MerchantUpdateView.as_view(), name="merchant-update"),
    re_path(r"^merchant/status/?$", views.MerchantStatusView.as_view(), name="merchant-status"),
    re_path(r"^merchant/3dsenroll/?$", views.Merchant3DSEnrolView.as_view(), name="merchant-3dsenroll"),
    re_path(r"^merchant/3dsdelete/?$", views.Merchant3DSDeleteView.as_view(), name="merchant-3dsdelete"),
    re_path(r"^merchant/[Ii]nquiry/?$", views.MerchantInquiryView.as_view(), name="merchant-inquiry"),
]
