"""Row locks of the issuer's authentications and requestors, in one place (the cards' are in
cards/lock_objects.py, the ledger's in ledger/lock_objects.py). Each is taken inside the
caller's transaction, which checks the row's state after the lock: a cardholder's answer, a
requestor's inquiry and the expiry task cannot both decide one authentication."""

from oauth2_provider.models import Application

from .models import OOBAuthentication, OTPChallenge


def oob_lock(*, authentication_id: str) -> OOBAuthentication:
    """An out-of-band authentication's row, locked (DoesNotExist for an unknown id)."""
    return OOBAuthentication.objects.select_for_update().get(pk=authentication_id)


def otp_lock(*, client_id: str, otp_id: str) -> OTPChallenge | None:
    """The requestor's one-time password, locked; None for an unknown id or another's."""
    return OTPChallenge.objects.select_for_update().filter(pk=otp_id, client_id=client_id).first()


def application_lock(*, client_id: str) -> Application | None:
    """A requestor's OAuth application, locked (its registration is being written); None when
    it is new."""
    return Application.objects.select_for_update().filter(client_id=client_id).first()
