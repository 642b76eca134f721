"""Draws MCP Sieve's app icon and writes it at the sizes Tauri bundles.

A sieve: many dots above a funnel, one below it. Run once when the icon
changes (needs Pillow: `pip install pillow`), then commit icons/:

    python3 scripts/make-icons.py
"""

from pathlib import Path

from PIL import Image, ImageDraw

SIZE = 1024
OUT = Path(__file__).resolve().parent.parent / "icons"


def draw() -> Image.Image:
    image = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    d = ImageDraw.Draw(image)
    # Background: a rounded square, teal fading to deep blue.
    top, bottom = (18, 138, 140), (24, 62, 120)
    mask = Image.new("L", (SIZE, SIZE), 0)
    ImageDraw.Draw(mask).rounded_rectangle((40, 40, SIZE - 40, SIZE - 40), radius=200, fill=255)
    gradient = Image.new("RGBA", (SIZE, SIZE))
    g = ImageDraw.Draw(gradient)
    for y in range(SIZE):
        t = y / (SIZE - 1)
        colour = tuple(round(a + (b - a) * t) for a, b in zip(top, bottom))
        g.line([(0, y), (SIZE, y)], fill=colour + (255,))
    image.paste(gradient, (0, 0), mask)
    white = (255, 255, 255, 255)
    faint = (255, 255, 255, 150)
    # Many tools above...
    for row, y in enumerate((190, 270)):
        for i in range(6 - row):
            x = 262 + row * 50 + i * 100
            d.ellipse((x - 30, y - 30, x + 30, y + 30), fill=faint)
    # ...a funnel with a mesh...
    d.polygon([(200, 350), (824, 350), (572, 640), (452, 640)], fill=white)
    for x in (330, 450, 574, 694):
        d.line([(x, 370), (512 + (x - 512) * 0.35, 620)], fill=(24, 100, 130, 255), width=14)
    d.rectangle((452, 640, 572, 720), fill=white)
    # ...and the one the host sees below.
    d.ellipse((472, 770, 552, 850), fill=white)
    return image


def main() -> None:
    OUT.mkdir(exist_ok=True)
    icon = draw()
    for name, size in {
        "32x32.png": 32,
        "64x64.png": 64,
        "128x128.png": 128,
        "128x128@2x.png": 256,
        "icon.png": 512,
    }.items():
        icon.resize((size, size), Image.LANCZOS).save(OUT / name)
    icon.save(OUT / "icon.ico", sizes=[(16, 16), (32, 32), (48, 48), (256, 256)])


if __name__ == "__main__":
    main()
