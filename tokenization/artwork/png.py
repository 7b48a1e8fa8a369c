"""What a published PNG must be: a real PNG (Pillow decodes it), with an alpha channel, of a
sensible size."""

import io

from core.errors import ApplicationError

from ..results import ARTWORK_INVALID

MAX_BYTES = 2 * 1024 * 1024
MAX_SIDE = 4096
MIN_SIDE = 16


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a valid card-art PNG; otherwise refused with 700.150.500, the
    description saying what is wrong ("is not a PNG image")."""
    if len(data) > MAX_BYTES:
        raise _refused(f"is larger than {MAX_BYTES // 1024} KiB")
    # Pillow only when an image is checked: a process that never checks one (a worker, the
    # daily file) does without its 4 MiB.
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            fmt, mode, size = image.format, image.mode, image.size
            has_alpha = mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise _refused("is not a PNG image") from exc
    if fmt != "PNG":
        raise _refused(f"is a {fmt} image, not a PNG")
    if not has_alpha:
        raise _refused("has no alpha channel (card art is drawn over other content)")
    width, height = size
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise _refused(f"is {width}x{height}: each side must be {MIN_SIDE} to {MAX_SIDE} pixels")
    return width, height


def _refused(what: str) -> ApplicationError:
    return ApplicationError(ARTWORK_INVALID, what)
