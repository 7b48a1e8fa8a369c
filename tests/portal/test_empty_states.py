"""A new merchant's overview (issue 35): one empty state, not four empty charts and three ways
of saying nothing; a merchant who sold nothing gets no sales axis from 0 to 1."""

import pytest
from django.contrib.auth.models import User

from merchants.models import PortalUser
from tests.payments.conftest import NO_FUNDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client, merchant):
    user = User.objects.create_user("new-shop", password="x")
    PortalUser.objects.create(user=user, merchant=merchant)
    client.force_login(user)
    return client


def test_a_new_merchants_overview_is_one_empty_state(signed_in):
    page = signed_in.get("/portal/").content.decode()
    assert "<svg" not in page and 'id="no-payments"' in page
    assert "No payments today yet." in page and "No payments this month yet." in page
    assert "none" not in page.split('id="figures-meaning"')[0]  # not "none", "0" and "–"


def test_no_sales_draws_no_axis_from_0_to_1(signed_in, payer):
    payer.pay("DB", "10.00", number=NO_FUNDS)  # declined: a payment, no sale
    page = signed_in.get("/portal/").content.decode()
    assert page.count("<svg") == 4
    sales_chart = page.split("<svg")[1]
    assert "Nothing in these 30 days" in sales_chart
    assert ">0.2<" not in sales_chart and ">1<" not in sales_chart
