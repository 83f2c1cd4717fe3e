"""Draws the installed app's icons (web/icons/*.png, committed) from the favicon's design: a white
card with a red diamond on the felt green. Run again after changing the design:
``python scripts/make_icons.py`` (needs Pillow, which the dev install brings)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

ICONS = Path(__file__).resolve().parents[1] / "src" / "kseri" / "web" / "icons"
FELT = (13, 92, 58)
RED = (200, 16, 46)
WHITE = (255, 255, 255)


def draw(size: int, *, maskable: bool) -> Image.Image:
    """The icon at ``size`` pixels; a maskable one keeps the card inside the central safe circle
    (80% of the side) on a full-bleed felt background, the other is a rounded felt tile."""
    scale = 4  # drawn large, then reduced: smooth edges
    side = size * scale
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, side, side), fill=FELT)
        card_height = side * 0.56
    else:
        pen.rounded_rectangle((0, 0, side - 1, side - 1), radius=side * 0.18, fill=FELT)
        card_height = side * 0.74
    card_width = card_height * 44 / 56
    left, top = (side - card_width) / 2, (side - card_height) / 2
    card = (left, top, left + card_width, top + card_height)
    pen.rounded_rectangle(card, radius=card_width * 0.14, fill=WHITE)
    cx, cy = side / 2, side / 2
    half_w, half_h = card_width * 13 / 44, card_height * 16 / 56
    pen.polygon([(cx, cy - half_h), (cx + half_w, cy), (cx, cy + half_h), (cx - half_w, cy)], fill=RED)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    """Write icon-192.png, icon-512.png and icon-maskable-512.png."""
    ICONS.mkdir(exist_ok=True)
    draw(192, maskable=False).save(ICONS / "icon-192.png", optimize=True)
    draw(512, maskable=False).save(ICONS / "icon-512.png", optimize=True)
    draw(512, maskable=True).save(ICONS / "icon-maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
