"""The token lifecycle (INACTIVE -> ACTIVE; ACTIVE <-> SUSPENDED with suspenders; any ->
DEACTIVATED, final) through the services and the admin, with history; card art in the admin."""

import io

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from PIL import Image

from core.errors import ApplicationError
from tests.tokenization.test_tokenize import AUTH_CARD, card, tokenize
from tokenization import services
from tokenization.models import Asset, CardArt, Token, TokenStatusChange

pytestmark = pytest.mark.django_db

TOKENS = reverse("admin:tokenization_token_changelist")


@pytest.fixture
def make(merchant_api, merchant):
    def made(number="4200000000000000") -> Token:
        data = tokenize(merchant_api, merchant, "CT", **card(number)).json()
        return Token.objects.get(pk=data["tokenUniqueReference"])

    return made


def act(token: Token, action: str, suspender: str = "") -> Token:
    return services.token_set_status(
        reference=token.pk, action=action, actor="staff:test", suspender=suspender, reason="OTHER"
    )


@pytest.mark.parametrize(
    ("start", "steps", "end", "suspended"),
    [
        ("INACTIVE", [("activate", "")], "ACTIVE", []),
        ("ACTIVE", [("suspend", "ISSUER")], "SUSPENDED", ["ISSUER"]),
        (
            "ACTIVE",
            [("suspend", "ISSUER"), ("suspend", "CARDHOLDER")],
            "SUSPENDED",
            ["CARDHOLDER", "ISSUER"],
        ),
        (
            "ACTIVE",
            [("suspend", "ISSUER"), ("suspend", "CARDHOLDER"), ("unsuspend", "ISSUER")],
            "SUSPENDED",
            ["CARDHOLDER"],
        ),
        ("ACTIVE", [("suspend", "ISSUER"), ("unsuspend", "ISSUER")], "ACTIVE", []),
        ("ACTIVE", [("deactivate", "")], "DEACTIVATED", []),
        ("INACTIVE", [("deactivate", "")], "DEACTIVATED", []),
        ("ACTIVE", [("suspend", "TOKEN_REQUESTOR"), ("deactivate", "")], "DEACTIVATED", []),
    ],
)
def test_allowed_transitions(make, start, steps, end, suspended):
    token = make(AUTH_CARD if start == "INACTIVE" else "4200000000000000")
    assert token.status == start
    for action, suspender in steps:
        token = act(token, action, suspender)
    token.refresh_from_db()
    assert (token.status, token.suspended_by) == (end, suspended)
    history = list(TokenStatusChange.objects.filter(token=token).order_by("pk"))
    assert len(history) == 1 + len(steps) and history[-1].to_status == end
    assert history[-1].changed_by == "staff:test"


@pytest.mark.parametrize(
    ("start", "action", "suspender"),
    [
        ("ACTIVE", "activate", ""),
        ("INACTIVE", "suspend", "ISSUER"),
        ("ACTIVE", "unsuspend", "ISSUER"),
        ("DEACTIVATED", "activate", ""),
        ("DEACTIVATED", "suspend", "ISSUER"),
        ("DEACTIVATED", "deactivate", ""),
    ],
)
def test_refused_transitions(make, start, action, suspender):
    token = make(AUTH_CARD if start == "INACTIVE" else "4200000000000000")
    if start == "DEACTIVATED":
        token = act(token, "deactivate")
    before = TokenStatusChange.objects.filter(token=token).count()
    with pytest.raises(ApplicationError) as refused:
        act(token, action, suspender)
    assert refused.value.result.code == "700.150.200"
    token.refresh_from_db()
    assert token.status == start
    assert TokenStatusChange.objects.filter(token=token).count() == before


def test_unsuspending_by_someone_who_did_not_suspend_is_refused(make):
    token = act(make(), "suspend", "ISSUER")
    with pytest.raises(ApplicationError):
        act(token, "unsuspend", "CARDHOLDER")
    assert Token.objects.get(pk=token.pk).suspended_by == ["ISSUER"]


# --- the admin ---------------------------------------------------------------------------------


def test_staff_suspend_and_unsuspend_through_the_admin(admin_client, make):
    token = make()
    page = admin_client.post(TOKENS, {"action": "suspend", "_selected_action": [token.pk]})
    assert page.status_code == 200 and "Suspend tokens" in page.content.decode()
    admin_client.post(
        TOKENS,
        {
            "action": "suspend",
            "_selected_action": [token.pk],
            "apply": "1",
            "suspender": "ISSUER",
            "reason": "SUSPECTED_FRAUD",
        },
    )
    token.refresh_from_db()
    assert (token.status, token.suspended_by) == ("SUSPENDED", ["ISSUER"])
    assert TokenStatusChange.objects.filter(token=token).last().reason == "SUSPECTED_FRAUD"
    admin_client.post(
        TOKENS,
        {
            "action": "unsuspend",
            "_selected_action": [token.pk],
            "apply": "1",
            "suspender": "ISSUER",
            "reason": "NOT_FRAUD",
        },
    )
    assert Token.objects.get(pk=token.pk).status == "ACTIVE"


