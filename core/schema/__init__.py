"""OpenAPI for the API, generated from the same field tables that validate requests
(drf-spectacular with `SpecAutoSchema` for the spec views, `documented` for the views outside
DRF). `/api/schema/` serves it; tests/test_schemathesis.py runs Schemathesis against it.

- types.py: field types, rows and tables as JSON Schema (patterns from the types' shapes)
- responses.py: the envelope and the refusals every spec operation documents
- operations.py: SpecAutoSchema, the spec views' operations
- links.py: OpenAPI links between operations whose answers feed each other
- pages.py: the views outside DRF (health, OAuth, JOSE, browser pages) and the URL conf's paths
"""

from .links import answer, link
from .operations import EntityTokenScheme, SpecAutoSchema
from .pages import documented
from .types import PARTICIPATOR_EXAMPLE, body_example, property_schema, table_schema, type_schema

__all__ = [
    "PARTICIPATOR_EXAMPLE",
    "EntityTokenScheme",
    "SpecAutoSchema",
    "answer",
    "body_example",
    "documented",
    "link",
    "property_schema",
    "table_schema",
    "type_schema",
]
