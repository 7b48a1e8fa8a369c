"""The default card art of every brand, from the PNG files of artwork/default/ (drawn by
artwork/generate.py), published as assets: used by the data migration that installs them."""

import hashlib
from pathlib import Path
from typing import Any

from .brands import BRANDS
from .png import png_size

DEFAULT = Path(__file__).resolve().parent / "default"
ISSUER_NAME = "Demo Bank"


def asset_id(contents: list[tuple[str, bytes]]) -> str:
    """An asset's id: the SHA-256 of its media contents (so new artwork is a new id)."""
    digest = hashlib.sha256()
    for media_type, data in contents:
        digest.update(media_type.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def publish_file(asset_model: Any, content_model: Any, name: str, description: str) -> Any:
    data = (DEFAULT / name).read_bytes()
    width, height = png_size(data)
    key = asset_id([("image/png", data)])
    asset, created = asset_model.objects.get_or_create(
        pk=key, defaults={"description": description}
    )
    if created:
        content_model.objects.create(
            asset=asset, type="image/png", data=data, width=width, height=height, position=0
        )
    return asset


def install(asset_model: Any, content_model: Any, card_art_model: Any) -> None:
    """Publish the default artwork and give every brand its default card art (kept when a brand
    has one already)."""
    issuer_logo = publish_file(asset_model, content_model, "issuer-logo.png", "Demo Bank logo")
    for brand, (name, _top, _bottom) in BRANDS.items():
        stem = brand.lower()
        if card_art_model.objects.filter(brand=brand, bin_from="").exists():
            continue
        card_art_model.objects.create(
            name=f"{name} default",
            brand=brand,
            issuer_name=ISSUER_NAME,
            short_description=f"{ISSUER_NAME} {name}",
            foreground_color="FFFFFF",
            brand_logo=publish_file(asset_model, content_model, f"{stem}-logo.png", f"{name} logo"),
            issuer_logo=issuer_logo,
            icon=publish_file(asset_model, content_model, f"{stem}-icon.png", f"{name} icon"),
            card_background_combined=publish_file(
                asset_model, content_model, f"{stem}-background.png", f"{name} card background"
            ),
        )
