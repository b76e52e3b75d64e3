"""Issue 31: a book imports into a project off the GUI thread. A 100k-character Markdown
text (ten chapters of long paragraphs) imports while a 10 ms GUI timer keeps firing, its
progress on the view's progress line; the project opens with its chapters; Cancel leaves
no project; an EPUB opens the same way."""

from __future__ import annotations

import time

import pytest
from gui_lateness import Lateness
from PySide6.QtCore import Qt

from studio.views.script_lines_model import NUMBER, TEXT
from studio.views.script_view import ScriptView
from tests.epub_fixture import write_epub

SENTENCE = "The rain had not stopped for three days, and the river rose under the bridge. "


def long_book(chapters: int = 10, paragraphs: int = 16) -> str:
    parts = []
    for c in range(1, chapters + 1):
        parts.append(f"# Chapter {c}\n")
        for p in range(paragraphs):
            parts.append(f"Paragraph {p} of chapter {c}. " + SENTENCE * 8 + "\n")
    return "\n".join(parts)


@pytest.fixture
def view(qtbot, reader, player):
    view = ScriptView(player, takes=lambda: reader)
    qtbot.addWidget(view)
    view.resize(900, 720)
    view.show()
    qtbot.waitExposed(view)
    yield view
    view._cancel_import(wait=10)
    view.close_project()


def test_a_100k_character_text_imports_with_the_window_responsive(qtbot, view, tmp_path,
                                                                  monkeypatch):
    import threading

    from studio.scripts import books

    threads = []
    real_import = books.import_book

    def import_book(*args, **kwargs):
        threads.append(threading.current_thread())
        return real_import(*args, **kwargs)

    monkeypatch.setattr(books, "import_book", import_book)
    text = long_book()
    assert len(text) > 100_000
    book = tmp_path / "novel.md"
    book.write_text(text, encoding="utf-8")
    lateness, shown = Lateness(), set()
    view.progress.valueChanged.connect(lambda _v: shown.add(view.progress.format()))
    view.pathEdit.setText(str(book))
    lateness.timer.start()
    started = time.monotonic()
    with qtbot.waitSignal(view.message, timeout=120_000) as said:
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
        assert view.importing() and view.cancelButton.isEnabled()
    took = time.monotonic() - started
    ticks = len(lateness.gaps)
    qtbot.wait(60)  # the ticks after the project opened count too: opening is GUI work
    lateness.timer.stop()
    worst = max(lateness.gaps, default=took)
    print(f"import of {len(text):,} characters {took * 1000:.0f} ms; GUI timer ticks {ticks}, "
          f"worst late {worst * 1000:.1f} ms")
    assert said.args[0].startswith("Imported novel.md into novel.ovproj: ")
    assert said.args[0].endswith("in 10 chapters.")
    # The import itself is quick here (50-100 ms), too quick for a 10 ms timer to count
    # reliably: where it ran is what says the GUI thread stayed free.
    assert threads and threads[0] is not threading.main_thread(), threads
    # On the GUI thread the import alone was ~95 ms and opening the 320 lines 250 ms.
    assert worst < 0.2
    assert any(f.startswith("Reading the book") for f in shown), shown
    lines = view.project.lines()
    assert [line.chapter for line in lines if line.chapter] == [f"Chapter {c}"
                                                                 for c in range(1, 11)]
    assert max(len(line.text) for line in lines) <= 400, "long paragraphs were split"
    assert sum(len(line.text) for line in lines) > 0.95 * len(text) - 10 * 12
    assert not view.importing() and not view.progress.isVisible()


def test_a_cancelled_import_leaves_no_project(qtbot, view, tmp_path, monkeypatch):
    book = tmp_path / "novel.md"
    book.write_text(long_book(), encoding="utf-8")
    from studio.scripts import books

    read = books.read_book

    def slow(path, on_progress=None, cancel=None):  # cancel arrives while it reads
        qtbot_wait = time.monotonic() + 5
        while not cancel.is_set() and time.monotonic() < qtbot_wait:
            time.sleep(0.01)
        return read(path, on_progress, cancel)

    monkeypatch.setattr(books, "read_book", slow)
    view.pathEdit.setText(str(book))
    qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    assert view.importing()
    view.cancelButton.click()
    qtbot.waitUntil(lambda: not view.importing(), timeout=30_000)
    assert view.notice.text() == "The import was cancelled; no project was written."
    assert not (tmp_path / "novel.ovproj").exists() and view.project is None


