from django.urls import path

from . import views

# <hexid:...> (registered by core): a malformed id does not match, and is "not found".

urlpatterns = [
    path("threeds/<hexid:auth_id>/start", views.start, name="threeds-start"),
    path("threeds/<hexid:auth_id>/continue", views.proceed, name="threeds-continue"),
    path("threeds/acs/<hexid:auth_id>/method", views.acs_method, name="threeds-acs-method"),
    path(
        "threeds/acs/<hexid:auth_id>/challenge", views.acs_challenge, name="threeds-acs-challenge"
    ),
]
