"""The merchant portal under /portal/, composed from the apps' portal modules (each app owns its
pages: `<app>/portal.py` with `urlpatterns` and `NAV`; DESIGN "Portal"). The apps do not import
each other for this; only this module knows them all."""

from typing import Any

from django.http import HttpRequest

from merchants import portal as merchants_portal
from payments import portal as payments_portal
from reconciliation import portal as reconciliation_portal
from terminals import portal as terminals_portal
from tokenization import portal as tokenization_portal

MODULES = (
    payments_portal,
    tokenization_portal,
    reconciliation_portal,
    terminals_portal,
    merchants_portal,
)  # the menu's order

urlpatterns = [pattern for module in MODULES for pattern in module.urlpatterns]
# payments' "" (the overview) first is harmless: every pattern is a distinct path
NAV = [item for module in MODULES for item in module.NAV if item[1] != "portal:overview"]
NAV.insert(0, ("Overview", "portal:overview"))
# A menu item only some roles see (an app's ROLES: URL name -> roles), as its page refuses others.
ROLES: dict[str, tuple[str, ...]] = {
    name: roles for module in MODULES for name, roles in getattr(module, "ROLES", {}).items()
}


def navigation(request: HttpRequest) -> dict[str, Any]:
    """Context processor: the portal's menu, on portal pages."""
    if not request.path.startswith("/portal/"):
        return {}
    member = getattr(request, "portal_user", None)
    role = getattr(member, "role", "")
    return {"portal_nav": [item for item in NAV if role in ROLES.get(item[1], (role,))]}
