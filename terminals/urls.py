from django.urls import re_path

from .api import views

urlpatterns = [
    re_path(r"^terminal/create/?$", views.TerminalCreateView.as_view(), name="terminal-create"),
    re_path(r"^terminal/update/?$", views.TerminalUpdateView.as_view(), name="terminal-update"),
    re_path(r"^terminal/update/(?P<terminal_id>[A-Za-z0-9_]{1,8})/?$",
            views.TerminalUpdateView.as_view(), name="terminal-update-path"),
    re_path(r"^terminal/status/?$", views.TerminalStatusView.as_view(), name="terminal-status"),
    re_path(r"^terminal/[Ii]nquiry/?$", views.TerminalInquiryView.as_view(), name="terminal-inquiry"),
]
