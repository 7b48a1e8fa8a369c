"""The query string of an API request, checked before anything reads it.

Card data and secrets never travel in a URL: URLs are written to access logs, proxies' logs and
browser histories. A query string that names a card field (`card.number`, `card.cvv`, any
`card.*` or `card[...]`) or a name ending in cvv, pin, password or token (`merchant.token`,
`customParameters[accessToken]`) is refused with 400, naming each such parameter without its
value, whatever the method and whether or not the path exists. A query string that is not
valid UTF-8 is refused too (400 naming the parameter), before Django decodes it with
replacement characters.
"""

import re

from django.core.handlers.wsgi import get_bytes_from_wsgi
from django.http import HttpRequest
from rest_framework.exceptions import ParseError

from .errors import MASKED, SECRET_SUFFIXES, ApplicationError, ParameterError
from .parsers import form_pairs

_PARTS = re.compile(r"[.\[\]]+")
IN_URL = "card data and secrets may not be sent in the URL query string: send them in the body"


def is_secret_name(name: str) -> bool:
    parts = [part for part in _PARTS.split(name.strip()) if part]
    if not parts:
        return False
    return parts[0].lower() == "card" or parts[-1].lower().endswith(tuple(SECRET_SUFFIXES))


def query_names(request: HttpRequest) -> list[str]:
    """The names of the query string's parameters, in order, decoded strictly (core.parsers)."""
    raw = get_bytes_from_wsgi(request.META, "QUERY_STRING", "")
    return [name for name, _ in form_pairs(raw)]


def query_refusal(request: HttpRequest) -> Exception | None:
    """The refusal of this request's query string, or None: too many parameters, text that is
    not UTF-8, card data or secrets."""
    try:
        names = query_names(request)
    except (ApplicationError, ParseError) as exc:
        return exc
    secret = [name for name in names if is_secret_name(name)]
    if secret:
        return ParameterError((name, MASKED, IN_URL) for name in secret)
    return None
