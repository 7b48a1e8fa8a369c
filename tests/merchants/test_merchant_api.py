"""Merchant create, update, status, 3DS enrolment and inquiry: every result code each returns."""

import pytest

from merchants.api.tables import MERCHANT_CREATE
from merchants.models import Entity, Merchant, MerchantStatusChange, ThreeDSEnrolmentEvent
from merchants.selectors import entity_by_token
from tests.conftest import SpecClient, code, param_errors
from tests.factories import MerchantFactory
from tests.spec_requests import valid_body

CREATE, UPDATE, STATUS = (
    "/pay/v3/merchant/create",
    "/pay/v3/merchant/update/",
    "/pay/v3/merchant/status/",
)
ENROL, DELETE, INQUIRY = (
    "/pay/v3/merchant/3dsenroll",
    "/pay/v3/merchant/3dsdelete",
    "/pay/v3/merchant/Inquiry",
)


def body(merchant_id="123456789", **overrides):
    return valid_body(MERCHANT_CREATE, **{"merchant.id": merchant_id, **overrides})


class TestCreate:
    def test_creates_merchant_entity_and_token(self, api, participator):
        response = api.post(CREATE, body("123456789", **{"merchant.name": "Acme Ltd"}))
        assert response.status_code == 200
        data = response.json()
        assert data["result"] == {"code": "000.000.100", "description": "successful request"}
        assert data["merchant"]["id"] == "123456789"
        merchant = Merchant.objects.get(merchant_id="123456789")
        assert merchant.participator == participator and merchant.name == "Acme Ltd"
        assert merchant.status == "NORMAL" and merchant.threeds_status == "NOT_ENROLLED"
        # The token is the merchant entity's bearer token, stored only hashed.
        assert entity_by_token(data["merchant"]["token"]) == merchant.entity
        assert data["merchant"]["token"] not in str(Entity.objects.values_list())
        assert merchant.status_changes.get().to_status == "NORMAL"

    def test_eight_digit_merchant_id_is_the_entity_id(self, api):
        response = api.post(CREATE, body("87654321"))
        assert response.json()["merchant"]["entityId"] == "87654321"

    @pytest.mark.parametrize("merchant_id", ["1", "1234567", "123456789012345"])
    def test_other_lengths_get_an_assigned_eight_digit_entity_id(self, api, merchant_id):
        entity_id = api.post(CREATE, body(merchant_id)).json()["merchant"]["entityId"]
        assert len(entity_id) == 8 and entity_id.isdigit()
        assert Merchant.objects.get(merchant_id=merchant_id).entity.entity_id == entity_id

    def test_eight_digit_id_taken_by_another_entity_gets_an_assigned_one(self, api, participator):
        from tests.factories import EntityFactory

        EntityFactory(entity_id="55555555")
        entity_id = api.post(CREATE, body("55555555")).json()["merchant"]["entityId"]
        assert entity_id != "55555555" and len(entity_id) == 8

    def test_the_new_merchant_token_works(self, api):
        data = api.post(CREATE, body("87654321")).json()["merchant"]
        client = SpecClient(data["token"], data["entityId"], "MERCHANT")
        assert client.get(INQUIRY, {"merchant.id": "87654321"}).status_code == 200

    def test_duplicate_merchant_id_is_refused_clearly(self, api):
        api.post(CREATE, body("123456789"))
        response = api.post(CREATE, body("123456789"))
        assert response.status_code == 200
        assert code(response) == "200.300.405"
        assert "123456789" in response.json()["result"]["description"]
        assert Merchant.objects.count() == 1

    def test_duplicate_merchant_id_of_another_participator_is_refused(self, api, other_api):
        api.post(CREATE, body("123456789"))
        assert code(other_api.post(CREATE, body("123456789"))) == "200.300.405"
        assert Merchant.objects.get().participator.entity_id == api.entity_id

    def test_json_body_is_accepted(self, api):
        import json

        payload = {
            "entityId": api.entity_id,
            "entityType": "PARTICIPATOR",
            "merchantTransactionId": "json1",
            "merchant": {k.split(".", 1)[1]: v for k, v in body("42").items()},
        }
        response = api.client.post(
            CREATE,
            json.dumps(payload),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {api.token}",
        )
        assert response.status_code == 200, response.json()
        assert Merchant.objects.filter(merchant_id="42").exists()


