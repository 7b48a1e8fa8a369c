"""A reconciliation storage that stops in the middle of writing a file, for a test to kill the
worker there (tests/faults/test_worker_killed_recon.py). A worker takes it by setting:

    RECON_STORAGE_BACKEND=tests.faults.gated_storage.GatedStorage
    RECON_STORAGE_OPTIONS={"location": "<folder>", "reached": "<path>", "after": 65536}

It writes as FileSystemStorage does (the file at its final name, a chunk at a time) until `after`
bytes are written, then creates the file `reached` names and waits there for ever: the file on
disk is cut short, as a worker killed in the middle of the stream leaves it.
"""

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.files import File
from django.core.files.storage import FileSystemStorage

CHUNK = 64 * 1024


class _Stalling(File):  # type: ignore[type-arg]
    def __init__(self, content: Any, *, after: int, reached: Path) -> None:
        super().__init__(content, name=getattr(content, "name", None))
        self.after, self.reached = after, reached

    def chunks(self, chunk_size: int | None = None) -> Iterator[bytes]:
        written = 0
        while block := self.file.read(CHUNK):
            if written >= self.after:
                self.reached.write_text(str(written))
                threading.Event().wait()  # for ever: the test kills the worker here
            yield block
            written += len(block)


class GatedStorage(FileSystemStorage):
    def __init__(self, *, reached: str, after: int = CHUNK, **options: Any) -> None:
        super().__init__(**options)
        self.reached, self.after = Path(reached), after

    def _save(self, name: str, content: Any) -> str:
        return super()._save(name, _Stalling(content, after=self.after, reached=self.reached))
