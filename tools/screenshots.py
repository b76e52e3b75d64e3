"""Render every view of the studio offscreen to PNG (the README's screenshots).

    python tools/screenshots.py [OUT_DIR]      (default: docs/screenshots)

It runs the real studio (worker thread, engine) on a tiny random checkpoint in a
temporary data folder, renders one take so the takes panel is not empty, and
grabs the main window on each view. Then it renders a batch of three takes, stars,
renames and annotates one through the worker, and grabs the takes panel
(studio-takes.png) and the A/B view of two takes (studio-ab.png). One take with a
clipped signal is added to the library first, so a suspect badge shows; its badges
come from the real detector.
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
    add_clipped_take(work / "data", str(checkpoint))
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
    shoot_takes(app, window, controller, out, wait_for)
    player.close()
    controller.shutdown()
    return 0


def add_clipped_take(folder: Path, model_source: str) -> None:
    """A take whose render came out overdriven: what a suspect badge is for."""
    import numpy as np

    from studio import __version__
    from studio.library.suspect import inspect
    from studio.library.takes import TakeLibrary, TakeRun, TakeSettings

    rate = 24000
    t = np.arange(int(2.4 * rate)) / rate
    envelope = (np.sin(2 * np.pi * 1.1 * t) > -0.4).astype(np.float32)
    audio = np.clip(1.8 * np.sin(2 * np.pi * 170 * t) * envelope, -1, 1).astype(np.float32)
    settings = TakeSettings(
        text="Tickets for the late show are sold out.", language="en", instruct="male, low pitch",
        mode="design", voice_id=None, reference_path=None, reference_sha256=None, ref_text=None,
        preprocess=True, speed=None, duration=None, seed=3141,
        options={"decode": {"num_step": 16, "guidance_scale": 2.0, "t_shift": 0.1}})
    run = TakeRun(model_source=model_source, device="cpu", precision="fp32",
                  accel_requested="off", accel_active="off", fallback_reason=None,
                  engine_version=__version__, seconds=1.1, rtf=0.46)
    with TakeLibrary(folder) as library:
        library.add(settings, run, audio, rate, batch="clipped", suspects=inspect(audio, rate))


def shoot_takes(app, window, controller, out: Path, wait_for) -> None:
    """The takes panel with a batch of three (one starred, renamed, with notes) and the
    A/B view of two of them."""
    from PySide6.QtCore import QElapsedTimer

    from studio.views.ab_view import ABDialog

    def settle(done, ms=30_000) -> None:
        clock = QElapsedTimer()
        clock.start()
        while not done() and clock.elapsed() < ms:
            app.processEvents()

    form = window.designView.form
    form.set_text("Good evening. The last train to Edinburgh leaves at half past nine.")
    form.takesSpin.setValue(3)
    form.generateButton.click()
    wait_for(controller.worker.finished)
    panel = window.takesPanel
    settle(lambda: panel.model.rowCount() >= 5)
    batch = [panel.model.take(r) for r in range(3)]
    keeper = batch[1]
    controller.star_take(keeper.id, True)
    controller.rename_take(keeper.id, "Warm read, keep")
    controller.note_take(keeper.id, "Best pacing; slight breath before 'Edinburgh'.")
    clipped = panel.model.take(4)
    controller.note_take(clipped.id, "Overdriven: render again at a lower guidance.")
    settle(lambda: panel.model.take(4).notes != "")
    panel.select_ids([clipped.id])  # its badges explained; the starred row shows its star
    panel.waveform.seek_requested.emit(panel.waveform.duration() * 0.4)
    window.resize(1280, 900)  # room for all five takes without scrolling
    window.splitter.setSizes([window.width() - 176 - 400, 400])
    app.processEvents()
    panel.list.scrollToTop()
    path = out / "studio-takes.png"
    panel.grab().save(str(path))
    print(path)

    panel.select_ids([batch[0].id, keeper.id])
    panel.compare()
    dialog = panel.findChild(ABDialog)
    dialog.view.select(1)
    dialog.view.waveform.seek_requested.emit(dialog.view.waveform.duration() * 0.4)
    app.processEvents()
    path = out / "studio-ab.png"
    dialog.grab().save(str(path))
    print(path)
    dialog.close()


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/screenshots")))
