"""The journey driver: loaded into the launched studio when OMNIVOICE_DESKTOP_DRIVER names
this file, it lets a test process act as the user over a local socket.

It runs on the GUI thread and imports Qt only (never torch or the engine), so the
program starts and renders exactly as it does for a user. Each request is one JSON
line; each answer is one JSON line, ``{"ok": true, ...}`` or ``{"ok": false,
"error": "..."}``. Widgets are named by objectName, optionally scoped by the names
of their ancestors: ``"designView/generateButton"``. Top-level windows (dialogs)
are searched too.

Clicks and typing go through QTest (real mouse and key events delivered to the
widget), so a disabled button stays unclickable, as it is for a user.
"""

from __future__ import annotations

import json
import os
import time

import shiboken6
from PySide6.QtCore import QObject, QPoint, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QScrollBar,
    QTableView,
    QTextEdit,
    QWidget,
)

SOCKET_ENV = "OMNIVOICE_DESKTOP_DRIVER_SOCKET"
MODIFIERS = {
    "ctrl": Qt.KeyboardModifier.ControlModifier,
    "shift": Qt.KeyboardModifier.ShiftModifier,
    "alt": Qt.KeyboardModifier.AltModifier,
}


class DriverError(Exception):
    """A request the driver cannot carry out (no such widget, bad arguments)."""


def _matches(widget: QObject, parts: list[str]) -> bool:
    """Whether the ancestors of ``widget`` carry the scope names in order."""
    wanted = list(parts)
    node = widget.parent()
    while node is not None and wanted:
        if node.objectName() == wanted[-1]:
            wanted.pop()
        node = node.parent()
    return not wanted


def _alive(widget: QWidget) -> bool:
    if not shiboken6.isValid(widget):
        return False
    try:
        widget.isVisible()
    except RuntimeError:  # its C++ object is gone
        return False
    return True


def find(target: str) -> QWidget:
    """The widget ``target`` names; a visible one wins over hidden ones of the same name."""
    parts = [p for p in target.split("/") if p]
    if not parts:
        raise DriverError("empty target")
    *scope, name = parts
    found: list[QWidget] = []
    for top in QApplication.topLevelWidgets():
        candidates = [top] if top.objectName() == name else []
        candidates += top.findChildren(QWidget, name)
        # (a file dialog's children may include wrappers of widgets it already deleted)
        found += [w for w in candidates if _alive(w) and _matches(w, scope)]
    if not found:
        raise DriverError(f"no widget named {target!r}")
    visible = [w for w in found if w.isVisible()]
    return (visible or found)[0]


def describe(widget: QWidget) -> dict:
    """What a user can see of a widget: its text, value, state and item count."""
    info: dict = {
        "class": type(widget).__name__,
        "visible": widget.isVisible(),
        "enabled": widget.isEnabled(),
        "tooltip": widget.toolTip(),
    }
    if isinstance(widget, (QLabel, QLineEdit, QAbstractButton)):
        info["text"] = widget.text()
    if isinstance(widget, QAbstractButton):
        info["checked"] = widget.isChecked()
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        info["text"] = widget.toPlainText()
    if isinstance(widget, QComboBox):
        info["text"] = widget.currentText()
        info["items"] = [widget.itemText(i) for i in range(widget.count())]
        model = widget.model()
        info["enabled_items"] = [
            widget.itemText(i) for i in range(widget.count())
            if model.flags(model.index(i, widget.modelColumn())) & Qt.ItemFlag.ItemIsEnabled]
        info["index"] = widget.currentIndex()
    if isinstance(widget, QAbstractSpinBox):
        info["text"] = widget.text()
        info["value"] = widget.value() if hasattr(widget, "value") else None
    if isinstance(widget, QProgressBar):
        info["value"] = widget.value()
        info["maximum"] = widget.maximum()
        info["text"] = widget.text()
    if isinstance(widget, QAbstractItemView) and widget.model() is not None:
        model = widget.model()
        info["count"] = model.rowCount()
        info["rows"] = [str(model.index(r, 0).data() or "") for r in range(model.rowCount())]
        info["spoken"] = [str(model.index(r, 0).data(Qt.ItemDataRole.AccessibleTextRole) or "")
                          for r in range(model.rowCount())]  # what a screen reader says
        if isinstance(widget, QTableView):  # every cell as shown, row by row
            info["cells"] = [[str(model.index(r, c).data() or "")
                              for c in range(model.columnCount())]
                             for r in range(model.rowCount())]
        current = widget.currentIndex()
        info["current"] = current.row() if current.isValid() else -1
        info["selected"] = sorted({i.row() for i in widget.selectionModel().selectedIndexes()}) \
            if widget.selectionModel() is not None else []
    return info


