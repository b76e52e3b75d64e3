"""Render every view of the studio offscreen to PNG (the README's screenshots).

    python tools/screenshots.py [OUT_DIR]      (default: docs/screenshots)

It runs the real studio (worker thread, engine) on a tiny random checkpoint in a
temporary data folder, renders one take so the takes panel is not empty, and
grabs the main window on each view. Then it renders a batch of three takes, stars,
renames and annotates one through the worker, and grabs the takes panel
(studio-takes.png) and the A/B view of two takes (studio-ab.png). Three demo takes
are added to the library first: a clipped one, so a suspect badge shows, and two
speech-like reads 10 dB apart for the A/B view (the random model renders noise,
which the detector rightly calls loud); all badges come from the real detector.
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
    from studio.worker.job import Job

    checkpoint = build_random_checkpoint(work / "OmniVoice")
    reads = add_demo_takes(work / "data", str(checkpoint))
    settings = Settings(QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat), environ={})
    for key, value in (("model/source", str(checkpoint)), ("model/device", "cpu"),
                       ("model/precision", "fp32")):
        settings.set_value(key, value)
    controller = WorkerController()
    player = Player()
    window = MainWindow(settings, controller, player)
    window.resize(1366, 768)  # a laptop screen (issue 25): what most people see first
    window.show()

    def wait_for(signal, ms=120_000) -> None:
        """``signal``, or a job (from a click: the controller's newest): until it ends."""
        if signal is controller:
            signal = max(controller.findChildren(Job), key=lambda job: job.number).ended
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    window.load_model()
    wait_for(controller.worker.model_loaded)
    shoot_voices(app, window, controller, out, wait_for, work)
    window.show_view("design")
    window.designView.form.set_text("Good evening. The last train to Edinburgh leaves at half past nine.")
    window.designView.attributes.set_description("an elderly woman with a british accent")
    window.designView.form.set_preset("Draft")
    window.designView.form.generateButton.click()
    wait_for(controller)
    window.cloneView.form.set_text("Welcome back to the show.")
    for name in ("clone", "design", "settings"):
        window.show_view(name)
        app.processEvents()
        path = out / f"studio-{name}.png"
        window.grab().save(str(path))
        print(path)
    shoot_script(app, window, controller, out, wait_for, work)
    shoot_takes(app, window, controller, out, wait_for, reads)
    player.close()
    controller.shutdown()
    return 0


def speech_like(seconds: float, lufs: float, seed: int):
    """A voiced signal with syllable bursts and pauses, scaled to ``lufs``: what a
    render of the real model looks like on a waveform (the tiny random model gives noise)."""
    import numpy as np

    from studio.sound.loudness import loudness_lufs

    rate, rng = 24000, np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    f0 = 135 + 25 * np.sin(2 * np.pi * 0.7 * t + seed)
    phase = 2 * np.pi * np.cumsum(f0) / rate
    voiced = sum(np.sin(k * phase) / k for k in range(1, 12))
    syllables = np.clip(np.sin(2 * np.pi * 3.8 * t + rng.uniform(0, 6)), 0, None) ** 0.6
    pauses = (np.sin(2 * np.pi * 0.45 * t + seed) > -0.7).astype(float)
    audio = (voiced * syllables * pauses).astype(np.float32)
    audio *= 10 ** ((lufs - loudness_lufs(audio, rate)) / 20)
    return audio, rate


def add_demo_takes(folder: Path, model_source: str) -> list[str]:
    """An overdriven take (what a suspect badge is for) and two reads of one line at
    different levels (what the A/B view's loudness matching is for). Their badges come
    from the real detector. Returns the ids of the two reads."""
    import numpy as np

    from studio import __version__
    from studio.library.suspect import inspect
    from studio.library.take_record import TakeRun, TakeSettings
    from studio.library.takes import TakeLibrary

    def add(library, text, audio, rate, seed, batch, instruct):
        settings = TakeSettings(
            text=text, language="en", instruct=instruct, mode="design", voice_id=None,
            reference_path=None, reference_sha256=None, ref_text=None, preprocess=True,
            speed=None, duration=None, seed=seed,
            options={"decode": {"num_step": 16, "guidance_scale": 2.0, "t_shift": 0.1}})
        run = TakeRun(model_source=model_source, device="cpu", precision="bf16",
                      accel_requested="off", accel_active="off", fallback_reason=None,
                      engine_version=__version__, seconds=1.1, rtf=0.46)
        return library.add(settings, run, audio, rate, batch=batch, suspects=inspect(audio, rate))

    rate = 24000
    t = np.arange(int(2.4 * rate)) / rate
    envelope = (np.sin(2 * np.pi * 1.1 * t) > -0.4).astype(np.float32)
    clipped = np.clip(1.8 * np.sin(2 * np.pi * 170 * t) * envelope, -1, 1).astype(np.float32)
    line = "Your table for two is ready, right this way."
    with TakeLibrary(folder) as library:
        add(library, "Tickets for the late show are sold out.", clipped, rate, 3141, "clipped",
            "male, low pitch")
        reads = [add(library, line, *speech_like(3.2, lufs, seed), seed, "reads", "female, young adult")
                 for lufs, seed in ((-19.0, 7), (-29.0, 8))]
        library.rename(reads[0].id, "Close and bright")
        library.rename(reads[1].id, "Softer, further back")
    return [r.id for r in reads]


VOICES = (  # name, tags, transcript: a library a studio user might have after a month
    ("Narrator, warm", "narrator, calm", "It was the best of times, it was the worst of times."),
    ("Narrator, brisk", "narrator", "Chapter one. The harbour was empty by nine."),
    ("News anchor", "news", "Good evening, here are tonight's headlines."),
    ("Podcast host", "podcast, casual", "Welcome back, everyone, to another episode."),
    ("Grandma Rose", "family, elderly", "Come in, dear, the kettle's on."),
    ("Sam (me)", "me", "This is my own voice, recorded at my desk."),
    ("Trailer voice", "promo, deep", "In a world where nothing is as it seems."),
    ("Audiobook narrator", "narrator, audiobook", "She closed the book and looked outside."),
    ("Tutor", "education, calm", "Let's work through the second example together."),
    ("Game NPC blacksmith", "game", "Bring me iron and I'll make you a blade."),
    ("Customer support", "support, friendly", "Thanks for calling, how can I help today?"),
    ("Whispered ASMR", "asmr, whisper", "Relax your shoulders and breathe slowly."),
)


def shoot_voices(app, window, controller, out: Path, wait_for, work: Path) -> None:
    """The Voices view empty, with a dozen saved voices, and with a search active."""
    import soundfile as sf

    from studio.service.requests import VoiceSaveRequest

    window.show_view("voices")
    app.processEvents()
    for name, grab in (("voices-empty", window),):
        grab.grab().save(str(out / f"studio-{name}.png"))
        print(out / f"studio-{name}.png")
    clips = work / "clips"
    clips.mkdir(exist_ok=True)
    for n, (name, tags, text) in enumerate(VOICES):
        audio, rate = speech_like(3.0 + (n % 5), -20.0, seed=40 + n)
        clip = clips / f"voice-{n}.wav"
        sf.write(clip, audio, rate)
        wait_for(controller.save_voice(VoiceSaveRequest(name, clip, text, tags=tuple(
            t.strip() for t in tags.split(",")))).ended)
    app.processEvents()
    view = window.voicesView
    view.refresh(select=view.model.entry(0).voice.id)
    app.processEvents()
    window.grab().save(str(out / "studio-voices.png"))
    print(out / "studio-voices.png")
    view.searchEdit.setText("narrator")
    app.processEvents()
    window.grab().save(str(out / "studio-voices-search.png"))
    print(out / "studio-voices-search.png")
    view.searchEdit.clear()

    # Trimming a long clip on its waveform, in the Clone view.
    audio, rate = speech_like(14.0, -20.0, seed=7)
    long_clip = clips / "interview excerpt.wav"
    sf.write(long_clip, audio, rate)
    window.show_view("clone")
    panel = window.cloneView.reference
    panel.set_reference(long_clip)
    panel.refTextEdit.setPlainText("So the first thing I did was call my sister.")
    panel.waveform.set_selection((2.0, 6.5))
    app.processEvents()
    window.cloneView.grab().save(str(out / "studio-trim.png"))
    print(out / "studio-trim.png")
    panel.set_reference(None)


SCRIPT = """# Chapter one
Narrator: The harbour was empty by nine, and the fog came in low.
Mara: Is anyone there? I can hear the bell.
Tom: Only me. The ferry is not coming tonight.
Mara: Then we wait for the morning boat.

Narrator: They sat on the wall and watched the lights go out one by one.
Tom: I brought tea, if you want some.
Mara: Thank you. It is colder than I thought.
"""


def shoot_script(app, window, controller, out: Path, wait_for, work: Path) -> None:
    """The Script view: a three-speaker dialogue (one a saved voice, two described),
    mid-render (studio-script-rendering.png) and rendered (studio-script.png)."""
    view = window.scriptView
    window.show_view("script")
    script = work / "harbour.md"
    script.write_text(SCRIPT, encoding="utf-8")
    view.pathEdit.setText(str(script))
    view.open_path()
    for name, voice in (("Narrator", "Saved voice: Narrator, warm"),
                        ("Mara", "female, young adult, british accent"),
                        ("Tom", "male, middle-aged, low pitch")):
        view.speakerCombo.setCurrentIndex(view.speakerCombo.findText(name))
        if voice.startswith("Saved voice: "):
            view.voiceCombo.setCurrentIndex(view.voiceCombo.findText(voice))
            view.voiceCombo.activated.emit(view.voiceCombo.currentIndex())
        else:
            view.instructEdit.setText(voice)
            view.instructEdit.editingFinished.emit()
    view.presetCombo.setCurrentText("Draft")
    shots = []

    def mid_render(done) -> None:
        if done.index == 2 and not shots:  # a few lines in: some done, one rendering
            app.processEvents()
            shots.append(out / "studio-script-rendering.png")
            window.grab().save(str(shots[0]))

    controller.job_started.connect(lambda job: job.line.connect(mid_render))
    view.renderAllButton.click()
    wait_for(controller)
    app.processEvents()
    view.select_row(2)
    app.processEvents()
    window.grab().save(str(out / "studio-script.png"))
    print(*shots, out / "studio-script.png", sep="\n")
    view.close_project()


def shoot_takes(app, window, controller, out: Path, wait_for, reads: list[str]) -> None:
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
    wait_for(controller)
    panel = window.takesPanel
    settle(lambda: panel.model.rowCount() >= 7)
    batch = [panel.model.take(r) for r in range(3)]
    keeper = batch[1]
    controller.star_take(keeper.id, True)
    controller.rename_take(keeper.id, "Warm read, keep")
    controller.note_take(keeper.id, "Best pacing; slight breath before 'Edinburgh'.")
    takes = [panel.model.take(r) for r in range(panel.model.rowCount())]
    clipped = next(t for t in takes if t.settings.seed == 3141)
    controller.note_take(clipped.id, "Overdriven: render again at a lower guidance.")
    settle(lambda: any(panel.model.take(r).notes.startswith("Overdriven")
                       for r in range(panel.model.rowCount())))
    panel.select_ids([clipped.id])  # its badges explained; the starred row shows its star
    panel.waveform.seek_requested.emit(panel.waveform.duration() * 0.4)
    window.resize(1280, 1040)  # room for all seven takes without scrolling
    window.splitter.setSizes([window.width() - 176 - 400, 400])
    app.processEvents()
    panel.list.scrollToTop()
    path = out / "studio-takes.png"
    panel.grab().save(str(path))
    print(path)

    panel.select_ids(reads)  # two reads 10 dB apart: the A/B view plays them matched
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
