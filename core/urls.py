"""URL helpers: each spec path answers with and without a trailing slash (the spec prints some
with one and some without); only the spelling of the spec appears in the OpenAPI schema. The
API's prefixes, and the pattern that answers every unknown path under them."""

import re
from typing import Any

from django.urls import URLPattern, path, re_path


def spec_path(route: str, view_class: Any, name: str, *aliases: str) -> list[URLPattern]:
    alternates = [route[:-1] if route.endswith("/") else route + "/", *aliases]
    for alias in aliases:
        alternates.append(alias[:-1] if alias.endswith("/") else alias + "/")
    return [
        path(route, view_class.as_view(), name=name),
        *[path(alt, view_class.as_view(schema=None)) for alt in alternates],
    ]


# The API's path prefixes (spec: payments and management under /pay/v3, exchange rates under /v3,
# reconciliation under /merch-web/download, the issuer's authorization API under /issuer). Every
# path under them answers in JSON, in DEBUG too: an unknown one with the envelope's 404.
API_PREFIXES = ("pay", "v3", "merch-web", "issuer")
_API_PATH = re.compile(r"^/(?:" + "|".join(re.escape(p) for p in API_PREFIXES) + r")(?:/|$)")


# The issuer's OAuth 2.0 endpoints (issuer/urls_oauth.py): their errors are RFC 6749's objects.
OAUTH_PREFIX = "/oauth2/"


def is_api_path(path: str) -> bool:
    return bool(_API_PATH.match(path))


def api_catch_all(view: Any) -> URLPattern:
    """The last pattern of the URL conf: any other path under an API prefix goes to `view`."""
    prefixes = "|".join(re.escape(p) for p in API_PREFIXES)
    return re_path(rf"^(?:{prefixes})(?:/[\s\S]*)?\Z", view)
