"""ReflowRow: its groups side by side where they fit, one under the other where not,
and never a button squeezed below the width of its text."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QLineEdit, QPushButton

from studio.views.script_reflow import ReflowRow


def test_groups_stack_when_narrow_and_lie_flat_when_wide(qtbot):
    edit = QLineEdit()
    buttons = [QPushButton(t) for t in ("Render 12 changed", "Render all", "Cancel")]
    row = ReflowRow((edit,), buttons, grow=(edit,))
    qtbot.addWidget(row)
    row.show()
    need = row.needed_width()
    row.resize(need + 40, 80)
    QApplication.processEvents()
    assert not row.stacked()
    assert len({b.y() for b in buttons}) == 1 and edit.parentWidget().y() == \
        buttons[0].parentWidget().y(), "one line"
    row.resize(need - 40, 80)
    QApplication.processEvents()
    assert row.stacked(), "too narrow for both groups"
    assert buttons[0].parentWidget().y() > edit.parentWidget().y(), "the buttons go below"
    assert all(b.width() >= b.sizeHint().width() for b in buttons), "no text cut"
    assert row.minimumSizeHint().width() < need, "the row may be narrower than flat"


def test_a_longer_text_stacks_the_row_when_asked_to_reflow(qtbot):
    edit = QLineEdit()
    button = QPushButton("Go")
    row = ReflowRow((edit,), (button,), grow=(edit,))
    qtbot.addWidget(row)
    row.show()
    row.resize(row.needed_width() + 10, 40)
    QApplication.processEvents()
    assert not row.stacked()
    button.setText("Render 123 new or changed lines, please, every one of them")
    row.reflow()
    assert row.stacked()
