"""Path converters for ids in URLs.

An id this platform makes is 32 lowercase hexadecimal digits (`core.envelope.new_id`). A path
whose id has any other shape names nothing that can exist, so it does not match at all: it is
"not found", the same 404 as an unknown id, and no NUL byte or control character in it reaches a
database look-up (PostgreSQL refuses NUL in text with an error).
"""

import re


class HexIdConverter:
    regex = "[0-9a-f]{32}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def is_hex_id(value: str) -> bool:
    """Whether `value` has the shape of an id this platform makes."""
    return re.fullmatch(HexIdConverter.regex, value) is not None