def test_an_epub_opens_as_a_project_with_its_chapters(qtbot, view, tmp_path):
    epub = write_epub(tmp_path / "tale.epub", [("One", ["Hello."]), ("Two", ["Bye."]),
                                               ("Three", ["The end."])])
    view.pathEdit.setText(str(epub))
    with qtbot.waitSignal(view.message, timeout=60_000) as said:
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    # The chapters' headings are marks, not lines; "1 speaker", not "1 speakers".
    assert said.args[0] == "Imported tale.epub into tale.ovproj: 3 lines, 1 speaker, in 3 chapters."
    assert view.project.setting("book_title") == "A Test Book"


def test_a_markdown_script_says_its_chapters_as_a_book_does(qtbot, view, tmp_path):
    script = tmp_path / "short.md"
    script.write_text("# One\n\nHello.\n\n# Two\n\nBye.\n", encoding="utf-8")
    view.pathEdit.setText(str(script))
    with qtbot.waitSignal(view.message, timeout=60_000) as said:
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    assert said.args[0] == "Imported short.md into short.ovproj: 2 lines, 1 speaker, in 2 chapters."


def test_the_lines_table_shows_where_each_chapter_starts(qtbot, view, tmp_path):
    script = tmp_path / "short.md"
    script.write_text("# One\n\nHello.\n\nStill one.\n\n# Two\n\nBye.\n", encoding="utf-8")
    view.pathEdit.setText(str(script))
    with qtbot.waitSignal(view.message, timeout=60_000):
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    model, shown = view.model, Qt.ItemDataRole.DisplayRole
    texts = [model.data(model.index(n, TEXT), shown) for n in range(model.rowCount())]
    numbers = [model.data(model.index(n, NUMBER), shown) for n in range(model.rowCount())]
    assert texts == ["One \u2014 Hello.", "Still one.", "Two \u2014 Bye."]
    assert numbers == ["\u00a7 1", "2", "\u00a7 3"]
    tip = model.data(model.index(2, NUMBER), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Chapter \u201cTwo\u201d starts here.")
    # What an edit starts from is the line's own text, without the chapter's title
    assert model.data(model.index(0, TEXT), Qt.ItemDataRole.EditRole) == "Hello."


def test_an_m4b_exports_from_the_view_normalised_with_each_failing_chapter_said(
        qtbot, view, writer, tmp_path):
    from take_fixtures import add, voice

    from studio.sound.m4b import chapters_read

    epub = write_epub(tmp_path / "tale.epub", [("One", ["Hello."]), ("Two", ["Bye."]),
                                               ("Three", ["The end."])])
    view.pathEdit.setText(str(epub))
    with qtbot.waitSignal(view.message, timeout=60_000):
        qtbot.keyClick(view.pathEdit, Qt.Key.Key_Return)
    for n, line in enumerate(view.project.lines()):
        # All quiet (26 dB under full scale), which each chapter's normalising lifts into
        # ACX's window; chapter Two has one full-scale click, which no gain gets past.
        audio = voice(1.0, amplitude=0.05)
        if line.chapter == "Two":
            audio[100] = 0.99
        view.project.choose_take(line.id, add(writer, line.text, seed=n, audio=audio).id)
    view._refresh()
    out = tmp_path / "tale.m4b"
    view.exportEdit.setText(str(out))
    view.stemsCheck.setChecked(True)
    view.srtCheck.setChecked(True)
    with qtbot.waitSignal(view.exported, timeout=60_000) as said:
        view.exportButton.click()
    text = said.args[0]
    assert text.startswith(f"Exported tale.m4b (3 chapters) to {tmp_path}, and 3 chapter "
                           f"MP3s to {tmp_path / 'tale chapters'}. Each chapter is normalised "
                           "to -20.5 dB RMS for ACX"), text
    assert "Subtitles are not written for an audiobook" in text
    failing = text.split(" ACX: ", 1)[1]
    assert failing.startswith("Two: its RMS is") and "peak limiter" in failing, text
    assert "One:" not in failing and "Three:" not in failing
    assert [title for title, _ in chapters_read(out)] == ["One", "Two", "Three"]
    assert len(list((tmp_path / "tale chapters").iterdir())) == 3
