"""django-oauth-toolkit's scopes backend: the scopes are the catalogue's (registry.scopes)."""

from typing import Any

from oauth2_provider.scopes import BaseScopes


class CatalogueScopes(BaseScopes):
    def get_all_scopes(self) -> dict[str, str]:
        from . import registry

        return registry.scopes()

    def get_available_scopes(
        self, application: Any = None, request: Any = None, *a: Any, **k: Any
    ) -> list[str]:
        return list(self.get_all_scopes())

    def get_default_scopes(
        self, application: Any = None, request: Any = None, *a: Any, **k: Any
    ) -> list[str]:
        return []
