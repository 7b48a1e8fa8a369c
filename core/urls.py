"""URL helpers: each spec path answers with and without a trailing slash (the spec prints some
with one and some without); only the spelling of the spec appears in the OpenAPI schema."""

from typing import Any

from django.urls import URLPattern, path


def spec_path(route: str, view_class: Any, name: str, *aliases: str) -> list[URLPattern]:
    alternates = [route[:-1] if route.endswith("/") else route + "/", *aliases]
    for alias in aliases:
        alternates.append(alias[:-1] if alias.endswith("/") else alias + "/")
    return [
        path(route, view_class.as_view(), name=name),
        *[path(alt, view_class.as_view(schema=None)) for alt in alternates],
    ]
