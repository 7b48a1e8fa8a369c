from django.urls import path

from .api import views

urlpatterns = [
    path("pay/v3/payments", views.PaymentsView.as_view(), name="payments"),
    path("pay/v3/payments/<str:payment_id>", views.PaymentsView.as_view(), name="payment"),
    path("pay/v21/payments", views.ReversalView.as_view(), name="payments-v21"),
]
