"""The takes' Sort choice and every folding section's open or closed state come back after
a restart (issue 28's new-user review: both were forgotten)."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from studio_fakes import CPU_ONLY, PLAYABLE, FakeController, FakePlayer

from studio.settings import Settings
from studio.views.main_window import MainWindow
from studio.views.takes_model import BEST, NEWEST
from studio.views.widgets.collapsible import CollapsibleSection


def window_on(qtbot, path) -> MainWindow:
    settings = Settings(QSettings(str(path), QSettings.Format.IniFormat), environ={})
    window = MainWindow(settings, FakeController(), FakePlayer(), audio_status=PLAYABLE,
                        accel_probe=lambda: CPU_ONLY, asr_on_disk=lambda model: model)
    qtbot.addWidget(window)
    return window


def sections(window) -> dict[str, CollapsibleSection]:
    """Every folding section, by where it sits (two forms each have an Advanced)."""
    found = {}
    for section in window.findChildren(CollapsibleSection):
        where, parent = [], section
        while parent is not None and parent is not window:
            if parent.objectName():
                where.append(parent.objectName())
            parent = parent.parentWidget()
        found["/".join(reversed(where))] = section
    return found


def test_sort_and_sections_survive_a_restart(qtbot, tmp_path):
    path = tmp_path / "state.ini"
    first = window_on(qtbot, path)
    first.show()
    qtbot.waitExposed(first)
    panel = first.takesPanel
    assert panel.sortCombo.currentData() == NEWEST
    panel.sortCombo.setCurrentIndex(panel.sortCombo.findData(BEST))
    before = sections(first)
    names = {where.rsplit("/", 1)[-1] for where in before}
    assert {"judgementsSection", "dictionarySection", "advancedSection",
            "designReferenceSection"} <= names, sorted(before)
    flipped = {where: not section.is_expanded() for where, section in before.items()}
    for where, section in before.items():
        section.set_expanded(flipped[where])
    first.close()

    second = window_on(qtbot, path)
    assert second.takesPanel.sortCombo.currentData() == BEST
    after = {where: section.is_expanded() for where, section in sections(second).items()}
    assert after == flipped

    # And back: closed ones stay closed too.
    for where, section in sections(second).items():
        section.set_expanded(not flipped[where])
    second.takesPanel.sortCombo.setCurrentIndex(second.takesPanel.sortCombo.findData(NEWEST))
    second.close()
    third = window_on(qtbot, path)
    assert third.takesPanel.sortCombo.currentData() == NEWEST
    assert {w: s.is_expanded() for w, s in sections(third).items()} == \
        {w: not v for w, v in flipped.items()}
