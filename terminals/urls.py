"""Terminal management paths, spelt as in the specification (see core.urls.spec_path)."""

from core.urls import spec_path

from .api import views

urlpatterns = [
    *spec_path("terminal/create", views.TerminalCreateView, "terminal-create"),
    *spec_path("terminal/update/", views.TerminalUpdateView, "terminal-update"),
    *spec_path(
        "terminal/update/<str:terminal_id>", views.TerminalUpdateView, "terminal-update-path"
    ),
    *spec_path("terminal/status/", views.TerminalStatusView, "terminal-status"),
    *spec_path(
        "terminal/Inquiry", views.TerminalInquiryView, "terminal-inquiry", "terminal/inquiry"
    ),
]
