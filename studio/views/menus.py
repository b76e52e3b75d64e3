"""The menu bar: File, Edit, View and Help, and the keyboard shortcuts sheet.

The menus only call what the pages already do (a page's button, its dialog); the
sheet is read from the real QActions and QShortcuts of the window at the moment it
opens, so it can never list a key that does nothing or miss one that exists.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Slot
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QShortcut, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.views.help_menu import install_help_menu
from studio.views.undo import UndoRouter

NO_GUIDE = ("The user guide is not part of this copy of the studio; read it online in the "
            "project's docs folder (docs/user-guide.md).")
NO_NEW_SCRIPT = ("Type a name for the new project (ending in .ovproj) in the Project field, "
                 "or open a script with File ▸ Open.")

# What a key does where the shortcut itself has no words: (page, keys) or keys alone.
KEY_WORDS = {
    ("Clone", "Ctrl+Return"): "Generate",
    ("Design", "Ctrl+Return"): "Generate",
    ("Clone", "Esc"): "Cancel the render",
    ("Design", "Esc"): "Cancel the render",
    ("Script", "Ctrl+Return"): "Render the selected lines",
    ("Script", "Ctrl+Enter"): "Render the selected lines",
    ("Script", "Ctrl+R"): "Render the lines not rendered yet or changed since",
    ("Script", "Ctrl+Space"): "Play or pause the script",
    ("Script", "Ctrl+Up"): "Move the line up",
    ("Script", "Ctrl+Down"): "Move the line down",
    ("Script", "Return"): "Add a line below",
    ("Script", "Del"): "Delete the selected lines",
    ("Compare A/B", "A"): "Listen to A",
    ("Compare A/B", "X"): "Listen to X (blind mode)",
    ("Compare A/B", "B"): "Listen to B",
    ("Compare A/B", "Y"): "Listen to Y (blind mode)",
    ("Compare A/B", "Tab"): "Switch between the two",
    ("Compare A/B", "Space"): "Play or pause",
}
SCRIPT_TABLE_KEYS = ("Return", "Del")  # handled by the script table itself (no QShortcut)


def _key_text(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.NativeText)


def _portable(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.PortableText)


def _page_of(widget: QWidget | None) -> str:
    """The name a person knows for where ``widget`` sits: its page or panel."""
    while widget is not None:
        name = widget.accessibleName()
        if name.endswith(" view"):
            return name[: -len(" view")]
        if name in ("Takes", "Compare A/B"):
            return name
        if widget.objectName() == "abView":
            return "Compare A/B"
        widget = widget.parentWidget()
    return "Window"


def shortcut_rows(window, skip: tuple[QShortcut, ...] = ()) -> list[tuple[str, str, str]]:
    """(where, keys, what) for every key the window answers to, read from its actions and
    shortcuts (those only enabled while they apply, such as Esc during a render, too);
    the menus first, in their order. ``skip``: shortcuts the menus took over."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(where: str, keys: list[QKeySequence], what: str) -> None:
        keys = [k for k in keys if not k.isEmpty()]
        if not keys:
            return
        text = " or ".join(_key_text(k) for k in keys)
        if (where, text) not in seen:
            seen.add((where, text))
            rows.append((where, text, what))

    for menu in window.menuBar().findChildren(QMenu):
        title = menu.title().replace("&", "")
        for action in menu.actions():
            add(f"{title} menu", action.shortcuts(), action.iconText())
    takes = getattr(window, "takesPanel", None)
    if takes is not None:  # the takes list's keys are its context menu's actions
        menu = takes.context_menu()
        for action in menu.actions():
            add("Takes", action.shortcuts(), action.text().replace("&", "").rstrip("…"))
        menu.deleteLater()
        add("Takes", [QKeySequence("F2")], "Rename the take")
    for shortcut in window.findChildren(QShortcut):
        if shortcut in skip:
            continue
        where = _page_of(shortcut.parent())
        keys = shortcut.keys()
        first = _portable(keys[0]) if keys else ""
        what = shortcut.whatsThis() or KEY_WORDS.get((where, first)) or KEY_WORDS.get(first)
        if what is None and where == "Script" and first.startswith("Alt+"):
            what = f"Give the selected lines speaker {first[4:]}"
        add(where, keys, what or "")
    script = getattr(window, "scriptView", None)
    if script is not None:
        for key in SCRIPT_TABLE_KEYS:
            add("Script", [QKeySequence(key)], KEY_WORDS[("Script", key)])
    return rows


