"""Row locks of terminals, in one place: a change re-reads the terminal here with
`select_for_update()` inside the caller's transaction, then checks the transition."""

from .models import Terminal


def terminal_lock(pk: int) -> Terminal:
    return Terminal.objects.select_for_update().get(pk=pk)
