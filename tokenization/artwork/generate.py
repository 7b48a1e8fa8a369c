"""Draw the default card art that ships with the project (PNG with an alpha channel), one set
per brand and one issuer logo, into tokenization/artwork/default/. Run it again only to change
the artwork: the files are committed, and a published asset never changes (a new file is a new
asset id).

    .venv/bin/python -m tokenization.artwork.generate
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from .brands import BRANDS

OUT = Path(__file__).resolve().parent / "default"
CARD = (768, 484)  # ISO/IEC 7810 ID-1 proportions (85.60 x 53.98 mm)
LOGO = (320, 128)
ICON = (128, 128)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _rounded_mask(size: tuple[int, int], radius: int) -> Image.Image:
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, size[0] - 1, size[1] - 1], radius, fill=255)
    return mask


def _gradient(
    size: tuple[int, int], top: tuple[int, int, int], bottom: tuple[int, int, int]
) -> Image.Image:
    image = Image.new("RGBA", size)
    draw = ImageDraw.Draw(image)
    for y in range(size[1]):
        t = y / max(size[1] - 1, 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        draw.line([(0, y), (size[0], y)], fill=(*colour, 255))
    return image


def _centered(
    draw: ImageDraw.ImageDraw, box: tuple[int, int], text: str, size: int, fill: tuple[int, ...]
) -> None:
    font = _font(size)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text(
        ((box[0] - (right - left)) / 2 - left, (box[1] - (bottom - top)) / 2 - top),
        text,
        font=font,
        fill=fill,
    )


def background(brand: str) -> Image.Image:
    name, top, bottom = BRANDS[brand]
    card = _gradient(CARD, top, bottom)
    highlight = Image.new("RGBA", CARD, (0, 0, 0, 0))
    ImageDraw.Draw(highlight).ellipse([430, -160, 980, 390], fill=(255, 255, 255, 28))
    card = Image.alpha_composite(card, highlight)
    draw = ImageDraw.Draw(card)
    draw.text((40, 36), "DEMO BANK", font=_font(34), fill=(255, 255, 255, 255))
    draw.rounded_rectangle([40, 180, 140, 250], 12, fill=(222, 190, 110, 255))  # the chip
    font = _font(44)
    right, bottom_edge = draw.textbbox((0, 0), name, font=font)[2:]
    draw.text(
        (CARD[0] - 40 - right, CARD[1] - 40 - bottom_edge),
        name,
        font=font,
        fill=(255, 255, 255, 255),
    )
    card.putalpha(_rounded_mask(CARD, 36))
    return card


def logo(text: str, colour: tuple[int, int, int]) -> Image.Image:
    image = Image.new("RGBA", LOGO, (0, 0, 0, 0))
    _centered(ImageDraw.Draw(image), LOGO, text, 44 if len(text) < 12 else 30, (*colour, 255))
    return image


def icon(brand: str) -> Image.Image:
    name, top, bottom = BRANDS[brand]
    image = _gradient(ICON, top, bottom)
    _centered(ImageDraw.Draw(image), ICON, name[:2].upper(), 56, (255, 255, 255, 255))
    image.putalpha(_rounded_mask(ICON, 28))
    return image


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    logo("DEMO BANK", (26, 77, 143)).save(OUT / "issuer-logo.png", optimize=True)
    for brand, (name, top, _bottom) in BRANDS.items():
        stem = brand.lower()
        background(brand).save(OUT / f"{stem}-background.png", optimize=True)
        logo(name, top).save(OUT / f"{stem}-logo.png", optimize=True)
        icon(brand).save(OUT / f"{stem}-icon.png", optimize=True)


if __name__ == "__main__":
    main()
