"""OpenAPI for the spec operations, generated from the same tables that validate requests.

Request bodies are form-encoded with flat dotted names (JSON also accepted), so each table row
becomes one property named as on the wire (`merchant.postcode`), with its spec format, the
requirement word and the meaning. Inquiries (GET) list the rows as query parameters.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter

from .fields import AN, Choice, Decimal_, N
from .tables import F, Table

REQUIREMENT = {"M": "Mandatory", "O": "Optional", "C": "Conditional"}

RESULT = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": r"^\d{3}\.\d{3}\.\d{3}$"},
        "description": {"type": "string"},
        "parameterErrors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "value": {"type": "string", "nullable": True},
                    "message": {"type": "string"},
                },
            },
        },
    },
    "required": ["code", "description"],
}
ENVELOPE = {
    "type": "object",
    "description": "Nested JSON: the operation's groups (merchant, pos, ...) beside these.",
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z0-9]{32}$"},
        "result": RESULT,
        "buildNumber": {"type": "string"},
        "timestamp": {"type": "string", "example": "2026-01-31 12:00:00.000+0000"},
        "ndc": {"type": "string"},
    },
    "required": ["id", "result", "buildNumber", "timestamp", "ndc"],
    "additionalProperties": True,
}


def property_schema(spec: F) -> dict[str, Any]:
    ftype = spec.type
    schema: dict[str, Any] = {"type": "string"}
    description = f"{REQUIREMENT.get(spec.req, spec.req)}. {ftype.describe()}."
    if spec.meaning:
        description += f" {spec.meaning[:1].upper()}{spec.meaning[1:]}."
    schema["description"] = description
    if isinstance(ftype, Choice):
        schema["enum"] = list(ftype.values)
    if isinstance(ftype, AN | N):
        schema["maxLength"] = ftype.max
        schema["minLength"] = ftype.min
    if isinstance(ftype, AN) and ftype.pattern:
        schema["pattern"] = f"^{ftype.pattern}$"
    if isinstance(ftype, Decimal_):
        schema["pattern"] = f"^{ftype._regex}$"
    schema["example"] = ftype.valid()
    return schema


def table_schema(
    table: Table, *, partial: bool = False, required: tuple[str, ...] = ()
) -> dict[str, Any]:
    must = [f.name for f in table if (f.name in required if partial else f.mandatory)]
    return {
        "type": "object",
        "properties": {f.name: property_schema(f) for f in table},
        "required": must,
    }


class SpecAutoSchema(AutoSchema):
    def _table(self) -> Table | None:
        return getattr(self.view, "table", None)

    def get_request_serializer(self) -> Any:
        table = self._table()
        if table is None:
            return super().get_request_serializer()
        schema = table_schema(
            table,
            partial=getattr(self.view, "partial", False),
            required=getattr(self.view, "always_required", ()),
        )
        return {"application/x-www-form-urlencoded": schema, "application/json": schema}

    def get_response_serializers(self) -> Any:
        if self._table() is None:
            return super().get_response_serializers()
        return {200: ENVELOPE, 400: ENVELOPE, 401: ENVELOPE, 403: ENVELOPE, 404: ENVELOPE}

    def get_override_parameters(self) -> list[Any]:
        table = getattr(self.view, "inquiry_table", None) or self._table()
        if table is None or self.method != "GET":
            return super().get_override_parameters()
        return [
            OpenApiParameter(
                f.name,
                str,
                OpenApiParameter.QUERY,
                required=f.mandatory,
                description=property_schema(f)["description"],
            )
            for f in table
        ]

    def get_tags(self) -> list[str]:
        operation = getattr(self.view, "operation", "")
        return [operation.split(".")[0]] if operation else super().get_tags()

    def get_operation_id(self) -> str:
        operation = getattr(self.view, "operation", "")
        if not operation:
            return super().get_operation_id()
        suffix = "_path" if "{" in self.path else ""
        return f"{operation.replace('.', '_')}_{self.method.lower()}{suffix}"


class EntityTokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.auth.EntityTokenAuthentication"
    name = "entityBearer"

    def get_security_definition(self, auto_schema):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The entity's token; entityId and entityType go in the request.",
        }
