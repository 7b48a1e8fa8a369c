from django.urls import path

from .api import checkouts, registrations, views

# The methods of each path are said here: a GET is the inquiry of one payment, so only
# /payments/{id} answers it (the others answer 405, and the OpenAPI document lists no GET there).
urlpatterns = [
    path("pay/v3/payments", views.PaymentsView.as_view(), name="payments"),
    path(
        "pay/v3/payments/<str:payment_id>",
        views.PaymentsView.as_view(http_method_names=["get", "post"]),
        name="payment",
    ),
    path("pay/v21/payments", views.ReversalView.as_view(), name="payments-v21"),
    path("pay/v3/registrations", registrations.RegistrationsView.as_view(), name="registrations"),
    path(
        "pay/v3/registrations/<str:registration_id>",
        registrations.RegistrationView.as_view(),
        name="registration",
    ),
    path("pay/v3/checkouts", checkouts.CheckoutsView.as_view(), name="checkouts"),
    path(
        "pay/v3/checkouts/<str:checkout_id>/payment",
        checkouts.CheckoutPaymentView.as_view(),
        name="checkout-payment",
    ),
    path(
        "pay/v3/registrations/<str:registration_id>/payments",
        registrations.RegistrationPaymentsView.as_view(),
        name="registration-payments",
    ),
]
