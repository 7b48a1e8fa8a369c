from django.urls import path

from . import views

# <hexid:...> (registered by core): a malformed id does not match, and is "not found".
urlpatterns = [
    path("checkout/<hexid:checkout_id>", views.page, name="checkout-page"),
    path("checkout/<hexid:checkout_id>/result", views.result, name="checkout-result"),
]
