"""Staff admin for entities, merchants and stored idempotent answers: pages, search, filters,
actions through the services, and tokens shown once and never again."""

from typing import Any

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core import results
from core.errors import ApplicationError
from core.models import IdempotentRequest
from core.status import OperatingStatus as MerchantStatus
from merchants import services
from merchants.models import (
    Entity,
    EntityType,
    Merchant,
    MerchantStatusChange,
    SecurityStatus,
    ThreeDSDeleteReason,
    ThreeDSEnrolmentEvent,
    ThreeDSStatus,
)
from merchants.selectors import entity_by_token
from tests.factories import MerchantFactory, ParticipatorFactory, TerminalFactory

pytestmark = pytest.mark.django_db

ENTITIES = reverse("admin:merchants_entity_changelist")
MERCHANTS = reverse("admin:merchants_merchant_changelist")
STAFF = "staff:admin"  # pytest-django's admin_client user is "admin"


def change_url(obj: Any) -> str:
    return reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk])


def text(response: Any) -> str:
    return response.content.decode()


def listed(response: Any) -> set[str]:
    return {m.merchant_id for m in response.context["cl"].result_list}


def run_action(client: Any, url: str, action: str, objects: list[Any], **form: Any) -> Any:
    """Post an action as the changelist does; with `form`, as its intermediate page does."""
    data = {"action": action, ACTION_CHECKBOX_NAME: [o.pk for o in objects]}
    if form:
        data.update(form, apply="1")
    else:
        data["index"] = "0"
    return client.post(url, data, follow=True)


def change_form_data(response: Any) -> dict[str, Any]:
    """What a browser posts back from an unchanged change page (form and inline formsets)."""
    data: dict[str, Any] = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms.append(inline.formset.management_form)
        forms.extend(inline.formset.forms)
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            data[form.add_prefix(name)] = "" if value is None else value
    return data


def merchant_form(participator: Entity, **overrides: str) -> dict[str, str]:
    data = {
        "merchant_id": "880000001",
        "participator": str(participator.pk),
        "name": "Admin Added Ltd",
        "business": "ADMIN SHOP",
        "street": "2 High Street",
        "postcode": "10117",
        "city": "Berlin",
        "state": "Berlin",
        "country": "DE",
        "phone": "+49-30-7654321",
        "mmcc": "5812",
        "vmcc": "5812",
        "pf_id": "PF000000002",
        "corporate_status": "0",
        "date_designed": "2024-03-01",
    }
    data.update(overrides)
    return data


# --- pages -----------------------------------------------------------------------------------


def test_changelist_add_and_change_pages_load(admin_client, merchant):
    IdempotentRequest.objects.create(
        entity_id="BANK0001",
        operation="merchant.create",
        merchant_transaction_id="mtid1",
        request_hash="0" * 64,
        response_body={"result": {"code": "000.000.100"}},
    )
    record = IdempotentRequest.objects.get()
    for url in (
        ENTITIES,
        MERCHANTS,
        reverse("admin:core_idempotentrequest_changelist"),
        reverse("admin:merchants_entity_add"),
        reverse("admin:merchants_merchant_add"),
        change_url(merchant.participator),
        change_url(merchant.entity),
        change_url(merchant),
        change_url(record),
    ):
        assert admin_client.get(url).status_code == 200, url


def test_changelists_do_not_query_per_row(admin_client, participator):
    def queries(url: str) -> int:
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(url).status_code == 200
        return len(captured)

    MerchantFactory(participator=participator)
    # The session's first page with a form writes its CSRF token (CSRF_USE_SESSIONS): not a row.
    queries(ENTITIES)
    first = {url: queries(url) for url in (ENTITIES, MERCHANTS)}
    MerchantFactory.create_batch(5, participator=participator)

    assert {url: queries(url) for url in (ENTITIES, MERCHANTS)} == first


def test_merchant_change_page_shows_history_and_terminals(admin_client, merchant):
    terminal = TerminalFactory(merchant=merchant)
    services.merchant_3ds_enrol(merchant=merchant, changed_by="entity:BANK0001")
    services.merchant_set_status(
        merchant=merchant, status="BLOCKED", security_status=None, changed_by="staff:alice"
    )

    page = text(admin_client.get(change_url(merchant)))

    assert "staff:alice" in page and "entity:BANK0001" in page
    assert terminal.terminal_id in page
    assert reverse("admin:terminals_terminal_change", args=[terminal.pk]) in page


