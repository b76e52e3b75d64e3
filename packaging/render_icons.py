"""Render resources/omnivoice.svg to the PNG sizes launchers use.

    python packaging/render_icons.py   # resources/icons/omnivoice-<N>.png + resources/omnivoice.ico

Uses QtSvg from PySide6 (already a dependency), offscreen, so no other tool is
needed. Run it again after editing the SVG; the PNGs are committed so a build
never depends on an SVG renderer.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SIZES = (16, 32, 48, 64, 128, 256, 512)
ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "omnivoice.svg"
TARGET = ROOT / "resources" / "icons"


def render(source: Path = SOURCE, target: Path = TARGET, sizes=SIZES,
           ico: bool = True) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # QtSvg needs one
    renderer = QSvgRenderer(str(source))
    if not renderer.isValid():
        raise SystemExit(f"{source} is not a valid SVG")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = target / f"omnivoice-{size}.png"
        if not image.save(str(path)):
            raise SystemExit(f"could not write {path}")
        written.append(path)
        if size == 256 and ico:
            # Windows wants an .ico for the executable (PyInstaller's icon=).
            if not image.save(str(target.parent / "omnivoice.ico"), "ICO"):
                raise SystemExit("could not write omnivoice.ico")
            written.append(target.parent / "omnivoice.ico")
    return written


if __name__ == "__main__":
    for path in render():
        print(path.relative_to(ROOT))
