"""Render the OCR test images (run once by hand; Pillow is NOT a test dependency).

    python -m venv /tmp/pil && /tmp/pil/bin/pip install pillow
    /tmp/pil/bin/python tests/data/images/make_images.py

Font: DejaVu Sans (Debian's fonts-dejavu-core). The PNGs are committed; tests only read them.
"""

from pathlib import Path

HERE = Path(__file__).parent
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

IMAGES = {
    "hello.png": ["Hello Agent", "Invoice 2041 total 42"],
    "paragraph.png": [
        "The quick brown fox jumps over the lazy dog.",
        "Pack my box with five dozen liquor jugs.",
        "Sphinx of black quartz, judge my vow.",
        "How vexingly quick daft zebras jump.",
        "Bright vixens jump; dozy fowl quack.",
        "Waltz, bad nymph, for quick jigs vex.",
    ],
}


def render(lines: list[str], size: int = 32) -> "Image.Image":
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    width = max(int(font.getlength(line)) for line in lines) + 2 * size
    height = (len(lines) + 1) * int(size * 1.5)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((size, size // 2 + i * int(size * 1.5)), line, font=font, fill=0)
    return image


def main() -> None:
    from PIL import Image

    for name, lines in IMAGES.items():
        render(lines).save(HERE / name, optimize=True)
    Image.new("L", (200, 80), 255).save(HERE / "blank.png", optimize=True)
    (HERE / "not_an_image.png").write_bytes(b"this is text, not a PNG\n")


if __name__ == "__main__":
    main()
