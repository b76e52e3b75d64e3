"""A take's "Save as voice…" (review 5, item 2): a small dialog over the view the user is
on, a readable name selected for typing over, the take's own words as the transcript;
saved through the same worker job as Clone's Save as voice, and then listed in the
Voices page, Clone's Voice list and a script speaker's voice list."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from studio_fakes import FakeController, fake_window
from take_fixtures import add
from take_fixtures import voice as make_voice

from studio.views.take_voice_dialog import TakeVoiceDialog, taken_text
from tests.library.library_helpers import make_prompt

DESIGNED = "female, elderly, low pitch, british accent"
NAME = "Elderly British woman, low pitch"
SAID = "Saved the voice '{}'; pick it in Clone's Voice list or as a script speaker's voice."


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    window = fake_window(qtbot, tmp_path, FakeController(data_writer))
    yield window
    for reader in (window.cloneView.voices, window.voicesView, window.scriptView):
        reader.close_library()


def open_dialog(window, take) -> TakeVoiceDialog:
    window.takesPanel.refresh()
    window.takesPanel.select_ids([take.id])
    window.takesPanel.detail.useAsVoiceButton.click()
    [dialog] = [d for d in window.findChildren(TakeVoiceDialog) if d.isVisible()]
    return dialog


def saved_by_the_worker(window, voice_writer, take, name: str) -> None:
    """What the worker does with the request: the voice saved, the job done."""
    [(_, job, request)] = window._controller.named("save_voice")
    voice = voice_writer.create(request.name, request.clip, make_prompt(text=request.transcript),
                                instruct=request.instruct)
    job.report("done", voice.id)
    window._controller.worker.voices_changed.emit()


def test_a_designed_take_is_saved_from_a_dialog_where_the_user_is(qtbot, window, data_writer,
                                                                   voice_writer):
    take = add(data_writer, "A line I liked.", seed=77, instruct=DESIGNED, audio=make_voice(2.0))
    window.show_view("design")
    dialog = open_dialog(window, take)
    assert window.current_view() == "design"  # it jumped to Clone before
    assert dialog.nameEdit.text() == NAME  # was the raw instruct, cut at its start
    assert dialog.nameEdit.selectedText() == NAME  # typing replaces it
    assert "A line I liked." in dialog.saysLabel.text()
    assert dialog.saveButton.text() == "Save" and not dialog.message.text()

    dialog.saveButton.click()
    [(_, _job, request)] = window._controller.named("save_voice")
    assert (request.name, request.clip, request.transcript) == (
        NAME, take.audio_path, "A line I liked.")
    assert (request.instruct, request.replace) == (DESIGNED, False)
    assert not dialog.saveButton.isEnabled()  # while it saves
    saved_by_the_worker(window, voice_writer, take, NAME)

    assert not dialog.isVisible() and window.current_view() == "design"
    assert window.statusBarWidget.messageLabel.toolTip() == SAID.format(NAME)
    # Reusable: listed in the Voices page and Clone's Voice list.
    model = window.voicesView.model
    assert [model.entry(r).voice.name for r in range(model.rowCount())] == [NAME]
    assert window.cloneView.voices.voiceCombo.findText(NAME) >= 0


def test_a_voice_saved_from_a_take_is_in_an_open_scripts_voice_list(qtbot, window, data_writer,
                                                                  voice_writer, tmp_path):
    script = tmp_path / "breakfast.txt"
    script.write_text("Alice: Good morning.\nBob: Morning.\n", encoding="utf-8")
    view = window.scriptView
    view.pathEdit.setText(str(script))
    with qtbot.waitSignal(view.message):
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    open_dialog(window, take).saveButton.click()
    saved_by_the_worker(window, voice_writer, take, NAME)
    assert view.voiceCombo.findText(f"Saved voice: {NAME}") >= 0
    view.close_project()


def test_a_taken_name_is_said_and_save_becomes_replace(qtbot, window, data_writer, voice_writer,
                                                       tmp_path):
    from tests.library.library_helpers import write_clip

    voice_writer.create(NAME, write_clip(tmp_path / "old.wav", 2.0), make_prompt())
    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    dialog = open_dialog(window, take)
    assert dialog.nameEdit.text() == f"{NAME} (2)"  # a free name is offered
    assert not dialog.message.text()
    dialog.nameEdit.setText(NAME.upper())
    assert dialog.message.text() == taken_text(NAME.upper(), f"{NAME.upper()} (2)")
    assert dialog.message.is_error() and dialog.saveButton.text() == "Replace"
    dialog.saveButton.click()
    [(_, _job, request)] = window._controller.named("save_voice")
    assert request.replace is True
    assert dialog.nameEdit.isReadOnly() and not dialog.saveButton.isEnabled()  # saving


def test_a_refused_save_is_said_in_the_dialog_which_stays_open(qtbot, window, data_writer):
    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    dialog = open_dialog(window, take)
    dialog.saveButton.click()
    [(_, job, _request)] = window._controller.named("save_voice")
    sentence = "The model is not loaded yet; wait for it before saving a voice."
    job.report("failed", sentence)
    assert dialog.isVisible() and dialog.message.text() == sentence
    assert dialog.saveButton.isEnabled()  # another try
    dialog.buttons.rejected.emit()
    assert not dialog.isVisible()


def test_a_clone_take_is_offered_under_its_place(qtbot, window, data_writer, tmp_path):
    import soundfile as sf

    clip = tmp_path / "narrator.wav"
    sf.write(clip, make_voice(2.0), 24000)
    first = add(data_writer, "One.", mode="clone", reference=str(clip), ref_text="A clip.", batch="b")
    add(data_writer, "One.", mode="clone", reference=str(clip), ref_text="A clip.", batch="b", seed=2)
    dialog = open_dialog(window, first)
    assert dialog.nameEdit.text().startswith("Voice from take ")


def test_the_empty_voices_page_names_a_takes_save_as_voice():
    from studio.views.voices_view import EMPTY

    # It said "Save one from the Clone view (Save as voice)" only.
    assert "Save as voice… under the takes" in EMPTY


def test_return_in_the_name_field_saves(qtbot, window, data_writer):
    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    dialog = open_dialog(window, take)
    qtbot.waitExposed(dialog)
    qtbot.keyClick(dialog.nameEdit, Qt.Key.Key_Return)
    [(_, _job, request)] = window._controller.named("save_voice")
    assert request.name == NAME and dialog.isVisible()


def test_a_message_makes_room_for_itself(qtbot, window, data_writer, voice_writer, tmp_path):
    """Seen on Xvfb: "Saving the voice…" squeezed the transcript into overlapping lines."""
    take = add(data_writer, "Chapter two. The rain had not stopped for three days, and the old "
               "house groaned under it.", instruct=DESIGNED, audio=make_voice(2.0))
    dialog = open_dialog(window, take)
    qtbot.waitExposed(dialog)
    dialog.saveButton.click()
    qtbot.wait(50)  # the layout settles
    says = dialog.saysLabel
    assert dialog.message.isVisible()
    assert says.height() >= says.heightForWidth(says.width())


def test_cancel_while_saving_lets_the_save_finish_and_the_status_bar_say_it(
        qtbot, window, data_writer, voice_writer):
    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    dialog = open_dialog(window, take)
    dialog.saveButton.click()
    dialog.buttons.rejected.emit()
    assert not dialog.isVisible()
    saved_by_the_worker(window, voice_writer, take, NAME)
    assert window.statusBarWidget.messageLabel.toolTip() == SAID.format(NAME)


def test_a_take_already_saved_as_a_voice_says_so(qtbot, window, data_writer, voice_writer):
    """Review 6: saving the same take again silently made "Name (2)", a second copy."""
    from studio.views.take_voice_dialog import already_text

    take = add(data_writer, "A line I liked.", instruct=DESIGNED, audio=make_voice(2.0))
    open_dialog(window, take).saveButton.click()
    saved_by_the_worker(window, voice_writer, take, NAME)
    other = add(data_writer, "Another line.", instruct=DESIGNED, audio=make_voice(2.5))
    assert not open_dialog(window, other).message.text()  # a different take: nothing to say
    window.findChildren(TakeVoiceDialog)[-1].reject()

    again = open_dialog(window, take)
    assert again.message.text() == already_text(NAME) and not again.message.is_error()
    assert again.nameEdit.text() == f"{NAME} (2)" and again.saveButton.text() == "Save"
    again.nameEdit.setText(NAME)  # a taken name still says so first
    assert again.message.is_error() and again.saveButton.text() == "Replace"
