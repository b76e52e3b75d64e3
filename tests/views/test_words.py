"""Words people use (issue 25, findings 9 and 13): no seeds, RTF, docs paths, CLI flags,
hashes or the app's folders in what the window shows; names instead, and file dialogs
that open where the user was."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLabel,
    QLineEdit,
)
from studio_fakes import (
    CPU_ONLY,
    PLAYABLE,
    FakeController,
    FakePlayer,
    make_result,
    make_settings,
    save_result,
)

from studio.library.takes import TakeLibrary
from studio.paths import data_dir
from studio.sound.files import write_audio_atomic
from studio.views import file_dialogs
from studio.views.main_window import MainWindow
from studio.views.script_lines_model import STATUS, LineRow, ScriptLinesModel
from studio.views.takes_model import real_time_text
from studio.views.words import clip_name, start_folder
from tests.library.library_helpers import make_prompt, write_clip

ENGINEER_WORDS = ("seed", "RTF", "docs/", "--", "suspect", "stale", "To editor")


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(make_settings(tmp_path / "settings.ini"), FakeController(), FakePlayer(),
                        audio_status=PLAYABLE, accel_probe=lambda: CPU_ONLY)
    qtbot.addWidget(window)
    yield window
    window.voicesView.close_library()


def shown_texts(window) -> list[str]:
    """Every word a person can read without hovering: labels, buttons, fields, combos."""
    texts = [w.text() for w in window.findChildren(QLabel)]
    texts += [w.text() for w in window.findChildren(QAbstractButton)]
    texts += [w.placeholderText() for w in window.findChildren(QLineEdit)]
    for combo in window.findChildren(QComboBox):
        texts += [combo.itemText(i) for i in range(combo.count())]
    for menu_action in window.menuBar().actions():
        texts += [a.text() for a in menu_action.menu().actions()]
    return [t for t in texts if t]


def test_the_window_has_no_engineer_words(window, qtbot):
    with TakeLibrary() as library:  # a finished render: the takes and the status line too
        result = save_result(library, make_result("Hello there.", "design", seeds=(1211874011,)))
    window.designView.form.set_text("Hello there.")
    window.designView.form.generateButton.click()
    window._controller.named("render")[-1][1].report("done", result)
    window.designView.form.advanced.set_expanded(True)
    said = [t for t in shown_texts(window) if any(w in t for w in ENGINEER_WORDS)]
    assert said == []
    status = window.statusBarWidget.messageLabel.text()
    assert "× real time" in status and "RTF" not in status


def test_real_time_is_a_speed():
    assert real_time_text(0.25) == "4.0× real time"
    assert real_time_text(2.0) == "0.5× real time"
    assert real_time_text(0.0) == "speed unknown"


def test_a_damaged_script_line_names_its_reason():
    model = ScriptLinesModel()
    model.reload([LineRow(1, "Bob", "", "Hi.", "suspect", 1.0, "t1", "too loud"),
                    LineRow(2, "Bob", "", "Yes.", "stale", 1.0, "t2")])
    assert model.index(0, STATUS).data() == "too loud"
    assert model.index(1, STATUS).data() == "changed"


def test_an_app_made_clip_is_named_by_when_not_by_its_hash(tmp_path):
    hashed = tmp_path / "4b020cdbad96e1f0a7c3.flac"
    hashed.write_bytes(b"x")
    stamp = time.mktime((2026, 12, 3, 14, 5, 0, 0, 0, -1))
    os.utime(hashed, (stamp, stamp))
    assert clip_name(hashed) == "Clip of 3 Dec 14:05"
    assert clip_name(tmp_path / "narrator.wav") == "narrator.wav"


@pytest.fixture
def mia(tmp_path):
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary() as library:
        clip = write_clip(tmp_path / "mia.wav", 2.0)
        yield library.create("Mia", clip, make_prompt(text="Hello there."), language="en")


def test_a_saved_voice_shows_its_name_and_browse_starts_outside_the_app(window, mia, monkeypatch):
    clone = window.cloneView
    clone.voices.refresh()
    clone.pick_voice(mia.id)
    field = clone.reference.refPathEdit
    assert field.text() == "Saved voice: Mia"
    assert "voices" not in field.toolTip() and mia.id not in field.toolTip()
    opened = []
    monkeypatch.setattr(file_dialogs, "open_file_name",
                        lambda *args: opened.append(args[2]) or ("", ""))
    clone.reference.browse()
    assert opened == [str(Path.home())]  # not inside the app's voices folder


def test_recent_clips_made_by_the_app_show_no_hash(window, speech):
    take_audio = data_dir() / "takes" / "4b020cdbad96e1f0a7c3d2.flac"
    take_audio.parent.mkdir(parents=True, exist_ok=True)
    write_audio_atomic(take_audio, speech(3.0), 24000)
    picker = window.cloneView.voices
    picker.add_recent(take_audio)
    combo = picker.voiceCombo
    items = [combo.itemText(i) for i in range(combo.count())]
    tips = [combo.itemData(i, Qt.ItemDataRole.ToolTipRole) or "" for i in range(combo.count())]
    recent = [t for t in items if t.startswith("Recent: ")]
    assert recent and all("4b020cdbad96" not in t for t in recent + tips)
    assert all(str(data_dir()) not in t for t in tips)


def test_file_dialogs_start_in_the_last_folder_or_home(tmp_path):
    assert start_folder(None) == str(Path.home())
    assert start_folder(str(tmp_path / "gone" / "x.wav")) == str(Path.home())
    assert start_folder(str(tmp_path / "x.wav")) == str(tmp_path)
    inside = data_dir() / "voices" / "abc"
    inside.mkdir(parents=True, exist_ok=True)
    assert start_folder(str(inside), avoid=data_dir()) == str(Path.home())


def test_a_locked_variation_has_the_same_words_in_the_forms_and_the_script(window):
    """Review 9: "Variation locked" beside a described speaker said nothing to a new user;
    the forms' checkbox said "Lock". Both now say what it does, in the same words."""
    from studio.views.script_showing import SEED_LOCKED

    assert SEED_LOCKED == "Same variation each render"
    for form in (window.cloneView.form, window.designView.form):
        assert form.seedLock.text() == "Same each render"  # beside "Variation"
        assert form.seedLock.accessibleName() == SEED_LOCKED


def test_technical_knobs_keep_their_names_and_say_in_one_line_what_they_do(window):
    form = window.designView.form
    knobs = [form.guidanceSpin, form.tShiftSpin, form.takesSpin, form.seedLock, form.seedSpin,
             form.lengthMode, form.denoiseCheck, form.preprocessCheck, form.postprocessCheck,
             window.designView.findChild(QLabel, "instructCaption")]
    for knob in knobs:
        tip = knob.toolTip()
        assert tip and "\n" not in tip and len(tip) < 200, (knob.objectName(), tip)