def _click_at(widget: QWidget, pos: QPoint | None = None, modifiers=Qt.KeyboardModifier.NoModifier):
    if not widget.isVisible():
        raise DriverError(f"{widget.objectName()!r} is not visible")
    if pos is None:
        pos = widget.rect().center()
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, modifiers, pos)


def _modifiers(names) -> Qt.KeyboardModifier:
    value = Qt.KeyboardModifier.NoModifier
    for name in names or ():
        value |= MODIFIERS[name]
    return value


class Lateness(QObject):
    """How late a 10 ms GUI-thread timer fires: the event loop's stalls, as a user feels them."""

    PERIOD_MS = 10

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(self.PERIOD_MS)
        self._timer.timeout.connect(self._tick)
        self._late: list[float] = []
        self._last: float | None = None

    def start(self) -> None:
        self._late, self._last = [], None
        self._timer.start()

    def _tick(self) -> None:
        now = time.monotonic()
        if self._last is not None:
            self._late.append(max(0.0, (now - self._last) * 1000 - self.PERIOD_MS))
        self._last = now

    def stop(self) -> dict:
        self._timer.stop()
        late = sorted(self._late)
        if not late:
            return {"ticks": 0}
        def pick(q: float) -> float:
            return round(late[min(len(late) - 1, int(q * len(late)))], 2)
        return {"ticks": len(late), "p50_ms": pick(0.5), "p99_ms": pick(0.99),
                "max_ms": round(late[-1], 2)}


