"""vault_rotate re-encrypts card numbers and entity tokens under the active key."""

import base64
from io import StringIO

from django.core.management import call_command

from core import vault
from core.cards import decrypt_pan
from merchants.services import entity_token_plaintext
from payments.models import Payment

NEW_KEY = base64.b64encode(b"n" * 32).decode()


def test_rotation_moves_every_ciphertext_to_the_new_key(payer, merchant, settings):
    payment_id = payer.pay("DB").json()["id"]
    old_token = entity_token_plaintext(entity=merchant.entity)
    assert vault.key_id_of(Payment.objects.get(pk=payment_id).pan_ciphertext) == "dev1"

    settings.VAULT_KEYS = f"{settings.VAULT_KEYS},new1:{NEW_KEY}"
    settings.VAULT_ACTIVE_KEY_ID = "new1"
    out = StringIO()
    call_command("vault_rotate", "--batch", "1", stdout=out)
    assert "payments.Payment.pan_ciphertext: 1 to re-encrypt" in out.getvalue()

    payment = Payment.objects.get(pk=payment_id)
    assert vault.key_id_of(payment.pan_ciphertext) == "new1"
    assert decrypt_pan(payment.pan_ciphertext) == "4200000000000000"
    merchant.entity.refresh_from_db()
    assert vault.key_id_of(merchant.entity.token_ciphertext) == "new1"
    assert entity_token_plaintext(entity=merchant.entity) == old_token

    # Nothing is left under the old key: it can be dropped, and a second run has nothing to do.
    settings.VAULT_KEYS = f"new1:{NEW_KEY}"
    out = StringIO()
    call_command("vault_rotate", stdout=out)
    assert "0 to re-encrypt" in out.getvalue()
    assert decrypt_pan(Payment.objects.get(pk=payment_id).pan_ciphertext) == "4200000000000000"


def test_dry_run_writes_nothing(payer, settings):
    payment_id = payer.pay("DB").json()["id"]
    settings.VAULT_KEYS = f"{settings.VAULT_KEYS},new1:{NEW_KEY}"
    settings.VAULT_ACTIVE_KEY_ID = "new1"
    call_command("vault_rotate", "--dry-run", stdout=StringIO())
    assert vault.key_id_of(Payment.objects.get(pk=payment_id).pan_ciphertext) == "dev1"


def test_rotation_covers_stored_registrations(payer, settings):
    from payments.models import Registration

    registration_id = payer.pay("DB", createRegistration="true").json()["registrationId"]
    settings.VAULT_KEYS = f"{settings.VAULT_KEYS},new1:{NEW_KEY}"
    settings.VAULT_ACTIVE_KEY_ID = "new1"
    out = StringIO()
    call_command("vault_rotate", stdout=out)
    assert "payments.Registration.pan_ciphertext: 1 to re-encrypt" in out.getvalue()
    stored = Registration.objects.get(pk=registration_id)
    assert vault.key_id_of(stored.pan_ciphertext) == "new1"
    assert decrypt_pan(stored.pan_ciphertext) == "4200000000000000"
