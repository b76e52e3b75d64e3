"""`omnivoice-desktop script` for audiobooks: ``import book.epub`` into a project, and
``render --out book.m4b`` (its options checked, the book staged with the other outputs).
The audiobook work itself is Qt-free in studio/scripts/audiobook.py and books.py."""

from __future__ import annotations

from studio.cli.common import check_output
from studio.errors import UserError


def check_book_options(args, book: bool) -> None:
    """One sentence for audiobook options without an .m4b, or stems with one."""
    if args.script_command != "render":
        return
    if not book:
        given = [flag for flag, value in (("--title", args.title), ("--author", args.author),
                                          ("--cover", args.cover),
                                          ("--chapter-mp3s", args.chapter_mp3s)) if value]
        if given:
            raise UserError(f"{given[0]} is for an audiobook; give --out a name ending in "
                            ".m4b.")
        return
    if args.stems is not None:
        raise UserError("An .m4b audiobook has no stems; leave out --stems, or use "
                        "--chapter-mp3s for one file per chapter.")
    if args.cover is not None:
        from studio.sound.m4b import cover_size

        cover_size(args.cover)


def stage_book(args, staged, script, rendered):
    from studio.scripts.audiobook import chapter_mp3_paths, stage_audiobook
    from studio.scripts.books import book_cover
    from studio.scripts.project import PROJECT_SUFFIX, Project

    title, cover = args.title, args.cover
    if args.file.suffix.lower() == PROJECT_SUFFIX:  # what an import kept: the book's own
        with Project.open(args.file, read_only=True) as project:
            title = title or project.setting("book_title") or ""
            args.author = args.author or project.setting("book_author") or ""
            cover = cover or book_cover(project)
    title = title or args.file.stem
    mp3s = chapter_mp3_paths(args.out, script, rendered, title) if args.chapter_mp3s else []
    for path in mp3s:
        if path.exists():
            raise UserError(f"The chapter file {path} exists already; move it or choose "
                            "another name for the book.")
    result = stage_audiobook(staged, script, rendered, args.out, title=title,
                             author=args.author, cover=cover, mp3_paths=mp3s)
    if args.srt is not None:
        from studio.atomic import atomic_write
        from studio.scripts.render import srt_text

        with atomic_write(staged.path(args.srt)) as handle:
            handle.write(srt_text(script, rendered).encode("utf-8"))
        result.written.append(args.srt)
    return result


def import_book_file(args, load_map, voice_specs) -> dict:
    """``script import book.epub``: ``load_map`` and ``voice_specs`` are script.py's voice-map readers."""
    from studio.outputs import check_distinct
    from studio.scripts.books import import_book
    from studio.scripts.project import PROJECT_SUFFIX

    check_output(args.out, (PROJECT_SUFFIX,), "project")
    check_distinct([(args.file, "book"), (args.voices, "voice map")], [(args.out, "project")])
    voices = None
    if args.voices is not None:
        data = load_map(args.voices)
        voices = voice_specs(data, list(data), str(args.voices), args.voices.parent)
    summary = import_book(args.file, args.out, voices)
    summary["message"] = (f"Wrote {args.out}: {summary['lines']} lines in "
                          f"{len(summary['chapters'])} chapters of {summary['title']}"
                          f"{' by ' + summary['author'] if summary['author'] else ''}.")
    return summary
