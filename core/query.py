"""The query string of an API request, checked before anything reads it.

Card data and secrets never travel in a URL: URLs are written to access logs, proxies' logs and
browser histories. A query string that names a card field (`card.number`, `card.cvv`, any
`card.*` or `card[...]`) or a name ending in cvv, pin, password or token (`merchant.token`,
`customParameters[accessToken]`) is refused with 400, naming each such parameter without its
value, whatever the method and whether or not the path exists.
"""

import re
from urllib.parse import unquote_to_bytes

from django.conf import settings
from django.core.handlers.wsgi import get_bytes_from_wsgi
from django.http import HttpRequest

from .errors import MASKED, SECRET_SUFFIXES, ApplicationError, InvalidRequest, ParameterError

_PARTS = re.compile(r"[.\[\]]+")
IN_URL = "card data and secrets may not be sent in the URL query string: send them in the body"


def is_secret_name(name: str) -> bool:
    parts = [part for part in _PARTS.split(name.strip()) if part]
    if not parts:
        return False
    return parts[0].lower() == "card" or parts[-1].lower().endswith(tuple(SECRET_SUFFIXES))


def query_names(request: HttpRequest) -> list[str]:
    """The names of the query string's parameters, in order (a name once per occurrence)."""
    raw = get_bytes_from_wsgi(request.META, "QUERY_STRING", "")
    pieces = [piece for piece in raw.split(b"&") if piece]
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    if limit is not None and len(pieces) > limit:
        raise InvalidRequest(description=f"the request has more than {limit} fields")
    names = []
    for piece in pieces:
        name = piece.split(b"=", 1)[0].replace(b"+", b" ")
        names.append(unquote_to_bytes(name).decode("utf-8", "replace"))
    return names


def query_refusal(request: HttpRequest) -> ApplicationError | None:
    """The refusal of this request's query string, or None."""
    try:
        names = query_names(request)
    except ApplicationError as exc:
        return exc
    secret = [name for name in dict.fromkeys(names) if is_secret_name(name)]
    if secret:
        return ParameterError((name, MASKED, IN_URL) for name in secret)
    return None