def test_idempotent_requests_are_read_only(admin_client):
    record = IdempotentRequest.objects.create(
        entity_id="BANK0001",
        operation="payment.debit",
        merchant_transaction_id="findme42",
        request_hash="0" * 64,
        response_body={"id": "x"},
    )
    changelist = reverse("admin:core_idempotentrequest_changelist")

    found = admin_client.get(changelist, {"q": "findme42"})

    assert [r.pk for r in found.context["cl"].result_list] == [record.pk]
    assert admin_client.get(reverse("admin:core_idempotentrequest_add")).status_code == 403
    assert "delete_selected" not in text(admin_client.get(changelist))
    page = admin_client.get(change_url(record))
    assert page.status_code == 200 and "findme42" in text(page)
    assert 'name="_save"' not in text(page)


# --- search and filters ----------------------------------------------------------------------


def test_search_finds_merchant_by_merchant_id_and_by_entity_id(admin_client, participator):
    wanted = MerchantFactory(participator=participator, merchant_id="1234")
    MerchantFactory(participator=participator, merchant_id="99990000")
    assert wanted.entity.entity_id == "00001234"

    assert listed(admin_client.get(MERCHANTS, {"q": "1234"})) == {"1234"}
    assert listed(admin_client.get(MERCHANTS, {"q": "00001234"})) == {"1234"}


def test_filters_narrow_the_list(admin_client, participator, other_participator):
    normal = MerchantFactory(participator=participator, country="DE")
    blocked = MerchantFactory(participator=participator, country="FR", mmcc="5999")
    other = MerchantFactory(participator=other_participator)
    services.merchant_set_status(
        merchant=blocked, status="BLOCKED", security_status=None, changed_by=STAFF
    )
    services.merchant_3ds_enrol(merchant=other, changed_by=STAFF)

    def ids(**params: str) -> set[str]:
        return listed(admin_client.get(MERCHANTS, params))

    assert ids(status__exact="BLOCKED") == {blocked.merchant_id}
    assert ids(country__exact="DE") == {normal.merchant_id, other.merchant_id}
    assert ids(mmcc__exact="5999") == {blocked.merchant_id}
    assert ids(threeds_status__exact="ENROLLED") == {other.merchant_id}
    assert ids(participator__id__exact=str(other_participator.pk)) == {other.merchant_id}


def test_entity_search_and_filters(admin_client, merchant):
    response = admin_client.get(ENTITIES, {"q": merchant.participator.entity_id})
    assert {e.pk for e in response.context["cl"].result_list} == {merchant.participator.pk}

    response = admin_client.get(ENTITIES, {"entity_type__exact": EntityType.MERCHANT})
    assert {e.pk for e in response.context["cl"].result_list} == {merchant.entity.pk}


# --- set status ----------------------------------------------------------------------------


def test_set_status_action_shows_its_form_first(admin_client, merchant):
    response = run_action(admin_client, MERCHANTS, "set_status", [merchant])

    assert response.status_code == 200
    page = text(response)
    assert 'name="apply"' in page and 'name="status"' in page and merchant.merchant_id in page
    merchant.refresh_from_db()
    assert merchant.status == MerchantStatus.NORMAL
    assert not MerchantStatusChange.objects.filter(merchant=merchant, changed_by=STAFF).exists()


def test_set_status_action_changes_status_with_history(admin_client, merchant):
    response = run_action(
        admin_client, MERCHANTS, "set_status", [merchant], status="BLOCKED", security_status=""
    )

    merchant.refresh_from_db()
    assert merchant.status == MerchantStatus.BLOCKED
    change = MerchantStatusChange.objects.filter(merchant=merchant).first()
    assert (change.from_status, change.to_status, change.changed_by) == (
        "NORMAL",
        "BLOCKED",
        STAFF,
    )
    assert f"Status set for 1 merchant(s): {merchant.merchant_id}" in text(response)


