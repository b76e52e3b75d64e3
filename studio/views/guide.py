"""Help ▸ User guide, read inside the studio.

The guide is docs/user-guide.md, shipped in the package as ``studio.docs`` with the pages
it links to and its screenshots. It opens in a window of its own rather than in whatever
program the desktop has for .md files: many have none (a review on a fresh Linux machine
got only "not installed"), and one that has shows the markup, not the pictures.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QTimer, QUrl
from PySide6.QtGui import (
    QDesktopServices,
    QImageReader,
    QKeySequence,
    QShortcut,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

GUIDE = "user-guide.md"


def guide_path(here: Path = Path(__file__)) -> Path | None:
    """The user guide: the installed package's copy (studio/docs), else the source
    checkout's or a frozen build's (docs/ beside studio/)."""
    views = here.resolve().parent
    folders = (views.parent / "docs", views.parent.parent / "docs")
    return next((f / GUIDE for f in folders if (f / GUIDE).is_file()), None)


class GuideDialog(QDialog):
    """The guide in a browser: its links to the other pages open here, the web's in the
    desktop's browser; Back, Contents, and Find (Ctrl+F, Return for the next match)."""

    def __init__(self, guide: Path, parent: QWidget | None = None,
                 open_url=QDesktopServices.openUrl):
        super().__init__(parent)
        self.setObjectName("guideDialog")
        self.setWindowTitle("User guide")  # Qt adds " — OmniVoice Desktop", the app's name
        self._home = QUrl.fromLocalFile(str(guide))
        self._open_url = open_url

        self.browser = QTextBrowser()
        self.browser.setObjectName("guideBrowser")
        self.browser.setOpenLinks(False)  # each link is routed by _follow
        self.browser.anchorClicked.connect(self._follow)
        self.backButton = QPushButton("Back")
        self.backButton.setEnabled(False)
        self.backButton.clicked.connect(self.browser.backward)
        self.browser.backwardAvailable.connect(self.backButton.setEnabled)
        contents = QPushButton("Contents")
        contents.setToolTip("Back to the start of the user guide")
        contents.clicked.connect(lambda: self.browser.setSource(self._home))
        self.findEdit = QLineEdit()
        self.findEdit.setObjectName("guideFind")
        self.findEdit.setPlaceholderText("Find in the guide (Return: next)")
        self.findEdit.setClearButtonEnabled(True)
        self.findEdit.returnPressed.connect(self.find_next)
        QShortcut(QKeySequence.StandardKey.Find, self, self.findEdit.setFocus)

        bar = QHBoxLayout()
        bar.addWidget(self.backButton)
        bar.addWidget(contents)
        bar.addWidget(self.findEdit, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.browser, 1)
        self.browser.sourceChanged.connect(self._fit_page)
        self.browser.setSource(self._home, QTextDocument.ResourceType.MarkdownResource)
        screen = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(900, screen.width() * 9 // 10), screen.height() * 85 // 100)

    def _fit_page(self) -> None:
        """The page at the window's width: code blocks wrap, and a screenshot (1366 px
        wide) is shown scaled down to fit; else every page scrolled sideways."""
        document = self.browser.document()
        room = max(200, self.browser.viewport().width() - 24)
        cursor = QTextCursor(document)
        block = document.begin()
        while block.isValid():
            if block.blockFormat().nonBreakableLines():
                wrapped = block.blockFormat()
                wrapped.setNonBreakableLines(False)
                cursor.setPosition(block.position())
                cursor.setBlockFormat(wrapped)
            it = block.begin()
            while not it.atEnd():
                self._fit_picture(cursor, it.fragment(), room)
                it += 1
            block = block.next()

    def _fit_picture(self, cursor: QTextCursor, fragment, room: int) -> None:
        if not fragment.charFormat().isImageFormat():
            return
        picture = fragment.charFormat().toImageFormat()
        data = self.browser.loadResource(QTextDocument.ResourceType.ImageResource,
                                         QUrl(picture.name()))
        if not isinstance(data, QByteArray):  # not found: Qt draws its placeholder
            return
        buffer = QBuffer(data)  # held here: the reader does not own it
        size = QImageReader(buffer).size()  # the header only, not the pixels
        if size.isEmpty():
            return
        scale = min(1.0, room / size.width())
        picture.setWidth(size.width() * scale)
        picture.setHeight(size.height() * scale)
        cursor.setPosition(fragment.position())
        cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
        cursor.setCharFormat(picture)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        QTimer.singleShot(0, self._fit_page)  # once the layout has resized the browser too

    def _follow(self, url: QUrl) -> None:
        if not (url.isLocalFile() or url.isRelative()):
            self._open_url(url)  # the web: the desktop's browser
            return
        target = self.browser.source().resolved(url)
        if not target.toLocalFile().endswith(".md"):
            self._open_url(target)  # a picture or another file: its own program
            return
        if target.toLocalFile() != self.browser.source().toLocalFile():  # another page
            self.browser.setSource(target, QTextDocument.ResourceType.MarkdownResource)
        if url.fragment():
            self.go_to_heading(url.fragment())

    def go_to_heading(self, anchor: str) -> bool:
        """Scroll to the heading a GitHub-style anchor names ("#agents-the-mcp-server"):
        Qt's Markdown gives headings no anchors of their own."""
        document = self.browser.document()
        block = document.begin()
        while block.isValid():
            if block.blockFormat().headingLevel() and heading_anchor(block.text()) == anchor:
                self.browser.setTextCursor(QTextCursor(block))
                top = document.documentLayout().blockBoundingRect(block).top()
                self.browser.verticalScrollBar().setValue(int(top))
                return True
            block = block.next()
        return False

    def find_next(self) -> bool:
        """The next match of the Find field's words, from the top again after the last."""
        words = self.findEdit.text().strip()
        if not words:
            return False
        if self.browser.find(words):
            return True
        self.browser.moveCursor(QTextCursor.MoveOperation.Start)
        return self.browser.find(words)


def heading_anchor(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    kept = "".join(c for c in text.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")
