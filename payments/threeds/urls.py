from django.urls import path

from . import views

urlpatterns = [
    path("threeds/<str:auth_id>/start", views.start, name="threeds-start"),
    path("threeds/<str:auth_id>/continue", views.proceed, name="threeds-continue"),
    path("threeds/acs/<str:auth_id>/method", views.acs_method, name="threeds-acs-method"),
    path("threeds/acs/<str:auth_id>/challenge", views.acs_challenge, name="threeds-acs-challenge"),
]