def test_set_security_status_only_and_clear_it(admin_client, merchant):
    run_action(
        admin_client, MERCHANTS, "set_status", [merchant], status="", security_status="SUSPECTED"
    )
    merchant.refresh_from_db()
    assert (merchant.status, merchant.security_status) == ("NORMAL", SecurityStatus.SUSPECTED)

    run_action(admin_client, MERCHANTS, "set_status", [merchant], status="", security_status="-")
    merchant.refresh_from_db()
    assert merchant.security_status == ""


def test_set_status_form_needs_a_choice(admin_client, merchant):
    response = run_action(
        admin_client, MERCHANTS, "set_status", [merchant], status="", security_status=""
    )

    assert "Choose a status, a security status, or both." in text(response)
    assert MerchantStatusChange.objects.filter(merchant=merchant).count() == 0


def test_normal_from_closed_is_refused_by_name_and_others_still_change(admin_client, participator):
    closed = MerchantFactory(participator=participator)
    blocked = MerchantFactory(participator=participator)
    services.merchant_set_status(
        merchant=closed, status="CLOSED", security_status=None, changed_by=STAFF
    )
    services.merchant_set_status(
        merchant=blocked, status="BLOCKED", security_status=None, changed_by=STAFF
    )
    history_before = MerchantStatusChange.objects.filter(merchant=closed).count()

    response = run_action(
        admin_client,
        MERCHANTS,
        "set_status",
        [closed, blocked],
        status="NORMAL",
        security_status="",
    )

    closed.refresh_from_db()
    blocked.refresh_from_db()
    assert closed.status == MerchantStatus.CLOSED
    assert MerchantStatusChange.objects.filter(merchant=closed).count() == history_before
    assert blocked.status == MerchantStatus.NORMAL
    errors = [str(m) for m in response.context["messages"] if m.level_tag == "error"]
    assert len(errors) == 1
    assert closed.merchant_id in errors[0] and "700.500.100" in errors[0]


# --- 3-D Secure ----------------------------------------------------------------------------


def test_3ds_enrol_action(admin_client, merchant):
    run_action(admin_client, MERCHANTS, "threeds_enrol", [merchant])

    merchant.refresh_from_db()
    assert merchant.threeds_status == ThreeDSStatus.ENROLLED
    event = ThreeDSEnrolmentEvent.objects.get(merchant=merchant)
    assert (event.action, event.changed_by) == ("ENROL", STAFF)

    again = run_action(admin_client, MERCHANTS, "threeds_enrol", [merchant])
    assert "700.500.200" in text(again)
    assert ThreeDSEnrolmentEvent.objects.filter(merchant=merchant).count() == 1


def test_3ds_delete_action_asks_for_a_reason(admin_client, merchant):
    services.merchant_3ds_enrol(merchant=merchant, changed_by=STAFF)

    page = run_action(admin_client, MERCHANTS, "threeds_delete", [merchant])
    assert all(reason.value in text(page) for reason in ThreeDSDeleteReason)

    run_action(
        admin_client,
        MERCHANTS,
        "threeds_delete",
        [merchant],
        reason=ThreeDSDeleteReason.NO_LONGER_PARTICIPATING,
    )

    merchant.refresh_from_db()
    assert merchant.threeds_status == ThreeDSStatus.DELETED
    assert merchant.threeds_delete_reason == ThreeDSDeleteReason.NO_LONGER_PARTICIPATING
    event = ThreeDSEnrolmentEvent.objects.filter(merchant=merchant).first()
    assert (event.action, event.reason, event.changed_by) == (
        "DELETE",
        ThreeDSDeleteReason.NO_LONGER_PARTICIPATING,
        STAFF,
    )


def test_3ds_delete_of_a_merchant_not_enrolled_is_refused(admin_client, merchant):
    response = run_action(
        admin_client, MERCHANTS, "threeds_delete", [merchant], reason=ThreeDSDeleteReason.OTHER
    )

    assert "700.500.201" in text(response)
    merchant.refresh_from_db()
    assert merchant.threeds_status == ThreeDSStatus.NOT_ENROLLED


# --- tokens ----------------------------------------------------------------------------------


