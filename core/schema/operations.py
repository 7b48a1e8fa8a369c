"""The OpenAPI operations of the spec views (core.api.SpecView), from what each view declares.

A view's table gives the request body (form and JSON, one component, required) or, for a GET,
the query parameters with the same rules; `path_parameters` the types of its path's ids;
`answer_table` the members of its 200 answer beside the envelope; `examples` request bodies the API
accepts; `links` the operations its answer feeds (OpenAPI links: a stateful client, or
Schemathesis, follows them). Views whose documentation depends on the path (a payment posted to
/payments/{id} takes only the referenced types) answer `request_table`, `request_examples` and
`answer_links` for it.
"""

import re
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent

from ..fields import Choice, FieldType
from ..tables import F, Table
from ..tables.common import ENTITY_TYPE
from .responses import (
    ENVELOPE_COMPONENT,
    REQUEST_ID,
    envelope_response,
    envelope_schema,
    header,
    refusals,
)
from .types import answer_schema, property_schema, table_schema, type_schema

MEDIA_TYPES = ("application/x-www-form-urlencoded", "application/json")
QUERY_METHODS = ("GET", "DELETE")  # their fields are query parameters
BODY_TEXT = (
    "Form-encoded with dotted names (`merchant.postcode`), or JSON with the same names as keys "
    "(a nested JSON object is accepted too). Repeated groups are indexed from 0 without gaps "
    "(`cart.items[0].name`), maps take their key in brackets (`customParameters[ref]`). A name "
    "that is not listed is refused, and so is a name sent twice."
)


def _component_name(operation: str, path: str, method: str) -> str:
    return f"{operation}.{method.lower()}{'.path' if '{' in path else ''}"


class SpecAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema for the spec views: every part from the view's tables."""

    def _table(self) -> Table | None:
        return getattr(self.view, "table", None)

    def _is_spec(self) -> bool:
        return self._table() is not None

    # --- identity ---------------------------------------------------------------------------

    def _operation(self) -> str:
        view = self.view
        inquiry = str(getattr(view, "inquiry_operation", None) or "")
        if self.method == "GET" and inquiry:
            return inquiry
        return str(getattr(view, "operation", ""))

    def get_tags(self) -> list[str]:
        operation = self._operation()
        return [operation.split(".")[0]] if operation else super().get_tags()

    def get_operation_id(self) -> str:
        operation = self._operation()
        if not operation:
            return super().get_operation_id()
        suffix = "_path" if "{" in self.path else ""
        return f"{operation.replace('.', '_')}_{self.method.lower()}{suffix}"

    def get_summary(self) -> str | None:
        if not self._is_spec():
            return super().get_summary()
        inquiry = str(getattr(self.view, "inquiry_summary", None) or "")
        if self.method == "GET" and inquiry:
            return inquiry
        return getattr(self.view, "summary", "") or None

    def get_description(self) -> str:  # type: ignore[override]
        if not self._is_spec():
            return super().get_description()
        types = ", ".join(sorted(getattr(self.view, "entity_types", ())))
        text = [f"Callers: entityType {types} (another entity type is refused with 403)."]
        if getattr(self.view, "partial", False):
            text.append("Send the fields to change; an empty optional field clears it.")
        if self.method in QUERY_METHODS:
            text.append("The same rules as the body of the POST, as query parameters.")
        else:
            text.append(BODY_TEXT)
        text.append("See docs/api.md.")
        return " ".join(text)

    # --- parameters -------------------------------------------------------------------------

    def _get_parameters(self) -> list[dict[str, Any]]:
        if not self._is_spec():
            return super()._get_parameters()
        declared = dict(getattr(self.view, "path_parameters", {}))
        names = re.findall(r"{(\w+)}", self.path)
        missing = [name for name in names if name not in declared]
        assert not missing, f"{self.path}: declare path_parameters {missing}"
        parameters = [
            {
                "name": name,
                "in": "path",
                "required": True,
                "description": declared[name].describe(),
                "schema": {**type_schema(declared[name]), "example": declared[name].valid()},
            }
            for name in names
        ]
        if self.method in QUERY_METHODS:
            table = getattr(self.view, "inquiry_table", None) or self._table()
            assert table is not None
            overrides = self._entity_types()
            for spec in table:
                if spec.name in overrides:
                    spec = F(spec.name, overrides[spec.name], spec.req, meaning=spec.meaning)
                schema = property_schema(spec)
                parameters.append(
                    {
                        "name": spec.name,
                        "in": "query",
                        "required": spec.mandatory,
                        "description": schema.pop("description"),
                        "schema": schema,
                    }
                )
        return parameters

    # --- request body -----------------------------------------------------------------------

    def _entity_types(self) -> dict[str, FieldType]:
        """entityType narrowed to the types this operation serves (others answer 403)."""
        allowed = getattr(self.view, "entity_types", None)
        choice = ENTITY_TYPE.type
        assert isinstance(choice, Choice)
        if not allowed:
            return {}
        return {ENTITY_TYPE.name: Choice(tuple(t for t in choice.values if t in allowed))}

    def _request_table(self) -> tuple[Table, dict[str, Any]]:
        chooser = getattr(self.view, "request_table", None)
        if chooser is not None:
            table, overrides = chooser(self.path)
        else:
            table, overrides = self._table(), {}
        assert table is not None
        return table, {**self._entity_types(), **overrides}

    def _get_request_body(self, direction: Any = "request") -> dict[str, Any] | None:
        if not self._is_spec():
            return super()._get_request_body(direction)
        if self.method != "POST":
            return None
        table, overrides = self._request_table()
        schema = table_schema(
            table,
            partial=getattr(self.view, "partial", False),
            required=getattr(self.view, "always_required", ()),
            overrides=overrides,
        )
        name = _component_name(self._operation(), self.path, self.method)
        component = ResolvedComponent(
            name=name, type=ResolvedComponent.SCHEMA, schema=schema, object=name
        )
        self.registry.register_on_missing(component)
        examples = self._examples()
        content = {}
        for media_type in MEDIA_TYPES:
            content[media_type] = {"schema": component.ref}
            if examples:
                content[media_type]["examples"] = examples
        return {"required": True, "content": content}

    def _examples(self) -> dict[str, Any]:
        chooser = getattr(self.view, "request_examples", None)
        bodies = chooser(self.path) if chooser is not None else getattr(self.view, "examples", {})
        return {
            name: {"summary": name, "value": dict(body)} for name, body in (bodies or {}).items()
        }

    # --- responses --------------------------------------------------------------------------

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        if not self._is_spec():
            return super()._get_response_bodies(direction)
        envelope = ResolvedComponent(
            name=ENVELOPE_COMPONENT,
            type=ResolvedComponent.SCHEMA,
            schema=envelope_schema(),
            object=ENVELOPE_COMPONENT,
        )
        self.registry.register_on_missing(envelope)
        answer = getattr(self.view, "answer_table", None)
        name = f"{self._operation()}.answer"
        component = ResolvedComponent(
            name=name,
            type=ResolvedComponent.SCHEMA,
            schema=envelope_schema(answer_schema(answer) if answer is not None else None),
            object=name,
        )
        self.registry.register_on_missing(component)
        ok = envelope_response(
            "The answer: `result.code` is its outcome, a business refusal or decline included.",
            component.ref["$ref"],
            **{
                "Idempotent-Replayed": {**header("`true` on a replayed answer."), "required": False}
            },
        )
        for media, description in getattr(self.view, "other_answers", {}).items():
            ok["content"][media] = {"schema": {"type": "string", "description": description}}
        links = self._links()
        if links:
            ok["links"] = links
        responses = {"200": ok}
        responses.update(refusals(envelope.ref["$ref"]))
        return responses

    def _links(self) -> dict[str, Any]:
        chooser = getattr(self.view, "answer_links", None)
        if chooser is not None:
            return dict(chooser(self.path, self.method))
        return dict(getattr(self.view, "links", {})) if self.method == "POST" else {}


class EntityTokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.auth.EntityTokenAuthentication"
    name = "entityBearer"

    def get_security_definition(self, auto_schema):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The entity's token; entityId and entityType go in the request.",
        }


__all__ = ["REQUEST_ID", "EntityTokenScheme", "SpecAutoSchema"]
