"""Row locks of merchants, in one place: every change re-reads its row here with
`select_for_update()` inside the caller's transaction, then checks the transition after the
lock. Other apps lock a merchant through `merchant_lock` too (a settlement run: one at a time
per merchant)."""

from django.contrib.auth.models import User

from .models import AmountLimit, Entity, Merchant, PortalUser


def entity_lock(pk: int) -> Entity:
    return Entity.objects.select_for_update().get(pk=pk)


def merchant_lock(pk: int) -> Merchant:
    return Merchant.objects.select_for_update().get(pk=pk)


def portal_user_lock(portal_user: PortalUser) -> User:
    """The Django user of a portal user (its password and whether it may sign in)."""
    return User.objects.select_for_update().get(pk=portal_user.user_id)


def amount_limit_lock(*, merchant: Merchant | None, currency: str) -> AmountLimit | None:
    """A merchant's (None: the platform's) limit in `currency`, if there is one."""
    return (
        AmountLimit.objects.select_for_update().filter(merchant=merchant, currency=currency).first()
    )