def test_rotate_merchant_token_shows_the_new_token_once(admin_client, merchant):
    old = merchant.entity.plain_token

    asked = run_action(admin_client, MERCHANTS, "rotate_merchant_token", [merchant])
    assert "Rotate API tokens" in text(asked)  # the confirmation first: nothing rotated yet
    assert entity_by_token(old) == merchant.entity
    response = run_action(admin_client, MERCHANTS, "rotate_merchant_token", [merchant], overlap="0")

    merchant.entity.refresh_from_db()
    assert entity_by_token(old) is None
    new = merchant.entity.token_last4
    shown = [str(m) for m in response.context["messages"] if "New token" in str(m)]
    assert len(shown) == 1
    token = shown[0].split(": ", 1)[1].split(" — ", 1)[0]
    assert token.endswith(new) and entity_by_token(token) == merchant.entity
    assert token not in text(admin_client.get(MERCHANTS))
    assert token not in text(admin_client.get(change_url(merchant)))


def test_rotate_entity_token_action(admin_client, participator):
    old = participator.plain_token

    response = run_action(admin_client, ENTITIES, "rotate_token", [participator], overlap="0")

    assert entity_by_token(old) is None
    page = text(response)
    assert f"New token for {participator.entity_id}: " in page
    token = page.split(f"New token for {participator.entity_id}: ", 1)[1].split(" ", 1)[0]
    assert entity_by_token(token) == participator
    assert token not in text(admin_client.get(ENTITIES))


def test_tokens_never_appear_on_change_pages(admin_client, merchant):
    for obj, entity in ((merchant.entity, merchant.entity), (merchant, merchant.entity)):
        page = admin_client.get(change_url(obj)).content
        assert entity.plain_token.encode() not in page
        assert entity.token_hash.encode() not in page
        assert f"…{entity.token_last4}".encode() in page
    participator_page = admin_client.get(change_url(merchant.participator)).content
    assert merchant.participator.plain_token.encode() not in participator_page
    assert merchant.participator.token_hash.encode() not in participator_page
    for url in (ENTITIES, MERCHANTS):
        listing = admin_client.get(url).content
        assert merchant.entity.plain_token.encode() not in listing
        assert merchant.participator.plain_token.encode() not in listing


# --- adding and editing --------------------------------------------------------------------


def test_add_entity_goes_through_the_service_and_shows_the_token_once(admin_client):
    response = admin_client.post(
        reverse("admin:merchants_entity_add"),
        {"entity_id": "bank0777", "entity_type": "PARTICIPATOR", "name": "Channel Bank"},
        follow=True,
    )

    entity = Entity.objects.get(entity_id="BANK0777")
    assert entity.entity_type == EntityType.PARTICIPATOR and entity.owner is None
    page = text(response)
    token = page.split("New token for BANK0777: ", 1)[1].split(" ", 1)[0]
    assert entity_by_token(token) == entity
    assert "copy it now, it is not shown again" in page
    assert token not in text(admin_client.get(change_url(entity)))


def test_add_entity_refuses_a_malformed_or_taken_id(admin_client, participator):
    url = reverse("admin:merchants_entity_add")
    for entity_id in ("BANK01", participator.entity_id):
        response = admin_client.post(
            url, {"entity_id": entity_id, "entity_type": "PARTICIPATOR", "name": "x"}
        )
        assert response.status_code == 200
        assert response.context["adminform"].form.errors["entity_id"]
    assert (
        admin_client.post(url, {"entity_id": "BANK0888", "entity_type": "MERCHANT"}).status_code
        == 200
    )
    assert not Entity.objects.filter(entity_id="BANK0888").exists()


def test_edit_entity_changes_only_name_and_active(admin_client, participator):
    page = admin_client.get(change_url(participator))
    data = change_form_data(page)
    data.update(name="Renamed Bank", is_active="")

    response = admin_client.post(change_url(participator), data)

    assert response.status_code == 302
    participator.refresh_from_db()
    assert (participator.name, participator.is_active) == ("Renamed Bank", False)
    assert entity_by_token(participator.plain_token) is None  # inactive: refused at once


