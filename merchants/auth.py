"""Bearer authentication that checks the token, entityId and entityType together.

1. `Authorization: Bearer <token>` names an active entity (else 401, 800.900.300).
2. entityId and entityType are read from the request (query for GET, body otherwise) and
   validated (400 naming them).
3. The token may act for entityId if it is that entity's token, or the token of the participator
   that owns it (channel dispatching). entityType must match: PARTICIPATOR for a participator,
   MERCHANT or POS for a merchant's entity (else 403, 800.900.301).
4. POS: pos.terminalId is required and must name a terminal of that merchant (else 403).

`request.user` becomes a `Principal`; views check which entity types an operation allows.
"""

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from rest_framework import authentication
from rest_framework import exceptions as drf
from rest_framework.request import Request

from core.errors import ParameterError
from core.fields import AN, Choice
from core.nesting import lookup
from core.parsers import nest_query

from .models import Entity, EntityType
from .selectors import entity_by_token

ENTITY_ID = AN(8, min=8, pattern=r"[A-Z0-9]{8}", what="uppercase letters and digits")
ENTITY_TYPE = Choice(("MERCHANT", "POS", "PARTICIPATOR"))


@dataclass(frozen=True)
class Principal:
    """Who calls: the token's entity, the entity it acts as, the type, for POS the terminal."""

    token_entity: Entity
    entity: Entity
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


def request_params(request: Request) -> dict[str, Any]:
    if request.method in ("GET", "HEAD"):
        return nest_query(request.query_params)
    data = request.data
    return data if isinstance(data, dict) else {}


class EntityTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'

    def authenticate(self, request: Request) -> tuple[Principal, None]:
        token_entity = self._token_entity(request)
        params = request_params(request)
        entity_id = _check("entityId", ENTITY_ID, params)
        entity_type = _check("entityType", ENTITY_TYPE, params)
        entity = (
            token_entity
            if token_entity.entity_id == entity_id
            else Entity.objects.filter(entity_id=entity_id, is_active=True).first()
        )
        if entity is None or not _may_act(token_entity, entity):
            raise drf.PermissionDenied("the token may not act for this entityId")
        allowed_types = (
            {"PARTICIPATOR"}
            if entity.entity_type == EntityType.PARTICIPATOR
            else {"MERCHANT", "POS"}
        )
        if entity_type not in allowed_types:
            raise drf.PermissionDenied(
                f"entityType {entity_type} does not match entityId {entity_id}"
            )
        terminal = None
        if entity_type == EntityType.POS:
            terminal = self._terminal(entity, params)
        return Principal(token_entity, entity, entity_type, terminal), None

    def _token_entity(self, request: Request) -> Entity:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            raise drf.NotAuthenticated("missing Authorization: Bearer header")
        keyword, _, token = header.partition(" ")
        if keyword.lower() != "bearer" or not token.strip() or " " in token.strip():
            raise drf.AuthenticationFailed("malformed Authorization header; use Bearer <token>")
        entity = entity_by_token(token.strip())
        if entity is None:
            raise drf.AuthenticationFailed("invalid bearer token")
        return entity

    def _terminal(self, entity: Entity, params: dict[str, Any]) -> Any:
        terminal_id = lookup(params, "pos.terminalId")
        if terminal_id in (None, ""):
            raise ParameterError([("pos.terminalId", None, "is required when entityType is POS")])
        terminal_model = apps.get_model("terminals", "Terminal")
        terminal = terminal_model.objects.filter(
            terminal_id=terminal_id, merchant__entity=entity
        ).first()
        if terminal is None:
            raise drf.PermissionDenied("pos.terminalId is not a terminal of this merchant")
        return terminal


def _may_act(token_entity: Entity, entity: Entity) -> bool:
    return token_entity.pk == entity.pk or (
        token_entity.entity_type == EntityType.PARTICIPATOR and entity.owner_id == token_entity.pk
    )


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
