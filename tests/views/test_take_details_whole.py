"""Review 6, item 4: the take details cut text off -- at 1366x768 "Clipped: peaks cut off
at full scale; it may crackle. To…", at 1024x640 "…0.4× real time · cpu" (the details
scrolled and their scrollbar covered the right edge). Both now read whole."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint
from studio_fakes import fake_window
from take_fixtures import add, judgement

from studio.library import suspect


def reads_whole(label, viewport) -> bool:
    """The label's text fits its box, and the box is not past the viewport's right edge."""
    right = label.mapTo(viewport, QPoint(label.width(), 0)).x()
    if label.wordWrap():
        fits = label.heightForWidth(label.width()) <= label.height()
    else:
        fits = label.fontMetrics().horizontalAdvance(label.text()) <= label.width()
    return fits and right <= viewport.width()


@pytest.mark.parametrize("size", [(1024, 640), (1366, 768)])
def test_the_take_details_and_their_notice_read_whole(qtbot, tmp_path, size):
    from studio.library.takes import TakeLibrary

    with TakeLibrary() as library:  # the data folder's, which the window reads
        for seed in range(1, 5):
            take = add(library, "Chapter two. The rain had not stopped for three days.", seed,
                       "b", suspects=(suspect.CLIPPED, suspect.TOO_LOUD))
            library.set_judgements(take.id, judgement(take.settings.text))
    window = fake_window(qtbot, tmp_path, size=size)
    panel = window.takesPanel
    qtbot.wait(50)
    detail = panel.detail
    assert detail.suspectLabel.text().startswith("Clipped: peaks cut off")
    viewport = detail.scroll.viewport()
    assert reads_whole(detail.suspectLabel, viewport), detail.suspectLabel.text()
    assert reads_whole(detail.infoLabel, viewport), detail.infoLabel.text()
