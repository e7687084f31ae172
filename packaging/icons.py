#!/usr/bin/env python3
"""Make the Windows and macOS icons from packaging/mediadesk.svg: ``python packaging/icons.py``.

Writes ``packaging/mediadesk.ico`` (16, 24, 32, 48, 64, 128 and 256 px, PNG-compressed frames: what
Explorer shows from a list row to a large tile) and ``packaging/mediadesk.icns`` (32 to 1024 px, with
the Retina variants). Each size is rendered from the SVG with Qt (QtSvg, as mediadesk.png was), so
small sizes are drawn, not shrunk from a bitmap; without QtSvg it falls back to shrinking
packaging/mediadesk.png (256 px) with Pillow. Pillow (the ``package`` extra) writes both files.
Run it after changing the SVG and commit the two files (the spec uses them; it does not make them).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from PIL import Image

PKG = Path(__file__).resolve().parent
SVG = PKG / "mediadesk.svg"
PNG = PKG / "mediadesk.png"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
#: what Pillow's ICNS writer stores (ic11..ic14 are the @2x variants of 16..512)
ICNS_SIZES = (32, 64, 128, 256, 512, 1024)


def render_svg(svg: Path, size: int) -> Image.Image | None:
    """``svg`` drawn at ``size`` x ``size`` (RGBA), or None when QtSvg is not available."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6.QtCore import QByteArray
        from PySide6.QtGui import QGuiApplication, QImage, QPainter
        from PySide6.QtSvg import QSvgRenderer
    except ImportError:
        return None
    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(QByteArray(svg.read_bytes()))
    if not renderer.isValid():
        return None
    image = QImage(size, size, QImage.Format.Format_RGBA8888)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = bytes(image.constBits())[: image.sizeInBytes()]
    return Image.frombuffer("RGBA", (size, size), data, "raw", "RGBA", image.bytesPerLine(), 1).copy()


def frames(sizes: tuple[int, ...]) -> list[Image.Image]:
    out = []
    for size in sizes:
        image = render_svg(SVG, size)
        if image is None:
            image = Image.open(PNG).convert("RGBA").resize((size, size), Image.Resampling.LANCZOS)
        out.append(image)
    return out


def write_ico(path: Path) -> None:
    images = frames(ICO_SIZES)
    largest = images[-1]
    largest.save(path, format="ICO", sizes=[(s, s) for s in ICO_SIZES], append_images=images[:-1])


def write_icns(path: Path) -> None:
    images = frames(ICNS_SIZES)
    largest = images[-1]
    largest.save(path, format="ICNS", append_images=images[:-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PKG, help="folder to write into (default: packaging/)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, write in (("mediadesk.ico", write_ico), ("mediadesk.icns", write_icns)):
        write(args.out / name)
        print(f"wrote {args.out / name} ({(args.out / name).stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
