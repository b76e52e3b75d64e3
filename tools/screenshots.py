"""Render every view of the studio offscreen to PNG (the README's screenshots).

    python tools/screenshots.py [OUT_DIR]      (default: docs/screenshots)

It runs the real studio (worker thread, engine) on a tiny random checkpoint in a
temporary data folder, renders one take so the takes panel is not empty, and
grabs the main window on each view.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout


def main(out: Path) -> int:
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="omnivoice-shots-"))
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = str(work / "data")
    app = QApplication.instance() or QApplication([])

    from studio.audio.player import Player
    from studio.engine.random_checkpoint import build_random_checkpoint
    from studio.settings import Settings
    from studio.views.main_window import MainWindow
    from studio.worker.controller import WorkerController

    checkpoint = build_random_checkpoint(work / "OmniVoice")
    settings = Settings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat), environ={})
    for key, value in (("model/source", str(checkpoint)), ("model/device", "cpu"),
                       ("model/precision", "fp32")):
        settings.set_value(key, value)
    controller = WorkerController()
    player = Player()
    window = MainWindow(settings, controller, player)
    window.resize(1280, 800)
    window.show()

    def wait_for(signal, ms=120_000) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    window.load_model()
    wait_for(controller.worker.model_loaded)
    window.show_view("design")
    window.designView.form.set_text("Good evening. The last train to Edinburgh leaves at half past nine.")
    window.designView.attributes.set_description("an elderly woman with a british accent")
    window.designView.form.set_preset("Draft")
    window.designView.form.generateButton.click()
    wait_for(controller.worker.finished)
    window.cloneView.form.set_text("Welcome back to the show.")
    for name in ("clone", "design", "settings"):
        window.show_view(name)
        app.processEvents()
        path = out / f"studio-{name}.png"
        window.grab().save(str(path))
        print(path)
    player.close()
    controller.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
