from django.db import migrations, models


def mark_authenticated(apps, schema_editor):
    """Payments that have an authentication were started with 3-D Secure."""
    Payment = apps.get_model("payments", "Payment")
    Payment.objects.filter(threeds__isnull=False).update(threeds_started=True)


class Migration(migrations.Migration):
    dependencies = [("payments", "0002_threedsauthentication")]

    operations = [
        migrations.AddField(
            model_name="payment",
            name="threeds_started",
            field=models.BooleanField(
                default=False,
                help_text="A 3-D Secure authentication of this platform was started for it.",
                verbose_name="3-D Secure by us",
            ),
        ),
        migrations.RunPython(mark_authenticated, migrations.RunPython.noop),
    ]
