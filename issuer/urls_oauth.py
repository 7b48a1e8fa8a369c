"""The OAuth endpoints at the site root: /oauth2/token and /.well-known/jwks.json."""

from django.urls import path

from .protocol import oauth

urlpatterns = [
    path("oauth2/token", oauth.token_view, name="issuer-token"),
    path(".well-known/jwks.json", oauth.jwks_view, name="issuer-jwks"),
]
