from django.urls import path

from .api import views

urlpatterns = [
    path("pay/v3/tokenize", views.TokenizeView.as_view(), name="tokenize"),
    path("pay/v3/asset/<str:asset_id>", views.AssetView.as_view(), name="asset"),
]
