from csp.constants import SELF, UNSAFE_INLINE
from csp.decorators import csp_update
from django.apps import apps
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from config import dashboard, portal
from core import probes
from core import views as core_views
from core.urls import api_catch_all

urlpatterns = [
    path("", core_views.home, name="home"),
    path("healthz", probes.healthz, name="healthz"),
    path("readyz", probes.readyz, name="readyz"),
    path("metrics", probes.metrics_view, name="metrics"),
    path("admin/", dashboard.index, name="admin-dashboard"),  # the admin's index, with figures
    path("admin/", admin.site.urls),
    path("portal/", include((portal.urlpatterns, "portal"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI's start-up script as a file of its own (`?script`): no inline script to allow.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    # Redoc writes its styles into the page at run time and renders in a worker made from a
    # blob: the one page whose policy allows inline styles (templates/drf_spectacular/redoc.html).
    path(
        "api/redoc/",
        csp_update({"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]})(
            SpectacularRedocView.as_view(url_name="schema")
        ),
        name="redoc",
    ),
    path("pay/v3/", include("merchants.urls")),
    path("pay/v3/", include("terminals.urls")),
    path("", include("payments.urls")),
    path("", include("tokenization.urls")),
    path("", include("reconciliation.urls")),
    path("", include("payments.threeds.urls")),
    path("", include("payments.checkouts.urls")),
]
if apps.is_installed("issuer"):  # the acquirer may run without it (config/settings_acquirer.py)
    urlpatterns += [
        path("", include("issuer.urls_oauth")),
        path("", include("issuer.urls_api")),
    ]
# Last: every other path under /pay/, /v3/, /merch-web/ and /issuer/ is the JSON 404.
urlpatterns.append(api_catch_all(core_views.unknown_api_path))

handler400 = "core.views.bad_request"
handler404 = "core.views.not_found"
handler500 = "core.views.server_error"
