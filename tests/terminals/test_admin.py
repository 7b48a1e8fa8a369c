"""Staff admin for terminals: pages, search, filters, status through the service, adding."""

from typing import Any

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from terminals import services
from terminals.models import Terminal, TerminalStatusChange
from tests.factories import TerminalFactory

pytestmark = pytest.mark.django_db

TERMINALS = reverse("admin:terminals_terminal_changelist")
ADD = reverse("admin:terminals_terminal_add")
STAFF = "staff:admin"  # pytest-django's admin_client user is "admin"


def change_url(terminal: Terminal) -> str:
    return reverse("admin:terminals_terminal_change", args=[terminal.pk])


def listed(response: Any) -> set[str]:
    return {t.terminal_id for t in response.context["cl"].result_list}


def set_status(client: Any, terminals: list[Terminal], status: str | None) -> Any:
    data: dict[str, Any] = {
        "action": "set_status",
        ACTION_CHECKBOX_NAME: [t.pk for t in terminals],
    }
    if status is None:
        data["index"] = "0"  # from the changelist: the action's form is shown first
    else:
        data.update(status=status, apply="1")
    return client.post(TERMINALS, data, follow=True)


def terminal_form(merchant: Any, **overrides: str) -> dict[str, str]:
    data = {
        "terminal_id": "ADM00001",
        "merchant": str(merchant.pk),
        "name": "Till 2",
        "device_id": "987654321",
        "device_info": "Demo Terminal",
        "terminal_type": "POS",
        "pin_entry_capability": "1",
    }
    data.update(overrides)
    return data


def test_changelist_add_and_change_pages_load(admin_client, terminal):
    for url in (TERMINALS, ADD, change_url(terminal)):
        assert admin_client.get(url).status_code == 200, url


def test_changelist_does_not_query_per_row(admin_client, terminal):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(TERMINALS).status_code == 200
        return len(captured)

    queries()  # the session's first page with a form writes its CSRF token (CSRF_USE_SESSIONS)
    first = queries()
    TerminalFactory.create_batch(5, merchant=terminal.merchant)

    assert queries() == first


def test_search_by_terminal_id_merchant_id_and_device_id(admin_client, merchant):
    wanted = TerminalFactory(merchant=merchant, terminal_id="FIND0001", device_id="55501")
    TerminalFactory(terminal_id="OTHER001", device_id="66601")  # another merchant

    for query in ("FIND0001", merchant.merchant_id, "55501"):
        assert listed(admin_client.get(TERMINALS, {"q": query})) == {wanted.terminal_id}, query


def test_filters_narrow_the_list(admin_client, merchant):
    pos = TerminalFactory(merchant=merchant, terminal_type="POS", pin_entry_capability="1")
    web = TerminalFactory(merchant=merchant, terminal_type="WEB", pin_entry_capability="2")
    services.terminal_set_status(terminal=web, status="BLOCKED", changed_by=STAFF)

    def ids(**params: str) -> set[str]:
        return listed(admin_client.get(TERMINALS, params))

    assert ids(status__exact="BLOCKED") == {web.terminal_id}
    assert ids(terminal_type__exact="POS") == {pos.terminal_id}
    assert ids(pin_entry_capability__exact="2") == {web.terminal_id}


def test_set_status_action_shows_its_form_first(admin_client, terminal):
    response = set_status(admin_client, [terminal], None)

    assert 'name="apply"' in response.content.decode()
    terminal.refresh_from_db()
    assert terminal.status == "NORMAL"


def test_set_status_action_changes_status_with_history(admin_client, terminal):
    response = set_status(admin_client, [terminal], "BLOCKED")

    terminal.refresh_from_db()
    assert terminal.status == "BLOCKED"
    change = TerminalStatusChange.objects.filter(terminal=terminal).first()
    assert (change.from_status, change.to_status, change.changed_by) == (
        "NORMAL",
        "BLOCKED",
        STAFF,
    )
    assert f"Status set to BLOCKED for 1 terminal(s): {terminal.terminal_id}" in (
        response.content.decode()
    )


def test_normal_from_terminated_is_refused_by_name_and_others_still_change(admin_client, merchant):
    terminated = TerminalFactory(merchant=merchant)
    blocked = TerminalFactory(merchant=merchant)
    services.terminal_set_status(terminal=terminated, status="TERMINATED", changed_by=STAFF)
    services.terminal_set_status(terminal=blocked, status="BLOCKED", changed_by=STAFF)

    response = set_status(admin_client, [terminated, blocked], "NORMAL")

    terminated.refresh_from_db()
    blocked.refresh_from_db()
    assert terminated.status == "TERMINATED"
    assert blocked.status == "NORMAL"
    assert not TerminalStatusChange.objects.filter(terminal=terminated, to_status="NORMAL").exists()
    errors = [str(m) for m in response.context["messages"] if m.level_tag == "error"]
    assert len(errors) == 1
    assert terminated.terminal_id in errors[0] and "700.500.101" in errors[0]


def test_add_terminal_goes_through_the_service(admin_client, merchant):
    response = admin_client.post(ADD, terminal_form(merchant))

    assert response.status_code == 302
    terminal = Terminal.objects.get(terminal_id="ADM00001")
    assert terminal.merchant == merchant and terminal.status == "NORMAL"
    history = TerminalStatusChange.objects.get(terminal=terminal)
    assert (history.from_status, history.to_status, history.changed_by) == ("", "NORMAL", STAFF)


@pytest.mark.parametrize(
    ("field", "value"),
    [("terminal_id", "BAD-ID"), ("device_id", "ABC123"), ("postcode", "10115!")],
)
def test_add_terminal_validates_like_the_api(admin_client, merchant, field, value):
    response = admin_client.post(ADD, terminal_form(merchant, **{field: value}))

    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Terminal.objects.filter(merchant=merchant).exists()


def test_add_terminal_refuses_a_taken_terminal_id(admin_client, terminal):
    response = admin_client.post(
        ADD, terminal_form(terminal.merchant, terminal_id=terminal.terminal_id)
    )

    assert "already exists" in str(response.context["adminform"].form.errors["terminal_id"])
    assert Terminal.objects.count() == 1


def test_edit_terminal_updates_data_but_never_status(admin_client, terminal):
    services.terminal_set_status(terminal=terminal, status="CLOSED", changed_by=STAFF)
    page = admin_client.get(change_url(terminal))
    data: dict[str, Any] = {}
    forms = [page.context["adminform"].form]
    for inline in page.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            data[form.add_prefix(name)] = "" if value is None else value
    data.update(name="Back office", status="NORMAL", terminal_id="CHANGED1")

    response = admin_client.post(change_url(terminal), data)

    assert response.status_code == 302
    terminal.refresh_from_db()
    assert (terminal.name, terminal.status) == ("Back office", "CLOSED")
    assert Terminal.objects.filter(terminal_id=terminal.terminal_id).exists()


def test_change_page_shows_status_history_read_only(admin_client, terminal):
    services.terminal_set_status(terminal=terminal, status="BLOCKED", changed_by="staff:alice")

    page = admin_client.get(change_url(terminal)).content.decode()

    assert "staff:alice" in page
    assert 'name="status"' not in page
    assert "delete_selected" not in admin_client.get(TERMINALS).content.decode()
