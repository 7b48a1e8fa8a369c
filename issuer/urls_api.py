"""The authorization API and the cardholder's out-of-band page (included at the site root)."""

from django.urls import path

from . import views
from .protocol import api

urlpatterns = [
    path("issuer/v1/<str:group>/<str:operation>", api.operation_view, name="issuer-api"),
    path(
        "issuer/oob/<str:authentication_id>/<str:token>",
        views.oob_page,
        name="issuer-oob-cardholder",
    ),
]
