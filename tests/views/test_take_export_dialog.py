"""Review 5 (9): exporting a take lands where a person expects and says what it wrote.
The dialog offers the last folder, else the music folder only where it exists, else
home; a folder not there yet is said and then made; the .json sidecar is a choice the
dialog names; the file name is a short title, batch takes told apart; the status bar
names the files and offers "Show in folder"."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication
from studio_fakes import PLAYABLE, make_settings
from take_fixtures import add

from studio.views.help_menu import OPEN_FAILED
from studio.views.status_bar import StatusBar
from studio.views.take_export import ExportDialog, default_folder
from studio.views.takes_panel import TakesPanel


def shown_dialog(qtbot, writer, panel, tmp_path, text: str) -> ExportDialog:
    """The Export dialog on screen for one new take saying ``text``, to ``tmp_path`` as WAV."""
    add(writer, text)
    panel.refresh()
    dialog = ExportDialog(panel.shelf(), [panel.model.row_info(0)], folder=str(tmp_path),
                          fmt="WAV")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A home folder with no Music folder in it, as on a fresh Linux account."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("XDG_MUSIC_DIR", raising=False)
    return home


@pytest.fixture
def panel(qtbot, player, controller, reader) -> TakesPanel:
    widget = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    widget.resize(360, 760)
    qtbot.addWidget(widget)
    return widget


def test_the_folder_offered_exists_the_last_one_first(home, tmp_path):
    """It suggested /root/Music, which did not exist."""
    assert default_folder() == str(home)
    (home / "Music").mkdir()
    assert default_folder() == str(home / "Music")
    last = tmp_path / "exports"
    last.mkdir()
    assert default_folder(str(last)) == str(last)
    assert default_folder(str(tmp_path / "gone")) == str(home / "Music")


def test_a_new_folder_is_said_before_and_made_by_the_export(qtbot, writer, panel, tmp_path):
    add(writer, "Export me.")
    panel.refresh()
    target = tmp_path / "new" / "folder"
    dialog = ExportDialog(panel.shelf(), [panel.model.row_info(0)], folder=str(tmp_path),
                          fmt="WAV")
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.folderHint.isVisible()
    dialog.folderEdit.setText(str(target))
    assert dialog.folderHint.isVisible() and "Export makes it" in dialog.folderHint.text()
    with qtbot.waitSignal(dialog.exported) as done:
        dialog.exportButton.click()
    assert target.is_dir() and dialog.target == target
    assert done.args[0] == f"Exported Export me.wav and its .json (how it was made) to {target}."


def test_the_sidecar_is_named_in_the_dialog_and_can_be_left_out(qtbot, writer, panel, tmp_path):
    """A .json was written silently beside the audio."""
    add(writer, "Chapter two. The rain had not stopped for three days.")
    panel.refresh()
    dialog = ExportDialog(panel.shelf(), [panel.model.row_info(0)], folder=str(tmp_path),
                          fmt="WAV")
    qtbot.addWidget(dialog)
    assert dialog.sidecarCheck.isChecked() and ".json" in dialog.sidecarCheck.text()
    assert "render it again" in dialog.sidecarCheck.toolTip()
    assert dialog.nameEdit.text() == "Chapter two"
    dialog.sidecarCheck.setChecked(False)
    with qtbot.waitSignal(dialog.exported) as done:
        dialog.exportButton.click()
    assert [p.name for p in tmp_path.iterdir() if p.is_file()] == ["Chapter two.wav"]
    assert done.args[0] == f"Exported Chapter two.wav to {tmp_path}."


def test_a_batchs_takes_are_told_apart_by_their_place(qtbot, writer, panel, tmp_path):
    for seed in (1, 2, 3):
        add(writer, "Welcome to our studio. This is a test.", seed=seed, batch="b")
    panel.refresh()
    rows = [panel.model.row_info(n) for n in range(3)]
    dialog = ExportDialog(panel.shelf(), rows, folder=str(tmp_path), fmt="WAV")
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.exported) as done:
        dialog.exportButton.click()
    names = sorted(p.name for p in dialog.written)
    assert names == [f"Welcome to our studio - take {n}.wav" for n in (1, 2, 3)]
    assert done.args[0].startswith("Exported 3 takes as WAV (Welcome to our studio - take ")
    assert done.args[0].endswith(f" and 1 more), each with a .json of how it was made, to "
                                 f"{tmp_path}.")


def test_the_panel_remembers_the_export_folder_across_starts(qtbot, writer, panel, player,
                                                             controller, reader, tmp_path):
    add(writer, "Export me.")
    panel.refresh()
    panel.select_ids([panel.model.take(0).id])
    said = []
    panel.exported.connect(lambda sentence, folder: said.append((sentence, folder)))
    out = tmp_path / "out"
    panel.export_selected()
    dialog = panel.findChild(ExportDialog)
    dialog.folderEdit.setText(str(out))
    dialog.sidecarCheck.setChecked(False)
    with qtbot.waitSignal(dialog.exported):
        dialog.exportButton.click()
    assert said == [(f"Exported Export me.wav to {out}.", str(out))]
    settings = make_settings(tmp_path / "s.ini")
    panel.save_state(settings)

    again = TakesPanel(player, controller=controller, library=reader, audio_status=PLAYABLE)
    qtbot.addWidget(again)
    again.restore_state(make_settings(tmp_path / "s.ini"))
    again.select_ids([again.model.take(0).id])
    again.export_selected()
    dialog = again.findChild(ExportDialog)
    assert dialog.folder() == str(out) and not dialog.sidecarCheck.isChecked()


def test_the_status_bar_names_the_files_and_shows_their_folder(qtbot, tmp_path):
    opened = []
    bar = StatusBar(open_url=lambda url: opened.append(url) or True)
    qtbot.addWidget(bar)
    bar.show()
    assert not bar.folderButton.isVisible() and bar.folder_url() is None
    bar.show_written(f"Exported a.wav to {tmp_path}.", str(tmp_path))
    assert bar.messageLabel.text() == f"Exported a.wav to {tmp_path}."
    assert bar.folderButton.isVisible() and bar.folderButton.text() == "Show in folder"
    bar.folderButton.click()
    assert opened == [QUrl.fromLocalFile(str(tmp_path))]
    bar.show_message("Rendering…")  # the next message: the button went with its sentence
    assert not bar.folderButton.isVisible() and bar.folder_url() is None


def test_a_folder_the_system_cannot_open_is_one_sentence(qtbot, tmp_path):
    bar = StatusBar(open_url=lambda url: False)
    qtbot.addWidget(bar)
    bar.show_written("Exported a.wav.", str(tmp_path))
    bar.show_folder()
    assert bar.is_error() and OPEN_FAILED.format(path=tmp_path) in bar.messageLabel.text()


def test_a_script_lines_take_is_named_with_its_project_and_line(qtbot, writer, panel, tmp_path):
    from dataclasses import replace

    from studio.views.takes_model import Row

    take = add(writer, "Good evening, and welcome to the story.")

    settings = replace(take.settings, project="/p/dialogue.ovproj", project_line=1)
    row = Row(replace(take, settings=settings), 1, 1, 1)
    dialog = ExportDialog(panel.shelf(), [row], folder=str(tmp_path), fmt="WAV")
    qtbot.addWidget(dialog)
    assert dialog.nameEdit.text() == "Good evening - dialogue line 1"


def test_return_in_the_name_field_exports(qtbot, writer, panel, tmp_path, monkeypatch):
    """Export was made the default button before it was in the dialog, so Browse… was
    the default and Return in the name field opened a folder chooser."""
    browsed = []
    monkeypatch.setattr("studio.views.take_export.QFileDialog.getExistingDirectory",
                        lambda *args: browsed.append(args) or "")  # a modal would hang here
    dialog = shown_dialog(qtbot, writer, panel, tmp_path, "Press return.")
    with qtbot.waitSignal(dialog.exported, timeout=10_000):
        qtbot.keyClick(dialog.nameEdit, Qt.Key.Key_Return)
    assert not browsed and (tmp_path / "Press return.wav").is_file()


def test_the_buttons_stay_where_they_are_as_the_new_folder_hint_comes_and_goes(
        qtbot, writer, panel, tmp_path):
    """Review 8: the hint pushed Export down 19 px as a folder was typed, so the click
    aimed at Export unticked "Also write a .json file" and nothing was exported."""
    dialog = shown_dialog(qtbot, writer, panel, tmp_path, "Stay still.")
    before = (dialog.exportButton.geometry(), dialog.sidecarCheck.geometry(), dialog.size())
    assert not dialog.folderHint.isVisible()
    for folder in (tmp_path / "new", tmp_path):
        dialog.folderEdit.setText(str(folder))
        QApplication.processEvents()  # the layout settles
        assert dialog.folderHint.isVisible() == (folder != tmp_path)
        assert (dialog.exportButton.geometry(), dialog.sidecarCheck.geometry(),
                dialog.size()) == before


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="Linux's /proc takes no folders")
def test_a_folder_that_cannot_be_made_says_why_and_drops_the_stale_hint(
        qtbot, writer, panel, tmp_path):
    """Review 8: "[Errno 2] … or free some disk space" showed under "Export makes it"."""
    add(writer, "Not there.")
    panel.refresh()
    dialog = ExportDialog(panel.shelf(), [panel.model.row_info(0)], folder="/proc/nope",
                          fmt="WAV")
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.folderHint.isVisible()
    with qtbot.waitSignal(dialog.failed, timeout=10_000) as failed:
        dialog.exportButton.click()
    said = ("The folder /proc/nope cannot be made: /proc does not take new folders; choose "
            "another folder.")
    assert failed.args == [said] and dialog.message.text() == said and dialog.isVisible()
    assert not dialog.folderHint.isVisible()  # "Export makes it" was not true
    dialog.folderEdit.setText(str(tmp_path / "fresh"))  # another folder: asked again
    assert dialog.folderHint.isVisible() and not dialog.message.isVisible()
