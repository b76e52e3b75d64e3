"""The Voices view: cards from a real library (a voice_writer standing in for the worker and
the view's own read-only reader), search, tag filter and sort, edits as intents, delete
with undo, drops and drags, and the main window's wiring to the worker."""

from __future__ import annotations

import zipfile
from datetime import timedelta

import pytest
from PySide6.QtCore import QMimeData, QSettings, QUrl
from studio_fakes import PLAYABLE, FakeController, FakePlayer

from studio.library import fields
from studio.settings import Settings
from studio.views.main_window import MainWindow
from studio.views.voice_card import card_lines
from studio.views.voices_model import ALL_TAGS, entries, select
from studio.views.voices_view import EMPTY, VoicesView
from tests.library.library_helpers import make_prompt, write_clip


@pytest.fixture
def saved(voice_writer, tmp_path):
    made = {}
    for name, tags, text in (("Zoe", ("calm", "story"), "Once upon a time."),
                             ("adam", ("Calm",), "Breaking news tonight."),
                             ("Mia", (), "Hello there.")):
        clip = write_clip(tmp_path / f"{name}.wav", 2.0)
        made[name] = voice_writer.create(name, clip, make_prompt(text=text), tags=tags, language="en")
    voice_writer.record_use(made["Mia"].id)
    voice_writer.record_use(made["Mia"].id)
    voice_writer.record_use(made["adam"].id)
    return {v.name: v for v in voice_writer.list()}


@pytest.fixture
def view(qtbot):
    view = VoicesView(FakePlayer())
    qtbot.addWidget(view)
    yield view
    view.close_library()


def names(view) -> list[str]:
    return [view.model.entry(r).voice.name for r in range(view.model.rowCount())]


def test_an_empty_library_says_how_to_get_voices(view):
    view.refresh()
    view.show()
    assert view.emptyLabel.isVisible() and view.emptyLabel.text() == EMPTY
    assert not view.list.isVisible() and not view.detail.isEnabled()


def test_cards_say_name_language_tags_length_and_use(view, saved):
    view.refresh()
    view.sortCombo.setCurrentText("Name")
    assert names(view) == ["adam", "Mia", "Zoe"]
    entry = view.model.entry(1)
    from studio.views.voices_model import read_clip

    read_clip(entry)
    name, about, facts = card_lines(entry)
    assert (name, about) == ("Mia", "en")
    assert facts.startswith("2.0 s · 2 takes · last today ")
    view.refresh()
    zoe = view.model.entry(view.model.row_of(saved["Zoe"].id))
    read_clip(zoe)
    assert card_lines(zoe)[2].startswith("2.0 s · no takes yet · made today ")
    assert card_lines(view.model.entry(2))[1] == "en · calm, story"
    assert view.countLabel.text() == "3 voices"


def test_a_designed_voice_card_says_what_it_was_designed_as(view, voice_writer, tmp_path):
    """A reviewer's voice saved from a Design take read like any clone on its card."""
    clip = write_clip(tmp_path / "margaret.wav", 2.0)
    voice_writer.create("Margaret", clip, make_prompt(text="Welcome."), language="en",
                        instruct="female, elderly, low pitch, british accent")
    view.refresh()
    assert card_lines(view.model.entry(0))[1] == (
        "en · instruct: female, elderly, low pitch, british accent")


def test_search_tag_filter_and_sorts(view, saved):
    view.refresh()
    view.sortCombo.setCurrentText("Most used")
    assert names(view) == ["Mia", "adam", "Zoe"]
    view.sortCombo.setCurrentText("Recently used")
    assert names(view)[0] == "adam"  # used last
    tags = [view.tagCombo.itemText(i) for i in range(view.tagCombo.count())]
    assert tags[0] == ALL_TAGS and [t.lower() for t in tags[1:]] == ["calm", "story"]  # once each
    view.tagCombo.setCurrentIndex(1)  # calm
    assert sorted(names(view)) == ["Zoe", "adam"]
    view.tagCombo.setCurrentIndex(0)
    view.searchEdit.setText("UPON")  # the transcript, ignoring case
    assert names(view) == ["Zoe"] and view.countLabel.text() == "1 of 3 voices"
    view.searchEdit.setText("nobody")
    assert names(view) == [] and "No voice matches" in view.emptyLabel.text()


def test_the_filter_keeps_every_word_and_is_fast_enough_to_type(voice_writer, tmp_path):
    """select() over 1,000 voices (the benchmark times it; here only what it keeps)."""
    voices = [voice_writer.create(f"Voice {n}", write_clip(tmp_path / f"{n}.wav", 0.2),
                            make_prompt(text=f"line {n}"), tags=("even",) if n % 2 == 0 else ())
              for n in range(40)]
    rows = entries(voices, voice_writer.voices_dir)
    # Every word somewhere: "1" is in Voice 1, 10-19, 21 and 31.
    assert len(select(rows, "voice 1", None, "Name")) == 13
    assert len(select(rows, "", "EVEN", "Name")) == 20


def test_edits_are_intents_for_the_worker(qtbot, view, saved):
    view.refresh(select=saved["Zoe"].id)
    assert view.current().name == "Zoe"
    with qtbot.waitSignal(view.rename_requested) as renamed:
        view.nameField.setText("Zoë")
        view.nameField.returnPressed.emit()
    assert renamed.args == [saved["Zoe"].id, "Zoë"]
    with qtbot.waitSignal(view.update_requested) as tagged:
        view.tagsField.setText("calm, bedtime")
        view.tagsField.editingFinished.emit()
    assert tagged.args == [saved["Zoe"].id, {"tags": ("calm", "bedtime")}]
    assert not view.saveTranscriptButton.isEnabled()  # unchanged
    view.transcriptField.setPlainText("Once upon a midnight.")
    with qtbot.waitSignal(view.transcript_requested) as corrected:
        view.saveTranscriptButton.click()
    assert corrected.args == [saved["Zoe"].id, "Once upon a midnight."]
    with qtbot.waitSignal(view.update_requested, timeout=3000) as noted:
        view.notesField.setPlainText("Use for children's stories")
    assert noted.args == [saved["Zoe"].id, {"notes": "Use for children's stories"}]


