"""State machines as data: one allowed-transitions map per machine, one function that applies it.

```python
TOKEN_LIFECYCLE = Lifecycle(
    "token",
    {INACTIVE: {ACTIVE, DEACTIVATED}, ACTIVE: {SUSPENDED, DEACTIVATED}, ...},
    refusal=lambda current, target: ApplicationError(TOKEN_STATUS_NOT_ALLOWED),
    history=TokenStatusChange,  # optional: an append-only row per change
    subject="token",            # the history row's foreign key to the object
)                               # (history_fields= names other columns than from/to_status)
previous = TOKEN_LIFECYCLE.apply(token, SUSPENDED, actor="entity:BANK0001")
```

`apply` is called by a service on a row it has locked (`select_for_update`): it checks the
transition against the map, raises the machine's own refusal (the app's result code) when it is
not allowed, sets the state, saves the given fields and writes the history row (who, when, from,
to, the request's ndc, and any extra columns) in the caller's transaction. A state that has no
outgoing transitions is final.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.db.models import Model

from .context import get_ndc


class TransitionNotAllowed(Exception):
    """Raised when a machine has no refusal of its own."""

    def __init__(self, machine: str, current: str, target: str):
        super().__init__(f"{machine}: {current or '(new)'} -> {target} is not allowed")
        self.machine, self.current, self.target = machine, current, target


class Lifecycle:
    def __init__(
        self,
        name: str,
        transitions: Mapping[str, Iterable[str]],
        *,
        refusal: Callable[[str, str], Exception] | None = None,
        field: str = "status",
        history: type[Model] | None = None,
        subject: str = "",
        history_fields: Callable[[str, str], Mapping[str, Any]] | None = None,
    ):
        self.name = name
        self.transitions = {
            str(state): frozenset(map(str, to)) for state, to in transitions.items()
        }
        unknown = set().union(*self.transitions.values()) - set(self.transitions)
        if unknown:
            raise ValueError(f"{name}: transitions to undeclared states {sorted(unknown)}")
        self.refusal = refusal
        self.field = field
        self.history = history
        self.subject = subject
        self.history_fields = history_fields or _from_to
        if history is not None and not subject:
            raise ValueError(f"{name}: a history model needs the name of its subject field")

    @property
    def states(self) -> frozenset[str]:
        return frozenset(self.transitions)

    @property
    def final_states(self) -> frozenset[str]:
        return frozenset(state for state, to in self.transitions.items() if not to)

    def is_final(self, state: str) -> bool:
        return not self.transitions.get(str(state))

    def allows(self, current: str, target: str) -> bool:
        return str(target) in self.transitions.get(str(current), frozenset())

    def check(self, current: str, target: str) -> None:
        if not self.allows(current, target):
            if self.refusal is not None:
                raise self.refusal(str(current), str(target))
            raise TransitionNotAllowed(self.name, str(current), str(target))

    def apply(
        self,
        obj: Model,
        target: str,
        *,
        actor: str = "",
        save_fields: Iterable[str] = (),
        history: Mapping[str, Any] | None = None,
    ) -> str:
        """Move a locked `obj` to `target`: check, set, save `field` (+ `save_fields`), record.
        Returns the previous state."""
        previous = str(getattr(obj, self.field))
        self.check(previous, target)
        setattr(obj, self.field, target)
        fields = [self.field, *save_fields]
        if any(f.name == "updated_at" for f in obj._meta.concrete_fields):
            fields.append("updated_at")
        obj.save(update_fields=list(dict.fromkeys(fields)))
        self.record(obj, previous, target, actor=actor, **dict(history or {}))
        return previous

    def record(self, obj: Model, previous: str, target: str, *, actor: str, **extra: Any) -> None:
        """Write the history row of a change (also of a creation: `previous` "")."""
        if self.history is None:
            return
        self.history._default_manager.create(
            **{self.subject: obj},
            **self.history_fields(previous, target),
            changed_by=actor,
            ndc=get_ndc(),
            **extra,
        )


def _from_to(previous: str, target: str) -> dict[str, str]:
    return {"from_status": previous, "to_status": target}
