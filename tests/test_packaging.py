"""packaging/ and resources/: the icons match their SVG source and sizes, the app
uses them, the Linux launcher files agree with each other and with the app, and
the PyInstaller spec leaves out the Qt modules the studio never uses."""

from __future__ import annotations

import configparser
import importlib.util
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[1]
LINUX = ROOT / "packaging" / "linux"
APP_ID = "io.github.omnivoice_desktop.OmniVoiceDesktop"


def _render_module():
    spec = importlib.util.spec_from_file_location("render_icons", ROOT / "packaging" / "render_icons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_launcher_size_is_a_square_png(qapp):
    render = _render_module()
    assert render.SIZES == (16, 32, 48, 64, 128, 256, 512)
    for size in render.SIZES:
        image = QImage(str(ROOT / "resources" / "icons" / f"omnivoice-{size}.png"))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()  # rounded corners stay transparent
        assert image.pixelColor(0, 0).alpha() == 0


def test_committed_pngs_are_what_the_svg_renders(qapp, tmp_path):
    render = _render_module()
    written = render.render(target=tmp_path, sizes=(48, 128), ico=False)
    assert [p.name for p in written] == ["omnivoice-48.png", "omnivoice-128.png"]
    for path in written:
        fresh, committed = _pixels(path), _pixels(ROOT / "resources" / "icons" / path.name)
        # Qt's rasteriser rounds a few edge pixels by one level differently on CPUs with
        # and without AVX-512; a stale icon differs by far more.
        assert fresh.shape == committed.shape, f"{path.name} is stale: run packaging/render_icons.py"
        assert np.abs(fresh - committed).max() <= 1, \
            f"{path.name} is stale: run packaging/render_icons.py"


def _pixels(path: Path):
    image = QImage(str(path)).convertToFormat(QImage.Format.Format_ARGB32)
    data = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes()).astype(np.int16)
    return data.reshape(image.height(), image.bytesPerLine())


def test_the_app_icon_carries_every_size(qapp):
    from studio.app import app_icon

    icon = app_icon()
    assert icon is not None
    sizes = {(s.width(), s.height()) for s in icon.availableSizes()}
    assert {(n, n) for n in _render_module().SIZES} <= sizes


def test_desktop_entry_and_metainfo_agree():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(LINUX / f"{APP_ID}.desktop", encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"].split()[0] == "omnivoice-desktop"  # the pyproject script
    assert desktop["Type"] == "Application" and desktop["Terminal"] == "false"
    metainfo = ET.parse(LINUX / f"{APP_ID}.metainfo.xml").getroot()
    assert metainfo.findtext("id") == APP_ID
    assert metainfo.find("launchable").text == f"{APP_ID}.desktop"
    assert metainfo.findtext("provides/binary") == "omnivoice-desktop"
    assert metainfo.findtext("name") == desktop["Name"]
    # The window announces the same id, so the launcher groups its windows.
    assert f'setDesktopFileName("{APP_ID}")' in (ROOT / "studio" / "app.py").read_text()


def test_spec_excludes_unused_qt_and_bundles_the_audio_libraries():
    spec = (ROOT / "packaging" / "omnivoice-desktop.spec").read_text()
    for module in ("QtWebEngineCore", "Qt3DCore", "QtQuick", "QtQml", "QtMultimedia"):
        assert f'"{module}"' in spec
    assert "libportaudio" in spec and "_soundfile_data" in spec
    assert '(str(ROOT / "resources"), "resources")' in spec
    assert '(str(ROOT / "docs"), "docs")' in spec  # Help ▸ User guide
    assert "rthook_portaudio.py" in spec
    assert (ROOT / "packaging" / "rthook_portaudio.py").is_file()


def test_build_outputs_are_ignored():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "build/" in ignored and "dist/" in ignored


def test_the_wheel_holds_every_package_of_the_source_tree(tmp_path):
    # `pip install .` (the README's first command) installs the wheel, not the tree: a
    # package missing from pyproject's list (studio.scripts once) imports in the tests and
    # fails in the user's install.
    import subprocess
    import sys
    import zipfile

    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True, capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    shipped = {Path(name).parent.as_posix() for name in zipfile.ZipFile(wheel).namelist() if name.endswith("/__init__.py")}
    source = {p.parent.relative_to(ROOT).as_posix() for p in (ROOT / "studio").rglob("__init__.py")}
    assert source - shipped == set()
    # Help ▸ User guide reads the guide from the package, with its pictures and the pages
    # it links to (a review found only "not installed").
    import re

    names = set(zipfile.ZipFile(wheel).namelist())
    guide = (ROOT / "docs" / "user-guide.md").read_text("utf-8")
    linked = set(re.findall(r"\]\(((?:screenshots/)?[\w.-]+\.(?:md|png))", guide))
    assert "user-guide.md" in {Path(n).name for n in names} and linked
    assert {f"studio/docs/{name}" for name in linked | {"user-guide.md"}} <= names
