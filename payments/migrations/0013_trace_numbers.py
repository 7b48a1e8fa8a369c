"""The acquirer's STAN: a sequence on PostgreSQL (1 to 999999, cycling), a counter row on
SQLite (payments/services/trace.py)."""

from django.db import migrations, models


def create_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE SEQUENCE IF NOT EXISTS payments_stan MINVALUE 1 MAXVALUE 999999 CYCLE"
        )


def drop_sequence(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP SEQUENCE IF EXISTS payments_stan")


class Migration(migrations.Migration):
    dependencies = [("payments", "0012_payment_clearing_institute")]

    operations = [
        migrations.CreateModel(
            name="TraceCounter",
            fields=[
                ("name", models.CharField(max_length=16, primary_key=True, serialize=False)),
                ("value", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.RunPython(create_sequence, drop_sequence),
    ]
