"""Takes panel over a real take library (temp folder): listing, search and filters,
play through the shared player, star/rename/notes/delete/undo as controller calls,
export, drag-out, keyboard shortcuts and the context menu."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLineEdit, QListView
from studio_fakes import PLAYABLE, SILENT
from take_fixtures import add, voice

from studio.views.take_drag import file_stem
from studio.views.take_export import ExportDialog
from studio.views.takes_model import TakesModel
from studio.views.takes_panel import TakesPanel


@pytest.fixture
def make_panel(qtbot, player, controller, reader):
    def make(**kwargs) -> TakesPanel:
        options = {"controller": controller, "library": reader, "audio_status": PLAYABLE}
        options.update(kwargs)
        panel = TakesPanel(player, **options)
        panel.resize(360, 760)
        qtbot.addWidget(panel)
        return panel

    return make


def names(panel) -> list[str]:
    return [panel.model.index(r).data() for r in range(panel.model.rowCount())]


def test_lists_the_library_newest_first_each_batch_together(writer, make_panel):
    first = add(writer, "An older single take.", seed=9, batch="old")
    batch = [add(writer, "Three at once.", seed=s, batch="new") for s in (5, 6, 7)]
    panel = make_panel()
    assert panel.findChild(QListView, "takesList") is panel.list
    # Issue 25 (9): a title leads with the take's words, never "Take 2 · seed 5"; the
    # seed is a "variation" in the tooltip, and RTF is said as speed against real time.
    assert names(panel) == ["Three at once."] * 3 + ["An older single take."]
    model = panel.model
    assert model.index(0).data(TakesModel.MetaRole) == "1.0 s · 4.0× real time"
    assert model.index(3).data(TakesModel.MetaRole) == "1.0 s · 4.0× real time"
    # One numbering a user can follow: the batch position, as the status bar names the best.
    assert model.row_info(0).details == "Take 3/3 · 1.0 s · 4.0× real time"
    assert model.row_info(3).position == "" and model.row_info(2).position == "Take 1/3"
    assert all("seed" not in model.index(r).data(role) and "RTF" not in model.index(r).data(role)
               for r in range(4) for role in (Qt.ItemDataRole.DisplayRole, TakesModel.MetaRole))
    tip = model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert "Variation 7:" in tip
    # Review 6: "× real time" was not explained anywhere a user looks.
    assert "4.0× real time: 4.0 s of audio for each second of rendering" in tip
    assert "LUFS (clear speech: -20 to -25; nearer 0 is louder)" in tip
    assert model.index(0).data(TakesModel.ExcerptRole) == "Designed voice"  # who speaks
    assert model.index(2).data(TakesModel.BatchRole) == (1, 3, False, True)
    assert panel.countLabel.text() == "4 takes"
    # The newest take is selected, so Space plays it at once.
    assert panel.current_take().id == batch[2].id
    assert panel.model.take(3).id == first.id


def test_long_text_is_an_excerpt_with_the_whole_snapshot_in_the_tooltip(writer, make_panel):
    text = "word " * 60
    add(writer, text, seed=3)
    panel = make_panel()
    index = panel.model.index(0)
    assert len(index.data()) <= 48 and index.data().endswith("…")
    tip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert text.strip() in tip and "Variation 3" in tip and "cpu fp32" in tip


def test_search_voice_and_starred_filters(qtbot, writer, make_panel, tmp_path):
    clip = tmp_path / "narrator.wav"
    add(writer, "The quick brown fox.", seed=1, mode="clone", reference=str(clip))
    starred = add(writer, "A lazy dog sleeps.", seed=2)
    add(writer, "Brown bread for breakfast.", seed=3)
    writer.set_starred(starred.id, True)
    panel = make_panel()
    assert panel.model.rowCount() == 3
    panel.searchEdit.setText("brown")
    panel.refresh()  # (the search box waits for a pause in typing)
    assert sorted(panel.model.index(r).data()
                  for r in range(panel.model.rowCount())) == [
        "Brown bread for breakfast.", "The quick brown fox."]
    assert panel.countLabel.text() == "2 takes shown"
    panel.searchEdit.setText("nothing like this")
    panel.refresh()
    assert panel.model.rowCount() == 0 and panel.stack.currentWidget() is panel.empty
    assert "No take matches" in panel.empty.text()
    panel.searchEdit.clear()
    panel.starredButton.click()
    assert [t.id for t in panel.model.takes()] == [starred.id]
    panel.starredButton.click()
    labels = [panel.voiceCombo.itemText(i) for i in range(panel.voiceCombo.count())]
    assert labels[0] == "All voices" and "narrator.wav" in labels and "Voice design" in labels
    panel.voiceCombo.setCurrentIndex(labels.index("narrator.wav"))
    assert [panel.model.index(r).data()
            for r in range(panel.model.rowCount())] == ["The quick brown fox."]


def test_space_plays_the_selected_take_and_the_waveform_seeks(qtbot, writer, make_panel,
                                                             player):
    take = add(writer, "Play me.", audio=voice(2.0))
    panel = make_panel()
    panel.show()
    assert panel.waveform.has_audio() and panel.waveform.duration() == pytest.approx(2.0)
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert player.calls[:2] == [("load", ("take", take.id)), ("play",)]
    assert panel.playButton.text() == "Pause"
    assert panel.model.index(0).data(TakesModel.StateRole) == "playing"
    qtbot.mouseClick(panel.waveform, Qt.MouseButton.LeftButton,
                     pos=QPoint(panel.waveform.width() // 2, 10))
    assert player.calls[-1][0] == "seek" and player.calls[-1][1] == pytest.approx(1.0, abs=0.05)
    assert panel.waveform.position() == pytest.approx(1.0, abs=0.05)
    qtbot.keyClick(panel.list, Qt.Key.Key_Space)
    assert player.state() == "paused" and panel.playButton.text() == "Play"
    assert panel.model.index(0).data(TakesModel.StateRole) == "paused"


def test_reselecting_a_take_after_clearing_the_selection_draws_its_waveform_again(writer, make_panel):
    take = add(writer, "Draw me again.", audio=voice(1.5))
    panel = make_panel()
    panel.show()
    assert panel.waveform.has_audio()
    panel.list.clearSelection()
    assert not panel.waveform.has_audio()
    panel.select_ids([take.id])
    assert panel.waveform.has_audio() and panel.waveform.duration() == pytest.approx(1.5)


def test_another_clip_in_the_player_clears_the_take_marker(writer, make_panel, player):
    add(writer, "One.")
    panel = make_panel()
    panel.toggle()
    player.load([0.0] * 10, 10, ("reference", 1))
    assert panel.model.index(0).data(TakesModel.StateRole) == ""
    assert panel.playButton.text() == "Play"


def test_playback_off_disables_play_with_the_reason(writer, make_panel, player):
    add(writer, "One.")
    panel = make_panel(audio_status=SILENT)
    assert not panel.playButton.isEnabled()
    assert panel.playButton.toolTip() == SILENT.reason
    panel.toggle()
    assert player.calls == []


def test_s_stars_and_the_row_star_click_unstars(qtbot, writer, make_panel, controller):
    take = add(writer, "Star me.")
    panel = make_panel()
    panel.show()
    qtbot.keyClick(panel.list, Qt.Key.Key_S)
    assert controller.named("star_take") == [("star_take", take.id, True)]
    assert panel.model.take(0).starred and panel.starButton.isChecked()
    assert writer.get(take.id).starred  # (the fake controller wrote it, as the worker would)
    # Clicking the star drawn on the row toggles it back.
    option_rect = panel.list.visualRect(panel.model.index(0))
    from PySide6.QtWidgets import QStyleOptionViewItem

    option = QStyleOptionViewItem()
    option.rect = option_rect
    option.font = panel.list.font()
    star = panel.delegate._star_rect(option, panel.model.index(0))
    qtbot.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=star.center())
    assert controller.named("star_take")[-1] == ("star_take", take.id, False)
    assert not writer.get(take.id).starred


def test_f2_renames_through_the_controller(qtbot, writer, make_panel, controller):
    take = add(writer, "Name me.", seed=4)
    panel = make_panel()
    panel.show()
    qtbot.waitExposed(panel)
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_F2)
    editor = panel.list.findChild(QLineEdit, "takeNameEditor")
    assert editor is not None and editor.text() == "Name me."
    editor.setText("  The   keeper ")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(controller.named("rename_take")))  # the commit is queued
    assert controller.named("rename_take") == [("rename_take", take.id, "The keeper")]
    assert names(panel) == ["The keeper"] and panel.nameLabel.text() == "The keeper"


def test_notes_are_saved_through_the_controller_when_typing_pauses(qtbot, writer, make_panel,
                                                                  controller):
    take = add(writer, "Note me.")
    panel = make_panel()
    panel.notesEdit.setPlainText("Breath at 0:02. ")
    qtbot.waitUntil(lambda: bool(controller.named("note_take")), timeout=3000)
    assert controller.named("note_take") == [("note_take", take.id, "Breath at 0:02.")]
    assert writer.get(take.id).notes == "Breath at 0:02."
    panel.searchEdit.setText("breath")  # notes are searchable
    panel.refresh()
    assert [t.id for t in panel.model.takes()] == [take.id]


def test_delete_then_undo_with_the_bar_and_with_ctrl_z(qtbot, writer, make_panel, controller):
    keep = add(writer, "Keep me.", seed=1, batch="a")
    gone = add(writer, "Delete me.", seed=2, batch="b")
    panel = make_panel()
    panel.show()
    qtbot.waitExposed(panel)
    panel.activateWindow()
    qtbot.waitUntil(panel.isActiveWindow)  # shortcuts need the active window
    assert panel.current_take().id == gone.id
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_Delete)
    assert controller.named("delete_takes") == [("delete_takes", (gone.id,))]
    assert [t.id for t in panel.model.takes()] == [keep.id]
    assert panel.undoBar.isVisible() and panel.undoBar.text() == "Deleted 1 take."
    panel.undoBar.undoButton.click()
    assert controller.named("undelete_takes") == [("undelete_takes", (gone.id,))]
    assert {t.id for t in panel.model.takes()} == {keep.id, gone.id}
    assert [t.id for t in panel.selected_takes()] == [gone.id]  # back, and selected
    assert not panel.undoBar.isVisible()
    # Ctrl+Z does the same.
    qtbot.keyClick(panel.list, Qt.Key.Key_Delete)
    assert [t.id for t in panel.model.takes()] == [keep.id]
    qtbot.keyClick(panel.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert controller.named("undelete_takes")[-1] == ("undelete_takes", (gone.id,))
    assert len(panel.model.takes()) == 2


def test_suspect_badges_are_explained(writer, make_panel):
    add(writer, "Quiet and clipped.", suspects=("near-silent", "clipped"))
    panel = make_panel()
    tip = panel.model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert "Near-silent: under -55 LUFS" in tip and "Clipped:" in tip
    assert "Near-silent" in panel.suspectLabel.text() and panel.suspectLabel.isVisibleTo(panel)
    assert "Clipped" in panel.model.index(0).data(Qt.ItemDataRole.AccessibleTextRole)


def test_rerender_vary_and_copy_settings_are_emitted(qtbot, writer, make_panel):
    take = add(writer, "Again.", seed=42)
    panel = make_panel()
    with qtbot.waitSignal(panel.rerender_requested) as same:
        panel.rerenderButton.click()
    assert same.args[0].id == take.id and same.args[1] == 42
    with qtbot.waitSignal(panel.rerender_requested) as varied:
        panel.varyButton.click()
    assert varied.args[1] != 42 and 0 <= varied.args[1] < 2**31
    with qtbot.waitSignal(panel.copy_settings_requested) as copied:
        panel.copyButton.click()
    assert copied.args[0].id == take.id


def test_compare_needs_exactly_two_selected(writer, make_panel):
    for seed in (1, 2, 3):
        add(writer, "Compare.", seed=seed)
    panel = make_panel()
    assert not panel.compareButton.isEnabled()
    panel.select_ids([panel.model.take(0).id, panel.model.take(1).id])
    assert panel.compareButton.isEnabled()
    panel.select_ids([t.id for t in panel.model.takes()])
    assert not panel.compareButton.isEnabled()
    menu = panel.context_menu()
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert not actions["Compare A/B"].isEnabled() and actions["Delete"].isEnabled()
    assert actions["Re-render (same variation)"].isEnabled()


def test_export_dialog_writes_the_selected_takes(qtbot, writer, reader, make_panel, tmp_path):
    take = add(writer, "Export me.", seed=8)
    panel = make_panel()
    rows = [panel.model.row_info(0)]
    calls = []

    def export(library, ids, folder, fmt, stems=None, **options):
        calls.append((ids, folder, fmt))
        from studio.library.export import export_takes

        return export_takes(library, ids, folder, fmt, stems, **options)

    dialog = ExportDialog(reader, rows, folder=str(tmp_path / "out"), fmt="FLAC", export=export)
    qtbot.addWidget(dialog)
    # Issue 25 (13): a file name is asked for, the text's first words by default.
    assert dialog.nameEdit.text() == "Export me"
    dialog.nameEdit.setText("Intro, final")
    assert "FLAC" in [dialog.formatCombo.itemText(i) for i in range(dialog.formatCombo.count())]
    with qtbot.waitSignal(dialog.exported) as done:
        dialog.exportButton.click()
    assert calls == [([take.id], tmp_path / "out", "FLAC")]
    assert done.args[0] == (f"Exported Intro, final.flac and its .json (how it was made) to "
                            f"{tmp_path / 'out'}.")
    assert dialog.written[0].name == "Intro, final.flac"
    audio, rate = sf.read(dialog.written[0])
    assert rate == 24000 and audio.shape[0] == 24000
    assert dialog.written[0].with_suffix(".json").is_file()


def test_export_problem_stays_in_the_dialog(qtbot, writer, reader, make_panel, tmp_path):
    add(writer, "Export me.")
    panel = make_panel()
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    dialog = ExportDialog(reader, [panel.model.row_info(0)], folder=str(blocker / "sub"),
                          fmt="WAV")
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.failed) as failed:
        assert dialog.run_export()
    # One sentence naming the folder and what is in its way (it was "[Errno 20] …").
    assert failed.args[0] == (f"The folder {blocker / 'sub'} cannot be made: {blocker} is a "
                              "file, not a folder; choose another folder.")
    assert dialog.message.text() == failed.args[0] and dialog.result() == 0
    assert dialog.exportButton.isEnabled() and not dialog.progress.isVisible()


def test_drag_out_gives_readable_wav_copies(writer, make_panel):
    take = add(writer, "Drag me.", seed=77)
    panel = make_panel()
    mime = panel.model.mimeData([panel.model.index(0)])
    urls = mime.urls()
    assert len(urls) == 1 and urls[0].isLocalFile()
    path = urls[0].toLocalFile()
    assert path.endswith("Drag me.wav")
    audio, rate = sf.read(path, dtype="float32")
    expected, _ = writer.read_audio(take.id)
    assert rate == 24000 and np.abs(audio - expected).max() < 1e-4
    assert panel.model.supportedDragActions() == Qt.DropAction.CopyAction


def test_file_stem_is_safe():
    assert file_stem('Take 3 · seed 5: "best"/final') == "Take 3 - seed 5 best final"
    assert file_stem("...") == "take"


def test_a_read_only_panel_offers_no_edits(writer, reader, qtbot, player):
    add(writer, "Look only.")
    panel = TakesPanel(player, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    assert not panel.starButton.isEnabled() and not panel.deleteButton.isEnabled()
    panel.toggle_star()
    panel.delete_selected()
    assert panel.model.rowCount() == 1


def test_a_worker_change_reloads_and_keeps_the_selection(writer, make_panel, controller):
    older = add(writer, "Older.", seed=1, batch="a")
    add(writer, "Newer.", seed=2, batch="b")
    panel = make_panel()
    panel.select_ids([older.id])
    add(writer, "Newest.", seed=3, batch="c")
    controller.takes_changed.emit()
    assert panel.model.rowCount() == 3 and panel.current_take().id == older.id


def test_a_reload_waits_while_a_name_is_being_typed(qtbot, writer, make_panel, controller):
    take = add(writer, "Name me.", seed=4, batch="a")
    panel = make_panel()
    panel.show()
    qtbot.waitExposed(panel)
    panel.rename()
    editor = panel.list.findChild(QLineEdit, "takeNameEditor")
    editor.setText("Half typ")
    add(writer, "A render finished meanwhile.", seed=5, batch="b")
    controller.takes_changed.emit()
    assert panel.list.state() == panel.list.State.EditingState and editor.text() == "Half typ"
    assert panel.model.rowCount() == 1
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)
    assert writer.get(take.id).name == "Half typ"


def test_takes_the_library_could_not_save_stay_listed_for_the_session(qtbot, player, tmp_path,
                                                                      speech):
    from studio_fakes import FakeController, make_result

    from studio.library.session_takes import UNSAVED, is_unsaved
    from studio.views.takes_model import suspect_label

    # No library in this data folder can be opened, as when saving the takes failed.
    panel = TakesPanel(player, controller=FakeController(), audio_status=PLAYABLE)
    qtbot.addWidget(panel)
    result = make_result("Saved nowhere.", "design", seeds=(5, 6))
    voiced = [type(t)(speech(1.0, seed=i), t.sample_rate, t.seed) for i, t in enumerate(result.takes)]
    result = type(result)(**{**result.__dict__, "takes": tuple(voiced)})
    assert all(t.take_id is None for t in result.takes)
    panel.show_result(result)

    assert panel.model.rowCount() == 2
    assert [t.settings.seed for t in panel.selected_takes()] == [6, 5]  # newest first
    take = panel.current_take()
    assert is_unsaved(take.id) and UNSAVED in take.suspects
    assert suspect_label(UNSAVED) == "Not saved"
    assert not panel.detail.starButton.isEnabled() and panel.detail.notesEdit.isReadOnly()
    assert panel.detail.deleteButton.isEnabled() and panel.detail.exportButton.isEnabled()

    panel.toggle()  # plays from memory
    assert ("load", ("take", take.id)) in player.calls and player.calls[-1] == ("play",)

    dialog = ExportDialog(panel.shelf(), [panel.model.row_info(1)], folder=str(tmp_path / "out"),
                          fmt="WAV")
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.exported):
        assert dialog.run_export()
    audio, rate = sf.read(dialog.written[0], dtype="float32")
    np.testing.assert_allclose(audio, result.takes[0].audio, atol=1 / 32768)

    panel.delete_selected()
    assert panel.model.rowCount() == 0
    panel.undo_delete()
    assert panel.model.rowCount() == 2, "undo brings unsaved takes back too"


def test_before_the_first_take_the_list_says_how_to_make_one(qtbot, writer, make_panel):
    """Issue 25: a first launch said "No take matches the search or filters." with no take
    anywhere (the Clone & Design filter is on by default) and the filter read "Clone & Desigr"."""
    from studio.views.takes_projects import CLONE_AND_DESIGN

    panel = make_panel()
    panel.resize(panel.minimumSizeHint().width(), 760)  # as narrow as it goes
    panel.follow_project(None, script_view=False)  # Clone's view: the Clone & Design filter
    panel.show()
    assert panel.projectCombo.currentText() == CLONE_AND_DESIGN
    assert panel.stack.currentWidget() is panel.empty
    assert "No take matches" not in panel.empty.text()
    assert "Generate" in panel.empty.text()
    combo = panel.projectCombo
    text_room = combo.style().subControlRect(
        combo.style().ComplexControl.CC_ComboBox, _combo_option(combo),
        combo.style().SubControl.SC_ComboBoxEditField, combo).width()
    assert combo.fontMetrics().horizontalAdvance(CLONE_AND_DESIGN) <= text_room, "cut"
    add(writer, "A first take.", seed=1)
    panel.searchEdit.setText("nothing like this")
    panel.refresh()
    assert "No take matches" in panel.empty.text()


def _combo_option(combo):
    from PySide6.QtWidgets import QStyleOptionComboBox

    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    option.rect = combo.rect()
    return option


def test_the_title_row_stays_put_whatever_the_details_say(qtbot, writer, make_panel):
    """Issue 25: Rename and the star moved with the amount of text above the buttons."""
    plain = add(writer, "Short.")
    loud = add(writer, "A long line whose details run on. " * 4,
               suspects=("near-silent", "clipped"))
    panel = make_panel()
    panel.show()
    places = []
    for take in (plain, loud, plain):
        panel.select_ids([take.id])
        qtbot.wait(20)  # the layout settles
        places.append((panel.detail.renameButton.mapTo(panel, panel.rect().topLeft()),
                       panel.starButton.mapTo(panel, panel.rect().topLeft())))
    assert places[0] == places[1] == places[2]
    assert panel.suspectLabel.text() == ""  # the plain take's: none
    panel.select_ids([loud.id])
    assert "Near-silent" in panel.suspectLabel.toolTip()  # cut text is whole in the tooltip