def test_add_merchant_goes_through_the_service(admin_client, participator):
    response = admin_client.post(
        reverse("admin:merchants_merchant_add"), merchant_form(participator), follow=True
    )

    merchant = Merchant.objects.get(merchant_id="880000001")
    assert merchant.participator == participator
    assert merchant.entity.owner == participator
    assert merchant.entity.entity_type == EntityType.MERCHANT
    history = MerchantStatusChange.objects.get(merchant=merchant)
    assert (history.from_status, history.to_status, history.changed_by) == ("", "NORMAL", STAFF)
    page = text(response)
    assert f"New token for merchant 880000001 (entityId {merchant.entity.entity_id}): " in page
    token = page.split(f"{merchant.entity.entity_id}): ", 1)[1].split(" ", 1)[0]
    assert entity_by_token(token) == merchant.entity
    assert token not in text(admin_client.get(change_url(merchant)))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("merchant_id", "12AB"),
        ("mmcc", "58"),
        ("postcode", "10 117!"),
        ("mvv_id", "XYZ"),
        ("aggregator_name", "Market"),  # aggregator details need an aggregator id
    ],
)
def test_add_merchant_validates_like_the_api(admin_client, participator, field, value):
    response = admin_client.post(
        reverse("admin:merchants_merchant_add"), merchant_form(participator, **{field: value})
    )

    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Merchant.objects.filter(merchant_id="880000001").exists()


def test_add_merchant_refuses_a_taken_merchant_id(admin_client, merchant, participator):
    response = admin_client.post(
        reverse("admin:merchants_merchant_add"),
        merchant_form(participator, merchant_id=merchant.merchant_id),
    )

    assert "already exists" in str(response.context["adminform"].form.errors["merchant_id"])
    assert Merchant.objects.count() == 1


def test_add_merchant_refused_by_the_service_writes_nothing(
    admin_client, participator, monkeypatch
):
    """A concurrent duplicate passes the form's check; the service's refusal rolls back."""

    def create_then_refuse(**kwargs: Any) -> Any:
        real_create(**kwargs)
        raise ApplicationError(results.DUPLICATE_ENTRY)

    real_create = services.merchant_create
    monkeypatch.setattr(services, "merchant_create", create_then_refuse)
    add = reverse("admin:merchants_merchant_add")

    response = admin_client.post(add, merchant_form(participator), follow=True)

    assert response.redirect_chain[-1][0] == add
    assert "Not saved" in text(response) and "200.300.405" in text(response)
    assert not Merchant.objects.filter(merchant_id="880000001").exists()
    assert not Entity.objects.filter(owner=participator).exists()


def test_add_merchant_offers_only_active_participators(admin_client, merchant):
    inactive = ParticipatorFactory()
    Entity.objects.filter(pk=inactive.pk).update(is_active=False)

    response = admin_client.get(reverse("admin:merchants_merchant_add"))

    choices = response.context["adminform"].form.fields["participator"].queryset
    assert set(choices) == {merchant.participator}


def test_edit_merchant_updates_data_but_never_status(admin_client, merchant):
    services.merchant_set_status(
        merchant=merchant, status="BLOCKED", security_status=None, changed_by=STAFF
    )
    data = change_form_data(admin_client.get(change_url(merchant)))
    data.update(city="Hamburg", status="NORMAL", threeds_status="ENROLLED", merchant_id="1")

    response = admin_client.post(change_url(merchant), data)

    assert response.status_code == 302
    merchant.refresh_from_db()
    assert merchant.city == "Hamburg"
    assert merchant.status == MerchantStatus.BLOCKED
    assert merchant.threeds_status == ThreeDSStatus.NOT_ENROLLED
    assert Merchant.objects.filter(merchant_id=merchant.merchant_id).exists()


def test_nothing_can_be_deleted(admin_client, merchant):
    for url in (ENTITIES, MERCHANTS):
        assert "delete_selected" not in text(admin_client.get(url))
    delete = reverse("admin:merchants_merchant_delete", args=[merchant.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert Merchant.objects.filter(pk=merchant.pk).exists()


def test_threeds_mode_actions(admin_client, merchant):
    changelist = reverse("admin:merchants_merchant_changelist")
    admin_client.post(
        changelist, {"action": "threeds_make_mandatory", "_selected_action": [merchant.pk]}
    )
    merchant.refresh_from_db()
    assert merchant.threeds_mode == "MANDATORY"
    admin_client.post(
        changelist, {"action": "threeds_make_optional", "_selected_action": [merchant.pk]}
    )
    merchant.refresh_from_db()
    assert merchant.threeds_mode == "OPTIONAL"
