"""CSV answered a line at a time (a report, an export): the lines for a StreamingHttpResponse,
so a long list is never built in memory."""

import csv
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.http import StreamingHttpResponse


class _Line:
    """What csv.writer writes into: each row comes back as its text."""

    def write(self, text: str) -> str:
        return text


def csv_lines(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(header)
    for row in rows:
        yield writer.writerow(row)


def csv_response(lines: Iterator[str], filename: str) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
