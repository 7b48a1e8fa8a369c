"""Merchant management paths, spelt as in the specification (see core.urls.spec_path)."""

from core.urls import spec_path

from .api import views

urlpatterns = [
    *spec_path("merchant/create", views.MerchantCreateView, "merchant-create"),
    *spec_path("merchant/update/", views.MerchantUpdateView, "merchant-update"),
    *spec_path("merchant/status/", views.MerchantStatusView, "merchant-status"),
    *spec_path("merchant/3dsenroll", views.Merchant3DSEnrolView, "merchant-3dsenroll"),
    *spec_path("merchant/3dsdelete", views.Merchant3DSDeleteView, "merchant-3dsdelete"),
    *spec_path(
        "merchant/Inquiry", views.MerchantInquiryView, "merchant-inquiry", "merchant/inquiry"
    ),
]
