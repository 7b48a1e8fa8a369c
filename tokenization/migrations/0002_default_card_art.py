from django.db import migrations


def install(apps, schema_editor):  # type: ignore[no-untyped-def]
    from tokenization.artwork import defaults

    defaults.install(
        apps.get_model("tokenization", "Asset"),
        apps.get_model("tokenization", "MediaContent"),
        apps.get_model("tokenization", "CardArt"),
    )


class Migration(migrations.Migration):
    dependencies = [("tokenization", "0001_initial")]

    operations = [migrations.RunPython(install, migrations.RunPython.noop)]
