"""Help ▸ User guide opens the guide inside the studio (review 6: on a machine with no
program for .md files it said only "not installed"): the guide with its pictures, its links
to other pages followed in the same window, the web's handed to the desktop, and Find."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from studio_fakes import FakeController, fake_window

from studio.views.guide import GuideDialog, guide_path, heading_anchor


@pytest.fixture
def window(qtbot, tmp_path, data_writer):
    opened = []
    window = fake_window(qtbot, tmp_path, FakeController(data_writer))
    window.menus._open_url = lambda url: opened.append(url) or True  # no desktop here
    window.opened = opened
    yield window
    window.scriptView.close_project()
    window.voicesView.close_library()


def test_help_user_guide_shows_the_guide_with_its_pictures(qtbot, window):
    window.menus.guideAction.trigger()
    dialog = window.menus.guideDialog
    assert isinstance(dialog, GuideDialog) and dialog.isVisible()
    assert window.opened == []  # nothing handed to another program
    text = dialog.browser.toPlainText()
    assert "Clone" in text and "Design" in text and len(text) > 20_000
    picture = dialog.browser.loadResource(QTextDocument.ResourceType.ImageResource,
                                          QUrl("screenshots/studio-clone.png"))
    assert picture is not None and not picture.isNull()
    window.menus.guideAction.trigger()  # again: the same window, raised
    assert window.menus.guideDialog is dialog


def test_a_link_to_another_page_opens_there_at_its_heading_and_back_returns(qtbot, window):
    dialog = window.menus.open_guide()
    qtbot.waitExposed(dialog)
    dialog.browser.anchorClicked.emit(
        QUrl("troubleshooting.md#agents-mcp-omnivoice-desktop-mcp-mcp-on-serve"))
    assert dialog.browser.source().fileName() == "troubleshooting.md"
    assert dialog.browser.textCursor().block().text().startswith("Agents")
    assert dialog.browser.verticalScrollBar().value() > 0  # scrolled to it, not the top
    assert dialog.backButton.isEnabled()
    dialog.backButton.click()
    assert dialog.browser.source().fileName() == "user-guide.md"
    dialog.browser.anchorClicked.emit(QUrl("https://github.com/k2-fsa/OmniVoice"))
    assert window.opened == [QUrl("https://github.com/k2-fsa/OmniVoice")]


def test_find_goes_from_match_to_match_and_round_again(qtbot, window):
    dialog = window.menus.open_guide()
    dialog.findEdit.setText("ovproj")
    assert dialog.find_next()
    first = dialog.browser.textCursor().position()
    assert dialog.browser.textCursor().selectedText().lower() == "ovproj"
    assert dialog.find_next() and dialog.browser.textCursor().position() > first
    dialog.findEdit.setText("no such words in the guide at all")
    assert not dialog.find_next()


def test_the_guide_is_found_installed_or_in_a_checkout_and_anchors_are_githubs(tmp_path):
    assert guide_path() is not None and guide_path().name == "user-guide.md"
    # Installed, docs/ ships inside the package (pyproject maps it to studio.docs); the first
    # version looked it up as a namespace package and found nothing in a real install.
    installed = tmp_path / "site-packages" / "studio"
    (installed / "docs").mkdir(parents=True)
    (installed / "docs" / "user-guide.md").write_text("# Guide\n", encoding="utf-8")
    assert guide_path(installed / "views" / "guide.py") == installed / "docs" / "user-guide.md"
    assert guide_path(tmp_path / "elsewhere" / "studio" / "views" / "guide.py") is None
    assert heading_anchor("Agents: the MCP server") == "agents-the-mcp-server"
    assert heading_anchor("Agents (MCP: omnivoice-desktop mcp, /mcp on serve)") == \
        "agents-mcp-omnivoice-desktop-mcp-mcp-on-serve"


def picture_widths(dialog) -> list[float]:
    widths = []
    block = dialog.browser.document().begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat():
                widths.append(it.fragment().charFormat().toImageFormat().width())
            it += 1
        block = block.next()
    return widths


def test_the_guide_fits_the_window_its_pictures_scaled_and_code_wrapped(qtbot, window):
    """Review 6 (second): the guide scrolled sideways at 1366x768 and 1024x640; its
    screenshots are 1366 px wide and its commands were kept on one line."""
    dialog = window.menus.open_guide()
    dialog.resize(800, 600)
    qtbot.waitExposed(dialog)
    assert dialog.windowTitle() == "User guide"  # Qt adds the app's name once
    room = dialog.browser.viewport().width
    # As wide as the window gives (not left at an earlier, smaller fit), never wider.
    qtbot.waitUntil(lambda: room() - 60 < max(picture_widths(dialog)) <= room())
    qtbot.waitUntil(lambda: dialog.browser.horizontalScrollBar().maximum() == 0)
    dialog.resize(600, 600)
    qtbot.waitUntil(lambda: room() - 60 < max(picture_widths(dialog)) <= room())
