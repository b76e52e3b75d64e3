"""The studio application: QApplication, settings, worker controller, player, main window.

``run(argv)`` shows the window first and then asks the worker to load the model,
so the studio is usable (Settings, typing) while the weights load on the worker
thread. ``aboutToQuit`` stops the worker cleanly before Qt tears anything down.
"""

from __future__ import annotations

import argparse
from importlib import resources
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from studio.settings import APPLICATION, ORGANIZATION, Settings

DRIVER_ENV = "OMNIVOICE_DESKTOP_DRIVER"
ICON_NAMES = ("omnivoice.svg", "icon.svg", "omnivoice.png", "icon.png")


def parse_args(args: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="omnivoice-desktop", add_help=False)
    parser.add_argument("--model", default=None,
                        help="checkpoint folder or repo id for this session (not saved)")
    known, _qt_and_other = parser.parse_known_args(args)
    return known


def app_icon() -> QIcon | None:
    """The app icon from the resources, if one ships (installed package or checkout)."""
    folders = []
    try:
        folders.append(resources.files("studio.resources"))
    except ModuleNotFoundError:
        pass
    folders.append(Path(__file__).resolve().parents[1] / "resources")
    for folder in folders:
        for name in ICON_NAMES:
            candidate = folder.joinpath(name)
            if candidate.is_file():
                # Prefer the PNGs rendered from the SVG (packaging/render_icons.py):
                # they need no SVG plugin, which a frozen build may leave out.
                sizes = folder.joinpath("icons")
                pngs = sorted(p.name for p in sizes.iterdir() if p.name.endswith(".png")) \
                    if sizes.is_dir() else []
                icon = QIcon() if pngs else QIcon(str(candidate))
                for png in pngs:
                    icon.addFile(str(sizes.joinpath(png)))
                return icon
    return None


def _log_to_file() -> None:
    from studio import logfile

    logfile.attach()  # size-bounded, rolls over (studio/logfile.py)


def run(argv: list[str]) -> int:
    """Open the studio; returns the exit status of the event loop."""
    app = QApplication.instance() or QApplication(list(argv))
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationDisplayName(APPLICATION)
    app.setDesktopFileName("io.github.omnivoice_desktop.OmniVoiceDesktop")  # packaging/linux/*.desktop
    icon = app_icon()
    if icon is not None:
        app.setWindowIcon(icon)
    # Qt's own options (-style fusion, -platform ...) are left to Qt.
    args = parse_args(list(argv[1:]))
    _log_to_file()

    window = build_studio(app, Settings(), model=args.model)
    window.show()
    _attach_driver(window)
    window.load_model()  # queued to the worker thread; the window is already up
    return app.exec()


def _attach_driver(window) -> None:
    """Journey tests act as the user through a driver script that OMNIVOICE_DESKTOP_DRIVER
    names (tests/journeys/driver.py); without the variable nothing is loaded."""
    import os

    path = os.environ.get(DRIVER_ENV)
    if not path:
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location("omnivoice_journey_driver", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    window._journey_driver = module.attach(window)


def build_studio(app: QApplication, settings: Settings, model: str | None = None):
    """The main window with its worker controller and player, wired so that
    quitting the application stops the worker thread and closes audio streams."""
    from studio.audio.player import Player
    from studio.views.main_window import MainWindow
    from studio.worker.controller import WorkerController

    controller = WorkerController()
    player = Player()
    app.aboutToQuit.connect(controller.shutdown)
    app.aboutToQuit.connect(player.close)
    return MainWindow(settings, controller, player, model_override=model)
