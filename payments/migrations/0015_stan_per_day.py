"""The acquirer's STAN from a sequence per day (payments/services/trace.py): on PostgreSQL the
function that draws from the day's sequence, creating it on the day's first claim; the single
sequence of 0013 goes. SQLite counts in one TraceCounter row per day."""

from django.db import migrations

NEXT_STAN = """
CREATE OR REPLACE FUNCTION payments_next_stan(day text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    name text := 'payments_stan_' || day;
BEGIN
    IF to_regclass(name) IS NULL THEN
        PERFORM pg_advisory_xact_lock(hashtext(name));
        IF to_regclass(name) IS NULL THEN
            EXECUTE format('CREATE SEQUENCE %I MINVALUE 1 MAXVALUE 999999 CYCLE', name);
        END IF;
    END IF;
    RETURN nextval(name);
END
$$
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(NEXT_STAN, params=None)  # format()'s %I is not a placeholder
        schema_editor.execute("DROP SEQUENCE IF EXISTS payments_stan")
    else:
        apps.get_model("payments", "TraceCounter").objects.filter(name="stan").delete()


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS payments_next_stan(text)")
        schema_editor.execute(
            "CREATE SEQUENCE IF NOT EXISTS payments_stan MINVALUE 1 MAXVALUE 999999 CYCLE"
        )


class Migration(migrations.Migration):
    dependencies = [("payments", "0014_reversal_advices")]

    operations = [migrations.RunPython(forwards, backwards)]
