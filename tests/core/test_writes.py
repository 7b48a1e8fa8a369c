"""save_changes: only the fields a resource allows, only those columns written."""

import pytest

from core.writes import save_changes
from merchants.models import MERCHANT_DATA_FIELDS, Merchant
from merchants.services import merchant_update
from tests.factories import MerchantFactory

pytestmark = pytest.mark.django_db


def test_only_the_given_columns_are_written():
    merchant = MerchantFactory(city="Berlin", business="OLD")
    stale = Merchant.objects.get(pk=merchant.pk)
    Merchant.objects.filter(pk=merchant.pk).update(business="CONCURRENT")
    saved = save_changes(stale, {"city": "Hamburg"}, allowed=MERCHANT_DATA_FIELDS)
    merchant.refresh_from_db()
    assert saved == ["city", "updated_at"]
    assert (merchant.city, merchant.business) == ("Hamburg", "CONCURRENT")


def test_a_field_the_resource_does_not_allow_is_refused_before_anything_is_set():
    merchant = MerchantFactory()
    with pytest.raises(ValueError, match="status"):
        merchant_update(
            merchant=merchant, values={"city": "Hamburg", "status": "CLOSED"}, changed_by="test"
        )
    merchant.refresh_from_db()
    assert merchant.status == "NORMAL" and merchant.city != "Hamburg"


def test_the_merchant_table_names_exactly_the_editable_fields():
    from merchants.api.tables import MERCHANT_FIELDS
    from terminals.api.tables import TERMINAL_FIELDS
    from terminals.models import TERMINAL_DATA_FIELDS

    assert {row.attribute for row in MERCHANT_FIELDS} == set(MERCHANT_DATA_FIELDS)
    assert {row.attribute for row in TERMINAL_FIELDS} == set(TERMINAL_DATA_FIELDS)