class Driver(QObject):
    """Answers requests from the journey test on the GUI thread."""

    def __init__(self, window: QWidget, path: str):
        super().__init__(window)
        self.window = window
        self.server = QLocalServer(self)
        QLocalServer.removeServer(path)
        if not self.server.listen(path):
            raise RuntimeError(f"the journey driver cannot listen on {path}: "
                               f"{self.server.errorString()}")
        self.server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}
        # The null audio device plays as fast as it is fed, so a state is often over
        # before a poll could see it: keep every transport state the player went through.
        self.player_states: list[str] = []
        # When the user first saw each thing (CLOCK_MONOTONIC, which every process shares),
        # for benchmarks/bench_studio.py: the window, the loaded model, a take, its sound.
        self.seen: dict[str, float] = {"window": time.monotonic()}
        # What the progress bars said when sound first started (play as it renders), and a
        # screenshot to take right after that moment (op_shoot_at_first_sound).
        self.first_sound: dict[str, str] | None = None
        self._shoot_at_sound: str | None = None
        player = getattr(window, "_player", None)
        if player is not None:
            player.state_changed.connect(self._player_state)
        worker = window._controller.worker
        worker.model_loaded.connect(lambda _info: self._see("model_loaded"))
        window._controller.job_started.connect(
            lambda job: job.done.connect(lambda _result: self._see("take")))
        self._lateness = Lateness(self)

    def _see(self, what: str) -> None:
        self.seen.setdefault(what, time.monotonic())

    def _player_state(self, state: str) -> None:
        self.player_states.append(state)
        if state == "playing":
            self._see("heard")
            if self.first_sound is None:
                self.first_sound = {name: bar.format() for name in ("cloneForm", "designForm")
                                    for bar in [find(f"{name}/progressBar")]}
                script = find("scriptProgress")  # a script's render: what it had reached
                self.first_sound["script"] = script.format() if script.isVisible() else ""
            if self._shoot_at_sound:
                path, self._shoot_at_sound = self._shoot_at_sound, None
                # Once the chunk that started the sound is laid out and painted (on an X
                # server the screen's pixels lag the widgets), not from inside its handling.
                QTimer.singleShot(120, lambda: self.op_screenshot(path))

    def _accept(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            self._buffers[socket] = b""
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(lambda s=socket: self._buffers.pop(s, None))

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll())
        *lines, rest = data.split(b"\n")
        self._buffers[socket] = rest
        for line in lines:
            if line.strip():
                answer = self.handle(json.loads(line))
                socket.write(json.dumps(answer).encode() + b"\n")
                socket.flush()

    def handle(self, request: dict) -> dict:
        op = request.get("op", "")
        method = getattr(self, f"op_{op}", None)
        if method is None:
            return {"ok": False, "error": f"unknown op {op!r}"}
        try:
            return {"ok": True, **(method(**request.get("args", {})) or {})}
        except DriverError as exc:
            return {"ok": False, "error": str(exc)}
        except Exception as exc:  # a driver bug, told to the test rather than crashing the app
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}

    # ------------------------------------------------------------ requests
    def op_ping(self) -> dict:
        return {"pid": os.getpid(), "window": self.window.isVisible()}

    def op_get(self, target: str) -> dict:
        return describe(find(target))

    def op_exists(self, target: str) -> dict:
        try:
            widget = find(target)
        except DriverError:
            return {"exists": False, "visible": False}
        return {"exists": True, "visible": widget.isVisible()}

    def op_click(self, target: str, modifiers=()) -> dict:
        widget = find(target)
        _click_at(widget, modifiers=_modifiers(modifiers))
        return {}

    def op_click_row(self, target: str, row: int, modifiers=()) -> dict:
        """Click an item of a list by its row, as a user clicks it."""
        view = find(target)
        if not isinstance(view, QAbstractItemView):
            raise DriverError(f"{target!r} is not a list")
        index = view.model().index(row, 0)
        if not index.isValid():
            raise DriverError(f"{target!r} has no row {row}")
        view.scrollTo(index)
        _click_at(view.viewport(), view.visualRect(index).center(), _modifiers(modifiers))
        return {}

    def op_type(self, target: str, text: str, clear: bool = True) -> dict:
        """Focus the widget and type, key by key (select-all first to replace)."""
        widget = find(target)
        widget.setFocus(Qt.FocusReason.MouseFocusReason)
        if clear:
            QTest.keyClick(widget, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            QTest.keyClick(widget, Qt.Key.Key_Delete)
        QTest.keyClicks(widget, text)
        return {}

    def op_file_dialog(self, path: str) -> dict:
        """Answer the open file dialog as a user who typed ``path`` and pressed Enter. Its
        name field is looked up from the dialog itself: found by name among all windows,
        PySide at times handed back a stale wrapper (New script's journey failed about one
        run in two with "Internal C++ object (QLineEdit) already deleted")."""
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            raise DriverError("no file dialog is open")
        edit = dialog.findChild(QLineEdit, "fileNameEdit")
        if edit is None or not _alive(edit):
            raise DriverError("the file dialog has no name field")
        edit.setText(path)
        QTimer.singleShot(0, dialog.accept)  # after this answer: accept ends its loop
        return {}

    def op_key(self, target: str, key: str, modifiers=()) -> dict:
        widget = find(target)
        top = widget.window()  # keys go to the active window, as a user's do (its shortcuts too)
        if not top.isActiveWindow():
            top.activateWindow()
            deadline = time.monotonic() + 2
            while not top.isActiveWindow() and time.monotonic() < deadline:
                QTest.qWait(20)
        widget.setFocus(Qt.FocusReason.OtherFocusReason)
        code = getattr(Qt.Key, f"Key_{key}", None)
        if code is None:
            raise DriverError(f"unknown key {key!r}")
        QTest.keyClick(widget, code, _modifiers(modifiers))
        return {}

    def op_menu(self, path: str, later: bool = False) -> dict:
        """Choose "Edit/Undo" from the menu bar with the mouse: click the menu's title, then
        the item whose words start so (a disabled item is an error, as it does nothing).
        ``later``: the item is clicked after this answer, for an item that opens a modal
        dialog (whose loop would hold the answer back until the dialog closed)."""
        title, _, item = path.partition("/")
        bar = self.window.menuBar()
        heads = {a.text().replace("&", ""): a for a in bar.actions()}
        if title not in heads:
            raise DriverError(f"no menu {title!r} (there are {list(heads)})")
        _click_at(bar, bar.actionGeometry(heads[title]).center())
        menu = heads[title].menu()
        deadline = time.monotonic() + 5
        while not menu.isVisible() and time.monotonic() < deadline:
            QTest.qWait(20)
        if not menu.isVisible():
            raise DriverError(f"the {title} menu did not open")
        words = [a.text().replace("&", "") for a in menu.actions()]
        chosen = [a for a, w in zip(menu.actions(), words) if item and w.startswith(item)]
        if not chosen or not chosen[0].isEnabled():
            menu.close()
            raise DriverError(f"{path!r} is {'disabled' if chosen else 'not there'} "
                              f"(the menu has {words})")
        where = menu.actionGeometry(chosen[0]).center()
        if later:
            QTimer.singleShot(0, lambda: _click_at(menu, where))
        else:
            _click_at(menu, where)
        return {"text": chosen[0].text().replace("&", "")}

    def op_type_focused(self, text: str, enter: bool = False) -> dict:
        """Type into the widget that has the keyboard focus in the main window (an in-place
        editor has no name); the window is made active first, as a user's click would."""
        if not self.window.isActiveWindow():
            self.window.activateWindow()
            deadline = time.monotonic() + 2
            while not self.window.isActiveWindow() and time.monotonic() < deadline:
                QTest.qWait(20)
        widget = QApplication.focusWidget() or self.window.focusWidget()
        if widget is None:
            raise DriverError("nothing has the keyboard focus")
        QTest.keyClicks(widget, text)
        if enter:  # Enter, to the same widget (an editor commits on it)
            QTest.keyClick(widget, Qt.Key.Key_Return)
        return {"focused": type(widget).__name__}

    def op_choose(self, target: str, text: str) -> dict:
        """Pick an item of a combo box by its text, as choosing it from the popup does."""
        combo = find(target)
        if not isinstance(combo, QComboBox):
            raise DriverError(f"{target!r} is not a combo box")
        if not combo.isEnabled():
            raise DriverError(f"{target!r} is disabled")
        index = combo.findText(text)
        if index < 0:
            items = [combo.itemText(i) for i in range(combo.count())]
            raise DriverError(f"{target!r} has no item {text!r} (it has {items})")
        model = combo.model()
        if not model.flags(model.index(index, combo.modelColumn())) & Qt.ItemFlag.ItemIsEnabled:
            raise DriverError(f"{target!r}: the item {text!r} is disabled")
        combo.setCurrentIndex(index)
        combo.activated.emit(index)  # what the popup emits after setting the index
        combo.textActivated.emit(text)
        return {}

    def op_screenshot(self, path: str, target: str | None = None) -> dict:
        """Save what the screen shows of the window (or of one widget) as a PNG."""
        widget = find(target) if target else self.window
        screen = QGuiApplication.primaryScreen()
        platform = QGuiApplication.platformName()
        # On a real X server, grab the screen's own pixels of the window: what a user sees.
        if platform == "xcb" and target is None:
            pixmap = screen.grabWindow(0, *widget.frameGeometry().getRect())
        else:
            pixmap = widget.grab()
        if not pixmap.save(path):
            raise DriverError(f"could not save {path}")
        return {"platform": platform, "width": pixmap.width(), "height": pixmap.height()}

    def op_crowded(self, target: str) -> dict:
        """The shown labels, buttons, combos and line edits under ``target`` that are
        lower than their minimum (squashed) and the labels drawn over one another."""
        root = find(target)
        shown = [w for kind in (QLabel, QAbstractButton, QComboBox, QLineEdit)
                 for w in root.findChildren(kind)
                 if w.isVisible() and not w.objectName().startswith("qt_")
                 and not isinstance(w.parent(), QLineEdit)]
        name = lambda w: w.objectName() or getattr(w, "text", lambda: "")()[:40]  # noqa: E731
        squashed = [f"{name(w)}: {w.height()} px of {w.minimumSizeHint().height()}"
                    for w in shown if w.height() < w.minimumSizeHint().height()]
        boxes = [(w, w.rect().translated(w.mapTo(root, QPoint(0, 0))))
                 for w in shown if isinstance(w, QLabel) and w.text()]
        overlaps = [f"{name(a)!r} over {name(b)!r}" for i, (a, ra) in enumerate(boxes)
                    for b, rb in boxes[i + 1:] if ra.intersects(rb)]
        return {"squashed": squashed, "overlaps": overlaps}

    def op_windows(self) -> dict:
        """The visible top-level windows: dialogs and message boxes a user would see."""
        shown = []
        for top in QApplication.topLevelWidgets():
            if top.isVisible() and top.isWindow():
                texts = [w.text() for w in top.findChildren(QLabel) if w.isVisible() and w.text()]
                shown.append({"name": top.objectName(), "class": type(top).__name__,
                              "title": top.windowTitle(), "texts": texts})
        return {"windows": shown, "platform": QGuiApplication.platformName()}

    def op_player(self) -> dict:
        """The shared player's transport, for asserting that sound went to the device."""
        player = getattr(self.window, "_player", None)
        if player is None:
            raise DriverError("the window has no player")
        return {"state": player.state(), "position": player.position(),
                "duration": player.duration(), "underflows": player.underflows,
                "states": list(self.player_states)}

    def op_shoot_at_first_sound(self, path: str) -> dict:
        """Save a screenshot of the window just after the player next starts."""
        self._shoot_at_sound = path
        return {}

    def op_first_sound(self) -> dict:
        return {"first_sound": self.first_sound}

    def op_seen(self) -> dict:
        return {"seen": dict(self.seen)}

    def op_lateness(self, action: str) -> dict:
        """"start" a 10 ms timer on the GUI thread, "stop" it: how late its ticks came."""
        if action == "start":
            self._lateness.start()
            return {}
        return self._lateness.stop()

    def op_rect(self, target: str) -> dict:
        """Where a widget is on the screen (global pixels) and the screen's room for
        windows, to assert that it can be seen without scrolling the desktop."""
        widget = find(target)
        top_left = widget.mapToGlobal(QPoint(0, 0))
        screen = (widget.screen() or QGuiApplication.primaryScreen()).availableGeometry()
        return {"rect": [top_left.x(), top_left.y(), widget.width(), widget.height()],
                "visible": widget.isVisible(),
                "screen": [screen.x(), screen.y(), screen.width(), screen.height()],
                "window": list(self.window.frameGeometry().getRect())}

    def op_activate(self) -> dict:
        """Make the main window the active one, as a click on it does under a window
        manager (a bare X server has none): keyboard focus needs an active window."""
        self.window.raise_()
        self.window.activateWindow()
        return {"active": self.window.isActiveWindow()}

    def op_focus(self) -> dict:
        """The widget with the keyboard focus: its name, class and named ancestors."""
        widget = QApplication.focusWidget()
        if widget is None:
            return {"name": None, "class": None, "ancestors": []}
        ancestors, node = [], widget.parentWidget()
        while node is not None:
            if node.objectName():
                ancestors.append(node.objectName())
            node = node.parentWidget()
        selected = widget.selectedText() if isinstance(widget, QLineEdit) else ""
        return {"name": widget.objectName(), "class": type(widget).__name__,
                "ancestors": ancestors, "selected": selected}

    def op_values(self) -> dict:
        """Every value a wheel could change in the main window: combo boxes, spin boxes,
        sliders and check boxes, keyed by name and position in the widget tree, with
        the global centre of each one that is on screen (to point the wheel at)."""
        values, seen = {}, {}
        kinds = (QComboBox, QAbstractSpinBox, QAbstractSlider, QCheckBox)
        for widget in self.window.findChildren(QWidget):
            if not isinstance(widget, kinds) or isinstance(widget, QScrollBar):
                continue
            # Named by its named ancestors and its own name, numbered among namesakes:
            # stable while the wheel (wrongly) makes a view build new widgets.
            names, node = [widget.objectName() or type(widget).__name__], widget.parentWidget()
            while node is not None and node is not self.window:
                if node.objectName():
                    names.append(node.objectName())
                node = node.parentWidget()
            path = "/".join(reversed(names))
            seen[path] = seen.get(path, 0) + 1
            if isinstance(widget, QComboBox):
                value = widget.currentText()
            elif isinstance(widget, QCheckBox):
                value = widget.isChecked()
            elif isinstance(widget, QAbstractSpinBox):
                value = widget.text()
            else:
                value = widget.value()
            centre = widget.mapToGlobal(widget.rect().center())
            shown = widget.isVisible() and not widget.visibleRegion().isEmpty()
            values[f"{path}#{seen[path]}"] = {
                "value": value, "shown": shown, "enabled": widget.isEnabled(),
                "centre": [centre.x(), centre.y()]}
        return {"values": values}

    def op_close(self) -> dict:
        """Close the main window as its close button does; the app then quits."""
        QTimer.singleShot(0, self.window.close)
        return {}


def attach(window: QWidget) -> Driver:
    path = os.environ.get(SOCKET_ENV)
    if not path:
        raise RuntimeError(f"{SOCKET_ENV} must name the socket the journey driver listens on")
    return Driver(window, path)
