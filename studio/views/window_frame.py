"""The main window's frame: the sidebar of views, and where the window sits on the screen.

The pages' names, titles and tips; the sidebar panel (brand, the list of views,
version); the first geometry on a screen, a saved one fitted to this screen, and the
splitter between the pages and the takes panel, saved and restored with the window.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QSplitter,
    QVBoxLayout,
)

from studio import __version__
from studio.settings import Settings
from studio.views.widgets.labels import heading_label, hint_label

VIEW_MIN_WIDTH = 520  # the pages fit this (tests/views/test_page_widths.py): none is cut off
VIEWS = ("clone", "design", "voices", "script", "settings")
VIEW_TITLES = {"clone": "Clone", "design": "Design", "voices": "Voices", "script": "Script",
               "settings": "Settings"}
VIEW_TIPS = {
    "clone": "Clone a voice from a reference clip (Ctrl+1)",
    "design": "Design a voice from attributes (Ctrl+2)",
    "voices": "Your saved voices: search, play, edit, import and export (Ctrl+3)",
    "script": "Multi-speaker scripts and long-form projects, line by line (Ctrl+4)",
    "settings": "Model, acceleration, cache, audio and data folder (Ctrl+5)",
}
DEFAULT_SIZE = QSize(1280, 800)  # on a screen that has room; a smaller one gets all of it
SIDEBAR_WIDTH = 176
TAKES_WIDTH = 340
TAKES_NARROW = 280  # below 1200 px of window
SIDEBAR_STYLE = """
QFrame#sidebarPanel { background: palette(base); border: none;
                      border-right: 1px solid palette(mid); }
QListWidget#sidebar { border: none; background: transparent; padding-top: 4px; outline: 0; }
/* outline: 0 drops Qt's dotted rectangle; the ring below marks the focused item instead. */
QListWidget#sidebar::item { padding: 9px 18px; margin: 2px 8px; border-radius: 6px; }
QListWidget#sidebar::item:selected { background: palette(highlight);
                                     color: palette(highlighted-text); }
QListWidget#sidebar::item:hover:!selected { background: palette(midlight); }
QListWidget#sidebar::item:focus { border: 2px solid palette(text); padding: 7px 16px; }
"""


def sidebar_list() -> QListWidget:
    """The list of views, one row per name in VIEWS (Ctrl+1 … Ctrl+5 are the View menu's)."""
    sidebar = QListWidget()
    sidebar.setObjectName("sidebar")
    sidebar.setAccessibleName("Views")
    sidebar.setToolTip("Switch views (Ctrl+1 to Ctrl+5)")
    sidebar.setFrameShape(QListWidget.Shape.NoFrame)
    font = sidebar.font()
    font.setPointSizeF(font.pointSizeF() + 1.5)
    sidebar.setFont(font)
    for name in VIEWS:
        item = QListWidgetItem(VIEW_TITLES[name])
        item.setToolTip(VIEW_TIPS[name])
        item.setData(Qt.ItemDataRole.AccessibleTextRole, f"{VIEW_TITLES[name]} view")
        sidebar.addItem(item)
    return sidebar


def sidebar_panel(sidebar: QListWidget) -> QFrame:
    """The column left of the pages: the brand, ``sidebar`` and the version."""
    panel = QFrame()
    panel.setObjectName("sidebarPanel")
    panel.setFixedWidth(SIDEBAR_WIDTH)
    panel.setStyleSheet(SIDEBAR_STYLE)
    brand = heading_label("OmniVoice", size_delta=4)
    tagline = hint_label("Desktop studio")
    version = hint_label(f"Version {__version__}")
    for label in (brand, tagline, version):
        label.setContentsMargins(18, 0, 0, 0)
    column = QVBoxLayout(panel)
    column.setContentsMargins(0, 18, 0, 12)
    column.setSpacing(2)
    column.addWidget(brand)
    column.addWidget(tagline)
    column.addSpacing(14)
    column.addWidget(sidebar, 1)
    column.addWidget(version)
    return panel


def first_geometry(available: QRect) -> QRect:
    """The first window: DEFAULT_SIZE where it fits, else the whole available area,
    centred; a laptop's 1366x768 (or 1024x640) shows Generate and the status bar."""
    size = DEFAULT_SIZE.boundedTo(available.size())
    rect = QRect(0, 0, size.width(), size.height())
    rect.moveCenter(available.center())
    return rect


def fit_within(rect: QRect, available: QRect) -> QRect:
    """A saved geometry from a larger screen: shrunk to the screen and moved onto it."""
    size = rect.size().boundedTo(available.size())
    left = min(max(rect.left(), available.left()), available.right() + 1 - size.width())
    top = min(max(rect.top(), available.top()), available.bottom() + 1 - size.height())
    return QRect(left, top, size.width(), size.height())


def available_area(window: QMainWindow) -> QRect:
    """The screen's room for windows (less panels and docks): the window's screen,
    else the primary one."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def restore_frame(window: QMainWindow, splitter: QSplitter, settings: Settings) -> None:
    """The window's saved geometry (fitted to this screen) and splitter, else first ones."""
    geometry = settings.state("window/geometry")
    if not (isinstance(geometry, QByteArray) and not geometry.isEmpty()
            and window.restoreGeometry(geometry)):
        window.setGeometry(first_geometry(available_area(window)))
    if not (window.windowState() & (Qt.WindowState.WindowMaximized
                                    | Qt.WindowState.WindowFullScreen)):
        window.setGeometry(fit_within(window.geometry(), available_area(window)))
    state = settings.state("window/splitter")
    if isinstance(state, QByteArray) and not state.isEmpty():
        splitter.restoreState(state)
    else:
        # A narrower takes panel on a small screen leaves the page room to fit.
        takes = TAKES_WIDTH if window.width() >= 1200 else TAKES_NARROW
        splitter.setSizes([window.width() - SIDEBAR_WIDTH - takes, takes])


def save_frame(window: QMainWindow, splitter: QSplitter, settings: Settings) -> None:
    settings.set_state("window/geometry", window.saveGeometry())
    settings.set_state("window/splitter", splitter.saveState())
