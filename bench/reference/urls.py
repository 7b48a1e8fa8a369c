from django.urls import path

from . import views

urlpatterns = [
    path("healthz", views.healthz),
    path("pay", views.PaymentView.as_view()),
    path("oauth2/token", views.token_view),
    path("jwe", views.jwe_view),
]