class TestAggregatorRules:
    def test_aggregator_name_required_with_aggregator_id(self, api):
        response = api.post(CREATE, body(**{"merchant.aggregatorID": "AGG1"}))
        assert response.status_code == 400
        assert param_errors(response) == {
            "merchant.aggregatorName": "required when merchant.aggregatorID is given"
        }

    @pytest.mark.parametrize(
        "name", ["merchant.aggregatorName", "merchant.aggregatorType", "merchant.aggregatorAbbv"]
    )
    def test_aggregator_details_need_an_aggregator_id(self, api, name):
        value = {"merchant.aggregatorType": "P"}.get(name, "ABC")
        response = api.post(CREATE, body(**{name: value}))
        assert param_errors(response) == {name: "requires merchant.aggregatorID"}

    def test_full_aggregator_block_is_stored(self, api):
        response = api.post(
            CREATE,
            body(
                **{
                    "merchant.aggregatorID": "AGG1",
                    "merchant.aggregatorName": "Mkt",
                    "merchant.aggregatorType": "M",
                    "merchant.aggregatorAbbv": "MKT",
                }
            ),
        )
        assert response.status_code == 200
        merchant = Merchant.objects.get()
        assert (merchant.aggregator_id, merchant.aggregator_type) == ("AGG1", "M")

    def test_mcc2_to_mcc10_and_mvv_are_stored(self, api):
        extra = {f"merchant.mcc{i}": f"{5000 + i}" for i in range(2, 11)}
        response = api.post(CREATE, body(**extra, **{"merchant.mvvID": "abcdef0123"}))
        assert response.status_code == 200
        merchant = Merchant.objects.get()
        assert merchant.mcc10 == "5010" and merchant.mvv_id == "ABCDEF0123"
        assert len(merchant.mccs) == 11


class TestUpdate:
    def test_changes_only_the_fields_sent(self, api, merchant):
        response = api.post(
            UPDATE,
            {
                "merchant.id": merchant.merchant_id,
                "merchant.city": "Hamburg",
                "merchant.website": "shop.example",
            },
        )
        assert response.status_code == 200 and code(response) == "000.000.100"
        merchant.refresh_from_db()
        assert (merchant.city, merchant.website, merchant.street) == (
            "Hamburg",
            "shop.example",
            "1 Main Street",
        )

    def test_blank_optional_field_clears_it(self, api, merchant):
        merchant.mcc2 = "5999"
        merchant.save()
        api.post(UPDATE, {"merchant.id": merchant.merchant_id, "merchant.mcc2": ""})
        merchant.refresh_from_db()
        assert merchant.mcc2 == ""

    def test_blank_mandatory_field_is_refused(self, api, merchant):
        response = api.post(UPDATE, {"merchant.id": merchant.merchant_id, "merchant.city": ""})
        assert response.status_code == 400 and "merchant.city" in param_errors(response)

    def test_merchant_id_is_required(self, api, merchant):
        response = api.post(UPDATE, {"merchant.city": "Hamburg"})
        assert response.status_code == 400
        assert "merchant.id" in param_errors(response)

    def test_rules_apply_to_stored_values(self, api, merchant):
        response = api.post(
            UPDATE, {"merchant.id": merchant.merchant_id, "merchant.aggregatorID": "AGG1"}
        )
        assert param_errors(response) == {
            "merchant.aggregatorName": "required when merchant.aggregatorID is given"
        }
        merchant.aggregator_id, merchant.aggregator_name = "AGG1", "Mkt"
        merchant.save()
        response = api.post(
            UPDATE, {"merchant.id": merchant.merchant_id, "merchant.aggregatorType": "P"}
        )
        assert response.status_code == 200

    def test_status_cannot_be_changed_through_update(self, api, merchant):
        response = api.post(
            UPDATE, {"merchant.id": merchant.merchant_id, "merchant.status": "CLOSED"}
        )
        assert param_errors(response) == {"merchant.status": "unknown parameter"}

    def test_unknown_merchant_is_404(self, api):
        response = api.post(UPDATE, {"merchant.id": "999", "merchant.city": "Hamburg"})
        assert response.status_code == 404 and code(response) == "700.100.101"


