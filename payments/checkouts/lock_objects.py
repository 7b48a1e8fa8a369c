"""Row locks of hosted checkouts, in one place: a checkout is re-read here with
`select_for_update()` inside the caller's transaction, so it pays at most once."""

from .models import Checkout


def checkout_lock(checkout_id: str) -> Checkout:
    return Checkout.objects.select_for_update().get(pk=checkout_id)
