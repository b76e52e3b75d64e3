"""Audiobooks out: a three-chapter EPUB built here becomes a project, its lines get takes,
and the .m4b written from its MixPlan has its chapters (read back with PyAV) where the mix
puts them, with the book's title, author and cover; per-chapter MP3s beside it."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from studio.errors import UserError
from studio.scripts.audiobook import ROOM_TONE_S, export_audiobook
from studio.scripts.books import ImportCancelled, import_book
from studio.scripts.export import ExportCancelled, plan_mix
from studio.scripts.project import Project
from studio.sound.m4b import chapters_read, tags_read
from tests.epub_fixture import png, write_epub
from tests.memory_takes import RATE, MemoryTakes

CHAPTERS = [("The Start", ["It began on a Monday.", "Nobody noticed."]),
            ("The Middle", ["Then came Tuesday."]),
            ("The End", ["And that was all.", "Really, all."])]



def speech(seconds: float, rng) -> np.ndarray:
    """Speech-like: a 200 Hz tone under a syllable envelope, with noise."""
    t = np.arange(int(seconds * RATE)) / RATE
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 4 * t) ** 2
    wave = envelope * np.sin(2 * np.pi * 200 * t) + 0.05 * rng.standard_normal(t.size)
    return (0.1 * wave).astype(np.float32)


@pytest.fixture
def book(tmp_path):
    (tmp_path / "c.png").write_bytes(png())
    epub = write_epub(tmp_path / "book.epub", CHAPTERS,
                      cover=(tmp_path / "c.png").read_bytes())
    summary = import_book(epub, tmp_path / "book.ovproj")
    rng = np.random.default_rng(5)
    clips = {}
    with Project.open(tmp_path / "book.ovproj") as project:
        for n, line in enumerate(project.lines()):
            clips[f"t{n}"] = speech(1.0 + 0.25 * n, rng)
            project.choose_take(line.id, f"t{n}")
        plan = plan_mix(project)
    return SimpleNamespace(plan=plan, takes=MemoryTakes(tmp_path / "takes", clips),
                           summary=summary, cover=tmp_path / "c.png")


def test_the_epub_imports_with_its_table_of_contents_as_chapters(book):
    assert book.summary["chapters"] == [title for title, _ in CHAPTERS]
    assert book.summary["title"] == "A Test Book"
    assert book.summary["author"] == "Ada Author"
    texts = [line.text for line in book.plan.script.lines]
    assert texts[:3] == ["It began on a Monday.", "Nobody noticed.", "Then came Tuesday."]
    assert [line.chapter for line in book.plan.script.lines if line.chapter] == \
        [title for title, _ in CHAPTERS]


def test_epub_and_markdown_chapters_are_marks_not_spoken_lines(tmp_path):
    """Issue 31 review: an EPUB's "Chapter 1" heading became a spoken line while a
    Markdown "# " heading was a chapter mark; the same book now reads the same."""
    from studio.scripts.books import read_book

    epub = write_epub(tmp_path / "book.epub", CHAPTERS)
    markdown = tmp_path / "book.md"
    markdown.write_text("\n\n".join(f"# {title}\n\n" + "\n\n".join(paragraphs)
                                    for title, paragraphs in CHAPTERS), encoding="utf-8")
    read = {path.suffix: [(line.chapter, line.text) for line in read_book(path)[0].lines]
            for path in (epub, markdown)}
    assert read[".epub"] == read[".md"]
    assert [text for _, text in read[".epub"]] == [t for _, ps in CHAPTERS for t in ps]


def test_the_m4b_chapters_start_where_the_mix_says(book, tmp_path):
    from studio.scripts.audiobook import with_room_tone
    from studio.scripts.export import mix_of_plan
    from studio.scripts.render import chapters

    out = tmp_path / "book.m4b"
    result = export_audiobook(book.plan, book.takes, out, title="A Test Book",
                              author="Ada Author", cover=book.cover, mp3s=True)
    read = chapters_read(out)
    assert [title for title, _ in read] == [title for title, _ in CHAPTERS]
    # The mix's own chapter marks (its lines' starts), with the room tone before each.
    script, rendered, _ = mix_of_plan(
        type(book.plan)(with_room_tone(book.plan.script), book.plan.takes, book.plan.project),
        book.takes, -20.0)
    said = [mark["start"] for mark in chapters(script, rendered)]
    assert said[0] == pytest.approx(ROOM_TONE_S, abs=0.002)
    expected = [0.0] + [s - ROOM_TONE_S for s in said[1:]]
    assert [start for _, start in read] == pytest.approx(expected, abs=0.002)
    assert [c["start"] for c in result.chapters] == pytest.approx(expected, abs=0.002)
    tags = tags_read(out)
    assert tags["title"] == "A Test Book" and tags["artist"] == "Ada Author"
    import av

    with av.open(str(out)) as container:
        kinds = {s.type for s in container.streams}
        audio = container.streams.audio[0]
        assert audio.codec_context.name == "aac"
        assert "video" in kinds  # the cover, as an attached picture
        seconds = float(container.duration / av.time_base)
    assert seconds == pytest.approx(rendered.seconds, abs=0.1)
    names = [p.name for p in result.written[1:]]
    assert names == ["01 The_Start.mp3", "02 The_Middle.mp3", "03 The_End.mp3"]
    assert all(p.is_file() for p in result.written)
    assert len(result.acx) == 3
    assert [r.head_s for r in result.acx] == pytest.approx([ROOM_TONE_S] * 3, abs=0.02)


def test_the_default_export_lands_every_chapter_inside_acx_rms_window(book, tmp_path):
    """Issue 31 review: the export said a chapter's RMS was -23.4 dB (too quiet) while the
    mix had been levelled to -20 LUFS; each chapter is now normalised into the window."""
    result = export_audiobook(book.plan, book.takes, tmp_path / "book.m4b")
    assert [r.rms_db for r in result.acx] == pytest.approx([-20.5] * 3, abs=0.1)
    assert all(r.passed for r in result.acx), result.sentences()


def test_a_cancelled_audiobook_export_leaves_no_file(book, tmp_path):
    cancel = threading.Event()
    heard = []

    def progress(what, fraction):
        heard.append(what)
        if what.startswith("Writing"):
            cancel.set()

    with pytest.raises(ExportCancelled):
        export_audiobook(book.plan, book.takes, tmp_path / "gone.m4b", mp3s=True,
                         on_progress=progress, cancel=cancel)
    assert not list(tmp_path.glob("gone*")) and not list(tmp_path.glob(".gone*"))


def test_an_audiobook_path_must_end_in_m4b(book, tmp_path):
    with pytest.raises(UserError, match=r"must end in \.m4b"):
        export_audiobook(book.plan, book.takes, tmp_path / "book.wav")


def test_a_cancelled_import_writes_no_project(tmp_path):
    epub = write_epub(tmp_path / "b.epub", CHAPTERS)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ImportCancelled):
        import_book(epub, tmp_path / "b.ovproj", cancel=cancel)
    assert not (tmp_path / "b.ovproj").exists()


def test_a_file_that_is_not_an_epub_is_one_sentence(tmp_path):
    bad = tmp_path / "bad.epub"
    bad.write_text("not a zip")
    with pytest.raises(UserError, match="not an EPUB"):
        import_book(bad, tmp_path / "b.ovproj")
    assert not (tmp_path / "b.ovproj").exists()
