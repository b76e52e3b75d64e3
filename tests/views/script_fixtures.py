"""A Script view shown on screen with a four-line, two-speaker dialogue imported, as the
Script view tests start from it."""

from __future__ import annotations

from PySide6.QtCore import Qt

from studio.views.script_view import ScriptView

DIALOGUE = """Alice: Good morning, Bob.
Bob: Morning. Did you sleep well?
Alice: Not really, Kowalczyk's storm kept me up.

Bob: Then coffee first.
"""


def open_dialogue(qtbot, tmp_path, reader, player):
    """(the view, the message its import said)."""
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show()
    qtbot.waitExposed(view)
    script = tmp_path / "breakfast.txt"
    script.write_text(DIALOGUE, encoding="utf-8")
    view.pathEdit.setText(str(script))
    with qtbot.waitSignal(view.message) as said:
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    return view, said.args[0]


def open_cast(qtbot, view, path, text: str,
              cast=(("Alice", "female"), ("Bob", "male"))) -> None:
    """Open ``text`` (saved at ``path``) in ``view`` as a user would, and give each speaker
    of ``cast`` a designed voice, so Render all can start."""
    path.write_text(text, encoding="utf-8")
    view.pathEdit.setText(str(path))
    qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    for speaker, instruct in cast:
        view.speakerCombo.setCurrentIndex(view.speakerCombo.findText(speaker))
        view.instructEdit.setText(instruct)
        view.instructEdit.editingFinished.emit()
