"""Cardholder-history custom parameters were kept in ISO form (2024-01-31, 2024-01-31T12:30:00+00:00)
and echoed so; they are kept as sent now (20240131, 202401311230: payments.api.commands). This
rewrites what earlier payments kept, so their inquiries answer the documented formats."""

import re

from django.db import migrations

DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
MOMENT = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):00\+00:00")
DAYS = (
    "AccountChangeDate",
    "AccountDate",
    "AccountPasswordChangeDate",
    "PaymentAccountAge",
    "ShipAddressUsageDate",
    "PreOrderDate",
)
MOMENTS = ("ReqAuthTimestamp", "PriorAuthTimestamp")


def as_sent(apps, schema_editor):
    Payment = apps.get_model("payments", "Payment")
    names = [f"customParameters[{name}]" for name in (*DAYS, *MOMENTS)]
    for payment in Payment.objects.filter(data__has_any_keys=names).iterator():
        changed = False
        for name in DAYS:
            key = f"customParameters[{name}]"
            found = DAY.fullmatch(str(payment.data.get(key, "")))
            if found:
                payment.data[key] = "".join(found.groups())
                changed = True
        for name in MOMENTS:
            key = f"customParameters[{name}]"
            found = MOMENT.fullmatch(str(payment.data.get(key, "")))
            if found:
                payment.data[key] = "".join(found.groups())
                changed = True
        if changed:
            payment.save(update_fields=["data"])


class Migration(migrations.Migration):
    dependencies = [("payments", "0005_test_mode")]

    operations = [migrations.RunPython(as_sent, migrations.RunPython.noop)]