class ShortcutsDialog(QDialog):
    """Help ▸ Keyboard shortcuts: a table of every key, where it works and what it does."""

    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(620, 520)
        self.table = QTableWidget(len(rows), 3)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Where", "Keys", "What it does"])
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[tuple[str, str, str]]:
        return [tuple(self.table.item(r, c).text() for c in range(3))
                for r in range(self.table.rowCount())]


class Menus:
    """The window's menu bar; ``window`` is the MainWindow (its pages by name)."""

    def __init__(self, window, undo_stack: QUndoStack, pages: list[tuple[str, str, str]],
                 open_url=QDesktopServices.openUrl):
        """``pages``: (name, title, what it is for) of each page, in sidebar order."""
        self.window = window
        self._open_url = open_url
        self.shortcutsDialog: ShortcutsDialog | None = None
        self.guideDialog = None  # the user guide's window, made on first use
        self._stepped_aside: list[QShortcut] = []
        bar = window.menuBar()
        bar.setObjectName("menuBar")
        self.router = UndoRouter(
            undo_stack, window.scriptView,
            script_active=lambda: window.current_view() == "script",
            window_owned=(window.takesPanel,), parent=window)
        window.scriptView.undo_gives_back = self.router.script_undo_gives_back

        self.fileMenu = bar.addMenu("&File")
        self.fileMenu.setObjectName("fileMenu")
        self.newScriptAction = self._add(self.fileMenu, "&New script…", self.new_script,
                                         "Start a new script project", QKeySequence.StandardKey.New)
        self.openAction = self._add(self.fileMenu, "&Open script or project…", self.open_script,
                                    "Open a project, or import a .txt, .md, .srt or .vtt script",
                                    QKeySequence.StandardKey.Open)
        self.saveAsAction = self._add(self.fileMenu, "&Save project as…", self.save_project_as,
                                      "Write a copy of the open script project under another "
                                      "name and go on in it (every change saves as you make "
                                      "it)", QKeySequence.StandardKey.SaveAs)
        self.importClipAction = self._add(self.fileMenu, "&Import clip…", self.import_clip,
                                          "Choose an audio clip of the voice to clone", "Ctrl+I")
        self.exportAction = self._add(self.fileMenu, "&Export take…", self.export_take,
                                      "Save the selected takes as audio files", "Ctrl+E")
        self.fileMenu.addSeparator()
        self.quitAction = self._add(self.fileMenu, "&Quit", self.quit,
                                    "Close the studio (your takes and voices are kept)", "Ctrl+Q")
        self.quitAction.setMenuRole(QAction.MenuRole.QuitRole)
        self.fileMenu.aboutToShow.connect(self._refresh_file)
        self.fileMenu.aboutToHide.connect(lambda: (self.exportAction.setEnabled(True),
                                                   self.saveAsAction.setEnabled(True)))

        self.editMenu = bar.addMenu("&Edit")
        self.editMenu.setObjectName("editMenu")
        self.undoAction = self._add(self.editMenu, "&Undo", self.router.undo,
                                    "Undo the last change", QKeySequence.StandardKey.Undo)
        self.redoAction = self._add(self.editMenu, "&Redo", self.router.redo,
                                    "Redo what was undone", "Ctrl+Shift+Z")
        self.redoAction.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.editMenu.addSeparator()
        self.settingsAction = self._add(self.editMenu, "&Settings…",
                                        lambda: window.show_view("settings"),
                                        "Model, device, audio and data folder", "Ctrl+,")
        self.settingsAction.setMenuRole(QAction.MenuRole.PreferencesRole)
        # The menu's words follow what Undo would do; the keys work whenever it shows.
        self.editMenu.aboutToShow.connect(self._refresh_edit)
        self.editMenu.aboutToHide.connect(self._enable_edit)

        self.viewMenu = bar.addMenu("&View")
        self.viewMenu.setObjectName("viewMenu")
        self.viewActions: dict[str, QAction] = {}
        for number, (name, title, tip) in enumerate(pages, start=1):
            self.viewActions[name] = self._add(self.viewMenu, f"&{title}",
                                               lambda _c=False, n=name: window.show_view(n),
                                               tip, f"Ctrl+{number}")

        self.helpMenu = install_help_menu(window)
        first = self.helpMenu.actions()[0]
        self.guideAction = QAction("User &guide", self.helpMenu)
        self.guideAction.setIconText("User guide")
        self.guideAction.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))  # F1
        self.guideAction.setStatusTip("How to clone, design, script and export, step by step")
        self.guideAction.triggered.connect(self.open_guide)
        self.shortcutsAction = QAction("&Keyboard shortcuts", self.helpMenu)
        self.shortcutsAction.setIconText("Keyboard shortcuts")
        self.shortcutsAction.setShortcut(QKeySequence("Ctrl+/"))
        self.shortcutsAction.setStatusTip("Every key the studio answers to")
        self.shortcutsAction.triggered.connect(self.show_shortcuts)
        self.helpMenu.insertAction(first, self.guideAction)
        self.helpMenu.insertAction(first, self.shortcutsAction)
        self.helpMenu.insertSeparator(first)
        self._step_aside()

    def _add(self, menu: QMenu, text: str, slot, tip: str, keys=None) -> QAction:
        action = menu.addAction(text)
        action.setIconText(text.replace("&", "").rstrip("…"))  # its name, whatever the menu says
        action.setStatusTip(tip)
        action.setToolTip(tip)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _step_aside(self) -> None:
        """The pages' own Ctrl+Z shortcuts (for when they stand alone) would make the key
        ambiguous in the window, where Edit ▸ Undo owns it and routes to them."""
        owned = {_portable(k) for a in (self.undoAction, self.redoAction) for k in a.shortcuts()}
        for shortcut in self.window.findChildren(QShortcut):
            if any(_portable(k) in owned for k in shortcut.keys()):
                shortcut.setEnabled(False)
                self._stepped_aside.append(shortcut)

    # ------------------------------------------------------------------ File
    @Slot()
    def new_script(self) -> None:
        window = self.window
        window.show_view("script")
        starter = getattr(window.scriptView, "new_script", None)
        if starter is not None:
            starter()
            return
        window.scriptView.pathEdit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        window.statusBarWidget.show_message(NO_NEW_SCRIPT)

    @Slot()
    def open_script(self) -> None:
        self.window.show_view("script")
        self.window.scriptView.browseButton.click()

    @Slot()
    def save_project_as(self) -> None:
        self.window.show_view("script")
        self.window.scriptView.save_project_as()

    @Slot()
    def import_clip(self) -> None:
        self.window.show_view("clone")
        self.window.cloneView.reference.browse()

    @Slot()
    def export_take(self) -> None:
        panel = self.window.takesPanel
        if not panel.selected_takes():
            self.window.statusBarWidget.show_message("Select a take in the takes list first.")
            return
        panel.export_selected()

    @Slot()
    def quit(self) -> None:
        if self.window.close():
            QCoreApplication.quit()

    def _refresh_file(self) -> None:
        self.exportAction.setEnabled(bool(self.window.takesPanel.selected_takes()))
        self.saveAsAction.setEnabled(self.window.scriptView.project is not None)

    # ------------------------------------------------------------------ Edit
    def _refresh_edit(self) -> None:
        router = self.router
        self.undoAction.setEnabled(router.can_undo())
        self.redoAction.setEnabled(router.can_redo())
        undo, redo = router.undo_text(), router.redo_text()
        self.undoAction.setText(f"&Undo {undo}" if undo and router.can_undo() else "&Undo")
        self.redoAction.setText(f"&Redo {redo}" if redo and router.can_redo() else "&Redo")

    def _enable_edit(self) -> None:
        self.undoAction.setEnabled(True)
        self.redoAction.setEnabled(True)

    # ------------------------------------------------------------------ Help
    @Slot()
    def open_guide(self):
        """The user guide in its own window (one, raised when open again); None, said in
        the status bar, when this copy of the studio has none."""
        from studio.views.guide import GuideDialog, guide_path

        guide = guide_path()
        if guide is None:
            self.window.statusBarWidget.show_message(NO_GUIDE)
            return None
        if self.guideDialog is None:
            self.guideDialog = GuideDialog(guide, self.window, open_url=self._open_url)
        self.guideDialog.show()
        self.guideDialog.raise_()
        self.guideDialog.activateWindow()
        return self.guideDialog

    @Slot()
    def show_shortcuts(self) -> ShortcutsDialog:
        if self.shortcutsDialog is not None:
            self.shortcutsDialog.close()
            self.shortcutsDialog.deleteLater()
        self.shortcutsDialog = ShortcutsDialog(shortcut_rows(self.window, tuple(self._stepped_aside)),
                                               self.window)
        self.shortcutsDialog.show()
        return self.shortcutsDialog
