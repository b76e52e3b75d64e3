"""Books into projects: an EPUB (chapters from its table of contents) or a long text or
Markdown file, read with progress and a cancel between steps, its long paragraphs split
at sentence ends into lines the model speaks well, written as one new project.

Runs on any thread (the window's import task, the command line): it opens and closes its
own project connection; the window opens the finished file afterwards.
"""

from __future__ import annotations

import re
from pathlib import Path

from studio.errors import UserError
from studio.scripts.parse import (
    DEFAULT_SPEAKER,
    LINE_PAUSE_S,
    MAX_LINES,
    PARAGRAPH_PAUSE_S,
    Line,
    Script,
    read_script,
)

BOOK_SUFFIXES = (".epub",)
MAX_LINE_CHARS = 400  # a longer paragraph is split at sentence ends into lines this long
_SENTENCE_END = re.compile(r"(?<=[.!?…»”\"')\]])\s+(?=\S)")


class ImportCancelled(Exception):
    """The import was cancelled between two steps; no project was written."""


def _check(cancel, on_progress, what: str, fraction: float) -> None:
    if cancel is not None and cancel.is_set():
        raise ImportCancelled
    if on_progress is not None:
        on_progress(what, fraction)


def split_paragraph(text: str, most: int = MAX_LINE_CHARS) -> list[str]:
    """``text`` in pieces of at most ``most`` characters, cut after a sentence's end where
    there is one (else at a space, else anywhere)."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text.strip()):
        while len(sentence) > most:  # one sentence longer than a line: cut at a space
            cut = sentence.rfind(" ", 0, most)
            cut = cut if cut > most // 2 else most
            head, sentence = sentence[:cut].strip(), sentence[cut:].strip()
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head)
        if current and len(current) + 1 + len(sentence) > most:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def split_long_lines(script: Script, most: int = MAX_LINE_CHARS) -> Script:
    """Each line longer than ``most`` characters becomes several of the same speaker,
    the chapter on the first, the line's own pause after the last."""
    lines: list[Line] = []
    for line in script.lines:
        if len(line.text) <= most or line.duration is not None:
            lines.append(line)
            continue
        pieces = split_paragraph(line.text, most)
        for n, piece in enumerate(pieces):
            last = n == len(pieces) - 1
            lines.append(Line(line.speaker, piece,
                              line.pause_after if last else LINE_PAUSE_S,
                              line.chapter if n == 0 else None))
    return Script(lines, lead=script.lead, warnings=list(script.warnings))


def _same_words(a: str, b: str) -> bool:
    """Whether two texts differ only in case, spacing and punctuation."""
    def words(text: str) -> list[str]:
        return re.findall(r"\w+", text.casefold())

    return words(a) == words(b)


def read_book(path: Path, on_progress=None, cancel=None) -> tuple[Script, dict]:
    """The script of an EPUB, text or Markdown file (its long lines split) and what is
    known about the book (title, author, cover bytes and suffix)."""
    path = Path(path)
    _check(cancel, on_progress, "Reading the book", 0.0)
    if path.suffix.lower() == ".epub":
        from studio.scripts.epub import read_epub

        book = read_epub(path, lambda what, f: _check(cancel, on_progress, what, f * 0.5))
        lines, chapter = [], None
        for n, paragraph in enumerate(book.paragraphs):
            if n in book.starts:
                chapter = book.starts[n]
                if lines:
                    lines[-1] = Line(lines[-1].speaker, lines[-1].text, PARAGRAPH_PAUSE_S * 2,
                                     lines[-1].chapter)
                if chapter and _same_words(paragraph, chapter):
                    continue  # the chapter's heading: a mark, as a Markdown "# " is, not a line
            lines.append(Line(DEFAULT_SPEAKER, paragraph, PARAGRAPH_PAUSE_S, chapter))
            chapter = None
        if lines:
            last = lines[-1]
            lines[-1] = Line(last.speaker, last.text, 0.0, last.chapter)
        script = Script(lines)
        about = {"title": book.title, "author": book.author, "cover": book.cover,
                 "cover_suffix": book.cover_suffix}
    else:
        script = read_script(path)
        about = {"title": path.stem, "author": "", "cover": None, "cover_suffix": ""}
    _check(cancel, on_progress, "Splitting long paragraphs", 0.5)
    script = split_long_lines(script)
    if not script.lines:
        raise UserError(f"The book {path} has no text to speak.")
    if len(script.lines) > MAX_LINES:
        raise UserError(f"The book {path} makes {len(script.lines):,} lines; a project holds "
                        f"at most {MAX_LINES:,}, so split the book into parts.")
    return script, about


def book_cover(project) -> Path | None:
    """The cover an import kept beside ``project`` (its setting names the file), if it
    is still there."""
    name = project.setting("book_cover")
    path = Path(project.path).with_name(Path(name).name) if name else None
    return path if path is not None and path.is_file() else None


def _keep_cover(out: Path, about: dict) -> Path | None:
    """The book's cover written beside the project (``<name> cover.jpg``), never over a
    file that is there."""
    if not about.get("cover"):
        return None
    from studio.atomic import atomic_write

    path = out.with_name(f"{out.stem} cover{about['cover_suffix']}")
    if path.exists():
        return None
    with atomic_write(path) as handle:
        handle.write(about["cover"])
    return path


def import_book(path: Path, out: Path, voices=None, *, on_progress=None, cancel=None) -> dict:
    """Write the project ``out`` from the book ``path``; returns a summary. ``voices`` is a
    voice map, or a function of the speakers' names giving one. A cancel or a failure
    leaves no project file."""
    from studio.scripts.project import Project

    script, about = read_book(path, on_progress, cancel)
    if callable(voices):
        voices = voices(script.speakers)
    _check(cancel, on_progress, "Writing the project", 0.8)
    if Path(out).exists():
        raise UserError(f"The project {out} exists already; choose a new name.")
    cover = _keep_cover(Path(out), about)
    try:
        with Project.from_script(out, script, voices) as project:
            for key, value in (("title", about["title"]), ("author", about["author"]),
                               ("cover", cover and cover.name)):
                if value:
                    project.set_setting(f"book_{key}", value)
            project.forget_history()
            lines = len(project.lines())
            speakers = [s.name for s in project.speakers()]
    except BaseException:
        if cover is not None:
            cover.unlink(missing_ok=True)
        raise
    chapters = [line.chapter for line in script.lines if line.chapter]
    _check(None, on_progress, "Imported", 1.0)
    return {"project": str(out), "lines": lines, "speakers": speakers, "chapters": chapters,
            "characters": sum(len(line.text) for line in script.lines),
            "title": about["title"], "author": about["author"],
            "cover": str(cover) if cover else None,
            "warnings": script.warnings}
