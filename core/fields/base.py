"""The base of every field type: parse a submitted string, describe it, format a value back,
and give a valid and some invalid examples (the generated format tests use them)."""

import re
from typing import Any

# Every control character (C0 with tab, CR and LF, DEL, C1 with NEL) and the Unicode line and
# paragraph separators: every text the API takes is a single line (it reaches statement and
# clearing files, where a line break starts a record), and none belongs in an identifier.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class FieldType:
    def parse(self, text: str) -> Any:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError

    def valid(self) -> str:
        raise NotImplementedError

    def invalid(self) -> list[str]:
        raise NotImplementedError

    def format(self, value: Any) -> str:
        """A stored value as an answer shows it (the inverse of `parse`)."""
        return str(value)

    def error(self) -> ValueError:
        return ValueError(f"must be {self.describe()}")

    def control_error(self) -> ValueError:
        return ValueError(f"must not contain control characters or line breaks ({self.describe()})")


def _length(min_len: int, max_len: int, unit: str) -> str:
    if min_len == max_len:
        return f"exactly {max_len} {unit}"
    return f"{min_len} to {max_len} {unit}"
