"""Dotted and indexed names <-> nested data.

`cart.items[0].name=Pen` becomes {"cart": {"items": {"0": {"name": "Pen"}}}}: every level is a dict
keyed by the name or by the bracketed key, as a string. The serializer field of a repeated group
turns its "0", "1", ... keys into a list (and checks they run from 0); a map field
(`customParameters[...]`) keeps them as names. Bracketed keys may hold dots
(`customParameters[SHOPPER_a.b]`), so a name is tokenised, never split on every dot.
"""

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

SENSITIVE_NAMES = frozenset({"card.number", "card.cvv"})


class NameError_(ValueError):
    """A parameter name or a set of names that cannot be nested."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


class TooDeep(NameError_):
    """A name nested deeper than the limit (a request-level refusal, not a parameter's)."""

    def __init__(self, name: str, max_depth: int):
        super().__init__(name, f"nested deeper than {max_depth} levels")
        self.max_depth = max_depth


def split_name(name: str) -> list[str]:
    """`a.b[c.d][0].e` -> ['a', 'b', '[c.d]', '[0]', 'e'] (bracketed parts keep their brackets)."""
    if len(name) > CACHED_NAME_LENGTH:
        return list(_split(name))
    return list(_split_cached(name))


# The field tables split the same few hundred names on every request (issue 21). Only short
# names are kept (a request's own names, any length, must not fill a worker's memory: at most
# 4096 x 128 characters); a name that is refused raises every time (exceptions are not cached).
CACHED_NAME_LENGTH = 128


def _split(name: str) -> tuple[str, ...]:
    parts: list[str] = []
    i, n = 0, len(name)
    need_segment = True  # at the start and after a dot a plain segment must follow
    while i < n:
        ch = name[i]
        if ch == "[":
            if need_segment:
                raise NameError_(name, "malformed parameter name")
            end = name.find("]", i + 1)
            if end == -1 or end == i + 1:
                raise NameError_(name, "malformed parameter name")
            parts.append(name[i : end + 1])
            i = end + 1
        elif ch == ".":
            if need_segment:
                raise NameError_(name, "malformed parameter name")
            need_segment = True
            i += 1
        elif ch == "]":
            raise NameError_(name, "malformed parameter name")
        else:
            if not need_segment:
                raise NameError_(name, "malformed parameter name")
            j = i
            while j < n and name[j] not in ".[]":
                j += 1
            parts.append(name[i:j])
            need_segment = False
            i = j
    if need_segment:
        raise NameError_(name, "malformed parameter name")
    return tuple(parts)


_split_cached = lru_cache(maxsize=4096)(_split)


def key_of(part: str) -> str:
    return part[1:-1] if part.startswith("[") else part


def join_name(parts: Iterable[str]) -> str:
    out = ""
    for part in parts:
        if part.startswith("["):
            out += part
        else:
            out += ("." if out else "") + part
    return out


def unflatten(
    pairs: Iterable[tuple[str, list[str]]], *, max_depth: int | None = None
) -> dict[str, Any]:
    """Nest (name, values) pairs; a name given twice, or as a value and a group, is refused, and
    so (TooDeep) is a name of more than `max_depth` parts."""
    root: dict[str, Any] = {}
    for name, values in pairs:
        if len(values) != 1:
            raise NameError_(name, "given more than once")
        parts = split_name(name)
        if max_depth is not None and len(parts) > max_depth:
            raise TooDeep(name, max_depth)
        node = root
        for depth, part in enumerate(parts[:-1]):
            key = key_of(part)
            child = node.setdefault(key, {})
            if not isinstance(child, dict):
                raise NameError_(
                    join_name(parts[: depth + 1]), "given both as a value and as a group"
                )
            node = child
        last = key_of(parts[-1])
        if last in node:
            what = (
                "given more than once"
                if not isinstance(node[last], dict)
                else ("given both as a value and as a group")
            )
            raise NameError_(name, what)
        node[last] = values[0]
    return root


def child_name(prefix: str, key: str) -> str:
    """The dotted name of member `key` of the group `prefix` (`[key]` for keys with dots)."""
    if not prefix:
        return key
    if "." in key or "[" in key or key.isdigit():
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}"


def flatten(data: Any, prefix: str = "") -> Iterable[tuple[str, Any]]:
    """Nested data -> (dotted name, scalar). Lists get [i]; keys with dots get [key]. Recursive:
    for data whose depth the parsers have bounded."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield from flatten(value, child_name(prefix, str(key)))
    elif isinstance(data, list | tuple):
        for index, value in enumerate(data):
            yield from flatten(value, f"{prefix}[{index}]")
    else:
        yield prefix, data


def lookup(data: Any, name: str) -> Any:
    """The raw value at a dotted name, or None."""
    try:
        parts = split_name(name)
    except NameError_:
        return None
    node = data
    for part in parts:
        key = key_of(part)
        if isinstance(node, Mapping):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node if not isinstance(node, Mapping | list) else None


def nest(flat: Mapping[str, Any]) -> dict[str, Any]:
    """{"merchant.id": "1"} -> {"merchant": {"id": "1"}} for responses; None is dropped."""
    root: dict[str, Any] = {}
    for name, value in flat.items():
        if value is None:
            continue
        parts = [key_of(p) for p in split_name(name)]
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return root
