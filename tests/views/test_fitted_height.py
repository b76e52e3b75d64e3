"""A panel's minimum height is what its wrapped lines need at its width (FitsItsWidth):
at 1024x640 the Clone view's cleanup lines under the clip were drawn over one another and
cut, the reference panel being given a minimum worked out without wrapping."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from studio.views.reference_panel import ReferencePanel
from studio.views.widgets.fitted_height import FitsItsWidth

LONG = ("The clip is cleaned before it is encoded; your file is kept. Music under the voice "
        "and room echo are not checked. Background noise -37 dBFS -> -72 dBFS.")


class Fitted(FitsItsWidth, QWidget):
    pass


def _panel(qtbot, cls) -> QWidget:
    panel = cls()
    layout = QVBoxLayout(panel)
    for _ in range(3):
        label = QLabel(LONG)
        label.setWordWrap(True)
        layout.addWidget(label)
    qtbot.addWidget(panel)
    panel.resize(200, 400)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def test_a_panel_asks_for_the_height_its_wrapped_lines_need_at_its_width(qtbot):
    plain, fitted = _panel(qtbot, QWidget), _panel(qtbot, Fitted)
    need = fitted.layout().heightForWidth(200)
    assert plain.minimumSizeHint().height() < need  # what squeezed the lines
    assert fitted.minimumSizeHint().height() >= need
    fitted.resize(400, 400)  # wider: fewer lines, a smaller minimum
    assert fitted.minimumSizeHint().height() < need


def test_the_reference_panel_fits_its_width():
    assert issubclass(ReferencePanel, FitsItsWidth)
