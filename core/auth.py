"""Bearer authentication that checks the token, entityId and entityType together.

1. `Authorization: Bearer <token>` names an active entity (else 401, 800.900.300): its current
   token, or the token its last rotation replaced while that rotation's overlap lasts (at most
   24 hours; the directory compares the expiry with the clock on every request, so the old token
   is refused from the first request after it).
2. entityId and entityType are read from the request (query for GET and DELETE, body otherwise) and
   validated (400 naming them).
3. The token may act for entityId if it is that entity's token, or the token of the participator
   that owns it (channel dispatching). entityType must be one the entity may use: PARTICIPATOR
   for a participator, MERCHANT or POS for a merchant's entity (else 403, 800.900.301).
4. POS: pos.terminalId is required, must be a terminal id (400, checked before it is looked up)
   and must name a terminal of that merchant (else 403).

`request.user` becomes a `Principal`; views check which entity types an operation allows.

Core holds no business data: the app that keeps entities (merchants) registers an
`EntityDirectory`, and the app that keeps terminals registers how a POS entity finds its
terminal, both when Django is ready. So neither app imports the other for authentication.
"""

from dataclasses import dataclass
from typing import Any, Protocol

from rest_framework import authentication
from rest_framework import exceptions as drf
from rest_framework.request import Request

from .context import bind_log
from .errors import ParameterError
from .nesting import lookup
from .parsers import nest_query
from .tables.common import ENTITY_ID, ENTITY_TYPE, TERMINAL_ID_TYPE


class EntityDirectory(Protocol):
    """Where entities are looked up (registered by the merchants app)."""

    def by_token(self, token: str) -> Any | None:
        """The active entity whose bearer token this is (or was, until its overlap ends)."""

    def by_id(self, entity_id: str) -> Any | None:
        """The active entity with this entityId."""

    def may_act(self, token_entity: Any, entity: Any) -> bool:
        """Whether the token's entity may act as `entity` (itself, or channel dispatching)."""

    def entity_types(self, entity: Any) -> frozenset[str]:
        """The entityType values this entity may use."""


class TerminalFinder(Protocol):
    def __call__(self, entity: Any, terminal_id: str) -> Any | None:
        """The terminal `terminal_id` of the merchant whose entity this is, or None."""


_directory: EntityDirectory | None = None
_terminal_finder: TerminalFinder | None = None


def register_directory(directory: EntityDirectory) -> None:
    global _directory
    _directory = directory


def register_terminal_finder(finder: TerminalFinder) -> None:
    global _terminal_finder
    _terminal_finder = finder


def directory() -> EntityDirectory:
    if _directory is None:
        raise RuntimeError("no entity directory registered (is the merchants app installed?)")
    return _directory


@dataclass(frozen=True)
class Principal:
    """Who calls: the token's entity, the entity it acts as, the type, for POS the terminal."""

    token_entity: Any
    entity: Any
    entity_type: str
    terminal: Any = None

    is_authenticated = True
    is_anonymous = False

    @property
    def actor(self) -> str:
        """How history rows name this caller."""
        if self.token_entity.pk != self.entity.pk:
            return f"entity:{self.token_entity.entity_id} for {self.entity.entity_id}"
        return f"entity:{self.entity.entity_id}"


# Methods whose parameters are in the query string (a DELETE has no body).
QUERY_METHODS = ("GET", "HEAD", "DELETE")


def request_params(request: Request) -> dict[str, Any]:
    if request.method in QUERY_METHODS:
        return nest_query(request.query_params)
    data = request.data
    return data if isinstance(data, dict) else {}


class EntityTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'

    def authenticate(self, request: Request) -> tuple[Principal, None]:
        entities = directory()
        token_entity = self._token_entity(request, entities)
        params = request_params(request)
        entity_id = _check(ENTITY_ID.name, ENTITY_ID.type, params)
        entity_type = _check(ENTITY_TYPE.name, ENTITY_TYPE.type, params)
        entity = token_entity if token_entity.entity_id == entity_id else entities.by_id(entity_id)
        if entity is None or not entities.may_act(token_entity, entity):
            raise drf.PermissionDenied("the token may not act for this entityId")
        if entity_type not in entities.entity_types(entity):
            raise drf.PermissionDenied(
                f"entityType {entity_type} does not match entityId {entity_id}"
            )
        terminal = self._terminal(entity, params) if entity_type == "POS" else None
        bind_log(entity=entity.entity_id)  # on every later log line of the request
        return Principal(token_entity, entity, entity_type, terminal), None

    def _token_entity(self, request: Request, entities: EntityDirectory) -> Any:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            raise drf.NotAuthenticated("missing Authorization: Bearer header")
        keyword, _, token = header.partition(" ")
        if keyword.lower() != "bearer" or not token.strip() or " " in token.strip():
            raise drf.AuthenticationFailed("malformed Authorization header; use Bearer <token>")
        entity = entities.by_token(token.strip())
        if entity is None:
            raise drf.AuthenticationFailed("invalid bearer token")
        return entity

    def _terminal(self, entity: Any, params: dict[str, Any]) -> Any:
        terminal_id = lookup(params, "pos.terminalId")
        if terminal_id in (None, ""):
            raise ParameterError([("pos.terminalId", None, "is required when entityType is POS")])
        # Checked before the look-up: a NUL byte in it answered 500 on PostgreSQL.
        terminal_id = _check("pos.terminalId", TERMINAL_ID_TYPE, {"pos.terminalId": terminal_id})
        terminal = _terminal_finder(entity, terminal_id) if _terminal_finder is not None else None
        if terminal is None:
            raise drf.PermissionDenied("pos.terminalId is not a terminal of this merchant")
        return terminal


def _check(name: str, ftype: Any, params: dict[str, Any]) -> str:
    value = params.get(name)
    if value in (None, ""):
        raise ParameterError([(name, None, f"is required ({ftype.describe()})")])
    if not isinstance(value, str):
        raise ParameterError([(name, None, f"must be {ftype.describe()}")])
    try:
        return str(ftype.parse(value))
    except ValueError as exc:
        raise ParameterError([(name, value, str(exc))]) from None