def test_the_admin_names_a_refused_change(admin_client, make):
    token = make()
    response = admin_client.post(
        TOKENS, {"action": "activate", "_selected_action": [token.pk]}, follow=True
    )
    assert "700.150.200" in response.content.decode()


def test_the_token_page_shows_no_card_number(admin_client, make):
    token = make()
    html = admin_client.get(
        reverse("admin:tokenization_token_change", args=[token.pk])
    ).content.decode()
    assert "4200000000000000" not in html and token.pan_fingerprint not in html
    assert token.token_pan_suffix in html


def test_staff_who_may_only_view_cannot_act(client, make):
    token = make()
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_token"))
    client.force_login(viewer)
    client.post(
        TOKENS,
        {"action": "deactivate", "_selected_action": [token.pk], "apply": "1", "reason": "OTHER"},
    )
    assert Token.objects.get(pk=token.pk).status == "ACTIVE"


def _png(size=(200, 80), mode="RGBA", fmt="PNG") -> io.BytesIO:
    image = Image.new(mode, size, (10, 20, 30, 128) if mode == "RGBA" else (10, 20, 30))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    buffer.seek(0)
    buffer.name = f"art.{fmt.lower()}"
    return buffer


def test_card_art_is_uploaded_checked_and_published(admin_client, make):
    make()  # installs the default art
    default = CardArt.objects.get(brand="VISA", bin_from="")
    before = Asset.objects.count()
    url = reverse("admin:tokenization_cardart_change", args=[default.pk])
    response = admin_client.post(
        url,
        {
            "name": default.name,
            "brand": "VISA",
            "bin_from": "",
            "bin_to": "",
            "issuer_name": "Demo Bank",
            "short_description": "Demo Bank Visa",
            "foreground_color": "ffffff",
            "icon_file": _png((128, 128)),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    default.refresh_from_db()
    assert Asset.objects.count() == before + 1
    content = default.icon.contents.get()
    assert (content.width, content.height) == (128, 128) and default.foreground_color == "FFFFFF"
    for bad in (_png(mode="RGB"), _png(fmt="JPEG", mode="RGB")):
        refused = admin_client.post(
            url,
            {
                "name": default.name,
                "brand": "VISA",
                "issuer_name": "Demo Bank",
                "short_description": "x",
                "foreground_color": "FFFFFF",
                "icon_file": bad,
            },
        )
        assert refused.status_code == 200 and "This image" in refused.content.decode()
    assert Asset.objects.count() == before + 1


def _file(name: str, data: bytes) -> io.BytesIO:
    buffer = io.BytesIO(data)
    buffer.name = name
    return buffer


def test_a_product_may_add_vector_artwork_and_terms(admin_client, merchant_api, make):
    token = make()
    art = token.card_art
    url = reverse("admin:tokenization_cardart_change", args=[art.pk])
    fields = {
        "name": art.name,
        "brand": "VISA",
        "issuer_name": "Demo Bank",
        "short_description": "Demo Bank Visa",
        "foreground_color": "FFFFFF",
    }
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="85.6" height="54"><rect/></svg>'
    response = admin_client.post(
        url,
        {
            **fields,
            "background_vector_file": _file("card.svg", svg),
            "terms_file": _file("terms.txt", b"Terms of use: ..."),
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    art.refresh_from_db()
    answer = merchant_api.get(f"/pay/v3/asset/{art.card_background_combined_id}").json()
    assert [c["type"] for c in answer["mediaContents"]] == [
        "image/png",
        "image/svg+xml",
        "text/plain",
    ]
    assert "height" not in answer["mediaContents"][1]
    refused = admin_client.post(
        url, {**fields, "background_vector_file": _file("card.pdf", b"not a pdf")}
    )
    assert refused.status_code == 200 and "is not a PDF document" in refused.content.decode()


def test_an_unknown_status_change_is_a_parameter_error(make):
    token = make()
    with pytest.raises(ApplicationError) as refused:
        act(token, "freeze")
    assert refused.value.http_status == 400
    assert refused.value.extra_result()["parameterErrors"][0]["name"] == "action"
    assert Token.objects.get(pk=token.pk).status == "ACTIVE"


@pytest.mark.parametrize(
    ("contents", "why"),
    [
        ([("image/png", b"not a png")], "is not a PNG image"),
        ([("application/pdf", b"<svg/>")], "is not a PDF document"),
        ([("image/gif", b"GIF89a")], "image/gif is not a media type of card art"),
    ],
)
def test_card_art_that_is_not_what_it_says_is_refused_with_700_150_500(contents, why):
    before = Asset.objects.count()
    with pytest.raises(ApplicationError) as refused:
        services.asset_publish(description="x", contents=contents)
    assert (refused.value.result.code, refused.value.description) == ("700.150.500", why)
    assert Asset.objects.count() == before
