"""What other apps add to merchants' staff pages: the merchant's page in the admin shows, after
its own inlines, those registered here (terminals adds the merchant's terminals).

The module of merchants that other apps' admin modules import, never merchants.admin:
merchants imports none of the apps that build on it, so they add their parts through here.
"""

from django.contrib.admin.options import InlineModelAdmin

_MERCHANT_INLINES: list[type[InlineModelAdmin]] = []


def merchant_inline_add(*, inline: type[InlineModelAdmin]) -> None:
    """Show `inline` on the merchant's admin page, after merchants' own (once, however often
    it is added)."""
    if inline not in _MERCHANT_INLINES:
        _MERCHANT_INLINES.append(inline)


def merchant_inlines() -> tuple[type[InlineModelAdmin], ...]:
    """The inlines other apps added to the merchant's admin page, in the order added."""
    return tuple(_MERCHANT_INLINES)
