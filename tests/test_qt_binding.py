"""A guard on the Qt binding itself: the player emits ~30 signals a second.

PySide6 6.12.0's ``SignalInstance.emit()`` drops one reference to ``True`` per call.
On Python 3.11 (where True is not immortal) the interpreter aborts after a few hundred
emissions with "Fatal Python error: bool_dealloc", often at exit, after every test
passed. From Python 3.12 on, True and False are immortal and the test passes.
"""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel


class _Emitter(QObject):
    ping = Signal(float)


def test_signal_emit_keeps_its_references(qapp):
    emitter = _Emitter()
    emitter.ping.connect(lambda value: None)
    before = sys.getrefcount(True)
    for _ in range(20):
        emitter.ping.emit(1.0)
    lost = before - sys.getrefcount(True)
    assert lost < 5, (
        f"PySide6 {PySide6.__version__} on Python {sys.version.split()[0]}: Signal.emit() drops "
        f"a reference to True on every call ({lost} lost in 20 calls), so the studio would "
        "abort with 'Fatal Python error: bool_dealloc'; use another PySide6-Essentials "
        "release (6.11.3 works) or Python 3.12 or later."
    )


def test_the_qt_binding_keeps_none_alive(qtbot):
    """PySide6 6.12.0 on CPython 3.11 drops a reference to None on every call of a
    void method (and on every read of an empty QVariant); a studio session then
    aborts with "none_dealloc" after a few thousand calls. 6.11 does not; on Python
    3.12+ None is immortal and the count cannot fall."""
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(200):
        label.setText("x")
    assert sys.getrefcount(None) >= before, (
        "this PySide6 build under-counts references to None; use PySide6-Essentials "
        "6.11 (or Python 3.12+) for the studio")