def test_delete_offers_undo(qtbot, view, saved, voice_writer):
    view.refresh(select=saved["Mia"].id)
    view.show()
    with qtbot.waitSignal(view.delete_requested) as deleted:
        view.deleteButton.click()
    assert deleted.args == [saved["Mia"].id]
    assert view.undoBar.isVisible() and view.undoBar.text() == "Deleted the voice 'Mia'."
    voice_writer.delete(saved["Mia"].id, undoable=True)  # what the worker does
    view.refresh()
    assert "Mia" not in names(view)
    with qtbot.waitSignal(view.undelete_requested) as restored:
        view.undoBar.undoButton.click()
    assert restored.args == [saved["Mia"].id]
    voice_writer.undelete(saved["Mia"].id)
    view.refresh()
    assert "Mia" in names(view)


def _mime(*paths) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def test_drops_import_bundles_start_voices_and_refuse_other_files(qtbot, view, tmp_path):
    bundle, clip, notes = tmp_path / "a.ovoice", tmp_path / "me.wav", tmp_path / "notes.txt"
    with qtbot.waitSignal(view.import_requested) as imported:
        assert view.handle_drop(_mime(bundle))
    assert imported.args == [bundle]
    with qtbot.waitSignal(view.new_voice_requested) as started:
        assert view.handle_drop(_mime(clip))
    assert started.args == [clip]
    assert not view.handle_drop(_mime(notes))
    assert view.notice.text() == ("notes.txt is neither an audio clip nor an .ovoice voice file; "
                                  "drop a WAV, FLAC or OGG clip to start a voice, or an .ovoice "
                                  "file to import one.")


def test_a_dragged_card_is_an_ovoice_that_imports(view, saved, tmp_path):
    from studio.library.bundle import read_bundle

    view.refresh(select=saved["Zoe"].id)
    path = view._bundle_for_drag(saved["Zoe"].id)
    assert path.name == "Zoe.ovoice"
    contents = read_bundle(path)
    assert contents.name == "Zoe" and contents.transcript == "Once upon a time."
    assert zipfile.ZipFile(path).namelist() == ["manifest.json", "clip.wav", "prompt.pt"]


@pytest.fixture
def window(qtbot, tmp_path):
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window = MainWindow(settings, FakeController(), FakePlayer(), audio_status=PLAYABLE,
                        accel_probe=lambda: {})
    qtbot.addWidget(window)
    yield window
    for view in (window.voicesView, window.cloneView.voices):
        view.close_library()


def test_the_window_sends_voice_edits_to_the_worker(saved, window):  # voices first
    controller = window._controller
    window.show_view("voices")
    voices = window.voicesView
    assert sorted(names(voices)) == ["Mia", "Zoe", "adam"]
    voices.list.setCurrentIndex(voices.model.index(voices.model.row_of(saved["Zoe"].id), 0))
    voices.duplicateButton.click()
    voices.deleteButton.click()
    assert controller.named("duplicate_voice") == [("duplicate_voice", saved["Zoe"].id)]
    assert controller.named("delete_voice") == [("delete_voice", saved["Zoe"].id)]
    voices.useButton.click()
    assert window.current_view() == "clone"
    assert window.cloneView.voices.voiceCombo.currentText() == "Zoe"
    controller.worker.voices_failed.emit("The voice 'Zoe' cannot be changed; try again.")
    assert window.statusBarWidget.is_error()
    assert window.statusBarWidget.messageLabel.text().endswith("The voice 'Zoe' cannot be changed; try again.")


def test_library_times_are_shown_as_short_dates():
    from studio.views.voices_model import when

    now = fields.now()
    assert when(None) == "never"
    assert when(now, now).startswith("today ")
    assert not when(now - timedelta(days=400), now).startswith("today")


def test_notes_typed_just_before_quitting_are_sent(saved, window):
    controller = window._controller
    voices = window.voicesView
    voices.refresh(select=saved["Zoe"].id)
    voices.notesField.setPlainText("Typed a moment ago")
    window.shutdown()
    assert ("update_voice", saved["Zoe"].id, {"notes": "Typed a moment ago"}) in controller.calls


def test_cards_fit_the_list_at_the_narrowest_view(qtbot, view, saved):
    """Issue 25: at 1024x640 a card was cut by a horizontal scroll bar."""
    from studio.views.main_window import VIEW_MIN_WIDTH

    view.refresh()
    view.resize(VIEW_MIN_WIDTH, 600)
    view.show()
    qtbot.waitExposed(view)
    qtbot.wait(50)
    assert view.list.isVisible() and view.model.rowCount()
    assert not view.list.horizontalScrollBar().isVisible()
    card = view.list.visualRect(view.model.index(0, 0))
    assert card.right() <= view.list.viewport().width()
    # What a narrow card cuts ("last today 0…") is whole in its tooltip, above the transcript.
    from studio.views.voice_card import card_tooltip
    from studio.views.voices_model import read_clip

    entry = view.model.entry(0)
    read_clip(entry)
    tip = card_tooltip(entry)
    assert all(line in tip for line in card_lines(entry)) and entry.voice.transcript in tip
