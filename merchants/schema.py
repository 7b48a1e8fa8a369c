"""OpenAPI description of the entity bearer authentication (loaded in MerchantsConfig.ready)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class EntityTokenScheme(OpenApiAuthenticationExtension):
    target_class = "merchants.auth.EntityTokenAuthentication"
    name = "entityBearer"

    def get_security_definition(self, auto_schema):  # type: ignore[no-untyped-def]
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "The entity's token; entityId and entityType go in the request.",
        }
