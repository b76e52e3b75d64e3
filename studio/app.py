"""The studio application: QApplication, settings, worker controller, player, main window.

``run(argv)`` shows the window first and then asks the worker to load the model,
so the studio is usable (Settings, typing) while the weights load on the worker
thread. ``aboutToQuit`` stops the worker cleanly before Qt tears anything down.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from importlib import resources
from pathlib import Path

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from studio.settings import APPLICATION, ORGANIZATION, Settings

log = logging.getLogger("studio.app")

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


def _log_qt_messages():
    """Qt's own warnings (a timer stopped from another thread, a failed style) go to the
    log file, where the error sentences point, instead of a terminal nobody reads.
    Returns the handler it replaced."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    qt_log = logging.getLogger("studio.qt")
    levels = {QtMsgType.QtDebugMsg: logging.DEBUG, QtMsgType.QtInfoMsg: logging.INFO,
              QtMsgType.QtWarningMsg: logging.WARNING, QtMsgType.QtCriticalMsg: logging.ERROR,
              QtMsgType.QtFatalMsg: logging.CRITICAL}

    def handler(kind, context, message) -> None:
        where = f" ({context.file}:{context.line})" if context.file else ""
        qt_log.log(levels.get(kind, logging.WARNING), "%s%s", message, where)

    return qInstallMessageHandler(handler)


def run(argv: list[str], *, log_path: Path | None = None, hooks=None) -> int:
    """Open the studio; returns the exit status of the event loop.

    ``log_path`` is the log file ``cli.main`` opened (with faulthandler writing into
    it); ``hooks`` its uncaught-exception hooks, which then also tell the status bar.
    """
    from PySide6.QtCore import qInstallMessageHandler

    from studio.crash import ABNORMAL_END, SessionMarker, abnormal_end_message
    from studio.garbage import MainThreadCollector
    from studio.paths import data_dir
    from studio.views.stop_signals import StopSignals

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
    previous_qt_handler = _log_qt_messages()
    marker = SessionMarker(data_dir())
    crashed_before = marker.begin()

    window = build_studio(app, Settings(), model=args.model)
    if hooks is not None:
        hooks.notify = window.report_uncaught
    window.show()
    if crashed_before:
        window.show_notice(ABNORMAL_END, details=abnormal_end_message(log_path))
    _attach_driver(window)
    window.load_model()  # queued to the worker thread; the window is already up
    collector = MainThreadCollector(app)
    collector.start()
    # A logout or shutdown (SIGTERM) quits as File ▸ Quit does: not a crash next time.
    stops = StopSignals(window.quit_now, app)
    try:
        code = app.exec()
    finally:
        stops.remove()
        collector.stop()
        qInstallMessageHandler(previous_qt_handler)
    stopped = window.shutdown()  # ran at aboutToQuit; this reads its answer
    marker.end()  # a clean quit: the next start has nothing to report
    if not stopped:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """The worker is still inside a step it cannot leave (a model load, a transcription,
    one slow step): end the process now rather than make the user wait, or let Qt abort
    on a running thread. Everything on disk was written atomically; the log is flushed."""
    log.warning("the worker thread did not stop in time; ending the process")
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _attach_driver(window) -> None:
    """Journey tests act as the user through a driver script that OMNIVOICE_DESKTOP_DRIVER
    names (tests/journeys/driver.py); without the variable nothing is loaded."""
    path = os.environ.get(DRIVER_ENV)
    if not path:
        return
    import importlib.util

    spec = importlib.util.spec_from_file_location("omnivoice_journey_driver", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    window._journey_driver = module.attach(window)


def build_studio(app: QApplication, settings: Settings, model: str | None = None):
    """The main window with its worker controller and player, wired so that quitting
    the application saves what the user has and stops the worker thread."""
    from studio.audio.player import Player
    from studio.views.main_window import MainWindow
    from studio.worker.controller import WorkerController

    controller = WorkerController()
    # Parented: Qt owns the player, so no garbage collection can destroy it mid-session.
    player = Player(app)
    window = MainWindow(settings, controller, player, model_override=model)
    app.aboutToQuit.connect(window.shutdown)
    return window
