"""Issue 27: the Script view does its file work off the GUI thread and reads the data
folder's pronunciations once. Selecting lines does not read pronunciations.json again;
the export of a long mix runs on its own thread while the GUI thread stays on time, shows
its progress, and a failed or cancelled export leaves nothing."""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import Qt

from studio.engine.lexicon import GLOBAL_FILE, Lexicon
from studio.paths import data_dir
from studio.views.script_view import ScriptView

DIALOGUE = """Alice: Good morning, Bob.
Bob: Morning. Did you sleep well?
Alice: Not really, Kowalczyk's storm kept me up.

Bob: Then coffee first.
"""


@pytest.fixture
def view(qtbot, tmp_path, reader, player):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show()
    qtbot.waitExposed(view)
    script = tmp_path / "breakfast.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    view.pathEdit.setText(str(script))
    with qtbot.waitSignal(view.message):
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    yield view
    view.close_project()


def test_selecting_lines_does_not_read_the_pronunciations_again(qtbot, view, monkeypatch):
    common = data_dir() / GLOBAL_FILE
    common.parent.mkdir(parents=True, exist_ok=True)
    common.write_text(json.dumps({"Kowalczyk": "Ko-VAL-chik"}), encoding="utf-8")
    reads = []
    load = Lexicon.load.__func__

    def counted(cls, path):
        reads.append(path)
        return load(cls, path)

    monkeypatch.setattr(Lexicon, "load", classmethod(counted))
    for _ in range(5):
        for row in range(view.model.rowCount()):
            view.select_row(row)
    view.select_row(2)
    assert view.readsLabel.text() == "The model reads: Not really, Ko-VAL-chik's storm kept me up."
    assert len(reads) <= 1, f"pronunciations.json read {len(reads)} times for 20 selections"
    common.write_text(json.dumps({"Kowalczyk": "Kovalchick"}), encoding="utf-8")
    os.utime(common, ns=(1, 1))  # a new stamp, whatever the clock's resolution
    view.select_row(0)
    view.select_row(2)
    assert view.readsLabel.text() == "The model reads: Not really, Kovalchick's storm kept me up."
    assert len(reads) <= 2, "a changed file is read once more"
