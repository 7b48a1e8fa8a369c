"""PostgreSQL checks at commit that every journal's entries sum to zero per currency (a deferred
constraint trigger, as django-hordak does); on SQLite the service's own check stands alone."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION issuer_journal_balanced() RETURNS trigger AS $$
DECLARE
    checked bigint := COALESCE(NEW.journal_id, OLD.journal_id);
    unbalanced integer;
BEGIN
    SELECT COUNT(*) INTO unbalanced FROM (
        SELECT currency FROM issuer_entry WHERE journal_id = checked
        GROUP BY currency HAVING SUM(amount) <> 0
    ) AS sums;
    IF unbalanced > 0 THEN
        RAISE EXCEPTION USING
            MESSAGE = 'journal ' || checked || ' does not balance',
            ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER issuer_entry_balanced
    AFTER INSERT OR UPDATE OR DELETE ON issuer_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION issuer_journal_balanced();
"""
DROP = """
DROP TRIGGER IF EXISTS issuer_entry_balanced ON issuer_entry;
DROP FUNCTION IF EXISTS issuer_journal_balanced();
"""


def forwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def backwards(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("issuer", "0004_ledger")]
    operations = [migrations.RunPython(forwards, backwards)]