class TestStatus:
    @pytest.mark.parametrize("status", ["CLOSED", "BLOCKED", "TERMINATED", "NORMAL"])
    def test_any_status_can_be_set_from_normal(self, api, merchant, status):
        response = api.post(
            STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": status}
        )
        assert response.status_code == 200 and code(response) == "000.000.100"
        assert response.json()["merchant"]["status"] == status
        merchant.refresh_from_db()
        assert merchant.status == status

    @pytest.mark.parametrize("start", ["CLOSED", "TERMINATED"])
    def test_normal_from_closed_or_terminated_is_refused(self, api, merchant, start):
        api.post(STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": start})
        history = MerchantStatusChange.objects.count()
        response = api.post(
            STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": "NORMAL"}
        )
        assert response.status_code == 200
        assert code(response) == "700.500.100"
        merchant.refresh_from_db()
        assert merchant.status == start
        assert MerchantStatusChange.objects.count() == history

    @pytest.mark.parametrize(
        ("start", "to"), [("CLOSED", "BLOCKED"), ("TERMINATED", "CLOSED"), ("BLOCKED", "NORMAL")]
    )
    def test_other_moves_are_allowed(self, api, merchant, start, to):
        api.post(STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": start})
        response = api.post(STATUS, {"merchant.id": merchant.merchant_id, "merchant.status": to})
        assert code(response) == "000.000.100"

    def test_security_status_is_stored_and_history_kept(self, api, merchant, participator):
        api.post(
            STATUS,
            {
                "merchant.id": merchant.merchant_id,
                "merchant.status": "BLOCKED",
                "merchant.securityStatus": "SUSPECTED",
            },
        )
        merchant.refresh_from_db()
        assert (merchant.status, merchant.security_status) == ("BLOCKED", "SUSPECTED")
        change = merchant.status_changes.first()
        assert (change.from_status, change.to_status, change.to_security_status) == (
            "NORMAL",
            "BLOCKED",
            "SUSPECTED",
        )
        assert change.changed_by == f"entity:{participator.entity_id}"
        assert change.ndc and change.changed_at

    def test_security_status_alone(self, api, merchant):
        response = api.post(
            STATUS, {"merchant.id": merchant.merchant_id, "merchant.securityStatus": "IDVERIFIED"}
        )
        assert code(response) == "000.000.100"
        merchant.refresh_from_db()
        assert (merchant.status, merchant.security_status) == ("NORMAL", "IDVERIFIED")

    def test_status_or_security_status_required(self, api, merchant):
        response = api.post(STATUS, {"merchant.id": merchant.merchant_id})
        assert response.status_code == 400 and "merchant.status" in param_errors(response)

    def test_unknown_merchant_is_404(self, api):
        response = api.post(STATUS, {"merchant.id": "999", "merchant.status": "BLOCKED"})
        assert response.status_code == 404 and code(response) == "700.100.101"


class TestThreeDS:
    def test_enrol_then_delete(self, api, merchant, participator):
        response = api.post(ENROL, {"merchant.id": merchant.merchant_id})
        assert code(response) == "000.000.100"
        assert response.json()["merchant"]["threeDSecure"]["enrolmentStatus"] == "ENROLLED"
        response = api.post(
            DELETE,
            {
                "merchant.id": merchant.merchant_id,
                "threeDSecure.deleteReason": "Merchant No Longer Participating",
            },
        )
        assert code(response) == "000.000.100"
        merchant.refresh_from_db()
        assert merchant.threeds_status == "DELETED"
        assert merchant.threeds_delete_reason == "Merchant No Longer Participating"
        actions = list(ThreeDSEnrolmentEvent.objects.order_by("id").values_list("action", "reason"))
        assert actions == [("ENROL", ""), ("DELETE", "Merchant No Longer Participating")]

    def test_enrolment_is_visible_in_inquiry(self, api, merchant):
        api.post(ENROL, {"merchant.id": merchant.merchant_id})
        three_ds = api.get(INQUIRY, {"merchant.id": merchant.merchant_id}).json()["merchant"][
            "threeDSecure"
        ]
        assert three_ds["enrolmentStatus"] == "ENROLLED" and three_ds["enrolledAt"]

    def test_enrol_twice_is_refused(self, api, merchant):
        api.post(ENROL, {"merchant.id": merchant.merchant_id})
        response = api.post(ENROL, {"merchant.id": merchant.merchant_id})
        assert response.status_code == 200 and code(response) == "700.500.200"

    def test_delete_when_not_enrolled_is_refused(self, api, merchant):
        response = api.post(
            DELETE, {"merchant.id": merchant.merchant_id, "threeDSecure.deleteReason": "Other"}
        )
        assert response.status_code == 200 and code(response) == "700.500.201"
        merchant.refresh_from_db()
        assert merchant.threeds_status == "NOT_ENROLLED"

    def test_delete_reason_is_required_for_delete(self, api, merchant):
        api.post(ENROL, {"merchant.id": merchant.merchant_id})
        response = api.post(DELETE, {"merchant.id": merchant.merchant_id})
        assert response.status_code == 400 and "threeDSecure.deleteReason" in param_errors(response)

    def test_delete_reason_is_not_taken_on_enrol(self, api, merchant):
        response = api.post(
            ENROL, {"merchant.id": merchant.merchant_id, "threeDSecure.deleteReason": "Other"}
        )
        assert param_errors(response) == {"threeDSecure.deleteReason": "unknown parameter"}

    def test_re_enrol_after_delete(self, api, merchant):
        api.post(ENROL, {"merchant.id": merchant.merchant_id})
        api.post(
            DELETE, {"merchant.id": merchant.merchant_id, "threeDSecure.deleteReason": "Other"}
        )
        assert code(api.post(ENROL, {"merchant.id": merchant.merchant_id})) == "000.000.100"

    @pytest.mark.parametrize("path", [ENROL, DELETE])
    def test_unknown_merchant_is_404(self, api, path):
        response = api.post(
            path,
            {"merchant.id": "999", "threeDSecure.deleteReason": "Other"}
            if path == DELETE
            else {"merchant.id": "999"},
        )
        assert response.status_code == 404 and code(response) == "700.100.101"


class TestInquiry:
    def test_get_returns_every_stored_field(self, api):
        sent = body("123456789", **{"merchant.website": "www.x.example", "merchant.mcc2": "5999"})
        api.post(CREATE, sent)
        data = api.get(INQUIRY, {"merchant.id": "123456789"}).json()
        assert code_of(data) == "000.000.100"
        for name, value in sent.items():
            assert data["merchant"][name.split(".", 1)[1]] == value, name
        assert data["merchant"]["status"] == "NORMAL"
        assert data["merchant"]["threeDSecure"] == {"enrolmentStatus": "NOT_ENROLLED"}
        assert "token" not in data["merchant"]

    def test_post_form_works_too(self, api, merchant):
        response = api.post(INQUIRY, {"merchant.id": merchant.merchant_id}, mtid=False)
        assert (
            response.status_code == 200
            and response.json()["merchant"]["id"] == merchant.merchant_id
        )

    def test_merchant_reads_itself(self, merchant_api, merchant):
        assert merchant_api.get(INQUIRY, {"merchant.id": merchant.merchant_id}).status_code == 200

    def test_merchant_cannot_read_another_merchant(self, merchant_api, participator):
        sibling = MerchantFactory(participator=participator)
        response = merchant_api.get(INQUIRY, {"merchant.id": sibling.merchant_id})
        assert response.status_code == 404 and code(response) == "700.100.101"

    def test_missing_merchant_id_is_400(self, api):
        response = api.get(INQUIRY, {})
        assert response.status_code == 400 and "merchant.id" in param_errors(response)


def code_of(data):
    return data["result"]["code"]


class TestCrossParticipator:
    """Participator B can neither read nor change A's merchant: 404, nothing changed."""

    @pytest.mark.parametrize(
        ("path", "extra"),
        [
            (UPDATE, {"merchant.city": "Evil"}),
            (STATUS, {"merchant.status": "CLOSED"}),
            (ENROL, {}),
            (DELETE, {"threeDSecure.deleteReason": "Other"}),
        ],
    )
    def test_b_cannot_change_a(self, other_api, merchant, path, extra):
        response = other_api.post(path, {"merchant.id": merchant.merchant_id, **extra})
        assert response.status_code == 404 and code(response) == "700.100.101"
        merchant.refresh_from_db()
        assert (merchant.city, merchant.status, merchant.threeds_status) == (
            "Berlin",
            "NORMAL",
            "NOT_ENROLLED",
        )

    @pytest.mark.parametrize("method", ["get", "post"])
    def test_b_cannot_read_a(self, other_api, merchant, method):
        call = getattr(other_api, method)
        kwargs = {"mtid": False} if method == "post" else {}
        response = call(INQUIRY, {"merchant.id": merchant.merchant_id}, **kwargs)
        assert response.status_code == 404
        assert merchant.name not in response.content.decode()
