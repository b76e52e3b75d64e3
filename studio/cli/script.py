"""`omnivoice-desktop script render`: a multi-speaker script to one mixed track.

The script (.txt, .md, .srt or .vtt) and the voice map are read and checked, and every
output is checked (none may be an input or another output), before the model loads.
The outputs are written under temporary names, a project's new takes are saved, and only
then do the outputs take their names: a failure anywhere leaves no new file, no folder
and no take behind.
"""

from __future__ import annotations

import argparse
import logging
import math
import sys
import time
from pathlib import Path

from studio.cli import script_best_of
from studio.cli.common import check_output, library_chatter_to_log, print_summary
from studio.cli.options import (
    add_dictionary,
    add_hardware,
    add_json,
    add_model,
    add_seed,
    add_steps,
)
from studio.cli.script_book import check_book_options, import_book_file, stage_book
from studio.engine.options import model_source
from studio.errors import UserError
from studio.scripts.voices import voice_specs
from studio.wording import count_words

MIX_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3", ".m4b")
MAX_VOICE_MAP_BYTES = 1024 * 1024  # a speaker is a line of JSON; a thousand fit many times


def add_parser(commands) -> None:
    script = commands.add_parser("script", help="render a multi-speaker script to one track")
    sub = script.add_subparsers(dest="script_command", required=True, metavar="COMMAND")
    render = sub.add_parser("render", help="render a script with a voice per speaker")
    render.add_argument("file", type=Path, help="the script: .txt, .md, .srt, .vtt or .ovproj")
    render.add_argument("--voices", type=Path,
                        help='JSON: each speaker to {"voice": NAME}, {"ref": CLIP, "ref_text": '
                             'TEXT} or {"instruct": TEXT, "seed": N} (a project has its own)')
    render.add_argument("--out", type=Path, required=True,
                        help=f"the mixed track ({', '.join(MIX_SUFFIXES)})")
    render.add_argument("--stems", type=Path, help="a folder for one track per speaker")
    render.add_argument("--srt", type=Path, help="subtitles of what was rendered")
    add_steps(render)
    add_seed(render, "line n gets seed SEED+n (a voice's own wins)")
    script_best_of.add_argument(render)
    render.add_argument("--lufs", type=float, default=None,
                        help="loudness of the mix (default -16; -20 for an .m4b audiobook)")
    book = render.add_argument_group("audiobook (--out BOOK.m4b)")
    book.add_argument("--title", default="", help="the book's title (default: the file's name)")
    book.add_argument("--author", default="", help="the book's author")
    book.add_argument("--cover", type=Path, help="the cover: a .png or .jpg image")
    book.add_argument("--chapter-mp3s", action="store_true",
                      help='also one MP3 per chapter, in "<book name> chapters/"')
    add_dictionary(render)
    add_model(render, "checkpoint folder or repo id")
    add_hardware(render)
    render.add_argument("--all", action="store_true",
                        help="a project: render every line, not only the new and changed ones")
    add_json(render)

    imported = sub.add_parser("import", help="make a project (.ovproj) of a script")
    imported.add_argument("file", type=Path,
                          help="the script: .txt, .md, .srt or .vtt, or a book: .epub")
    imported.add_argument("--out", type=Path, required=True, help="the new .ovproj file")
    imported.add_argument("--voices", type=Path, help="the speakers' voices (JSON), if known")
    add_json(imported)


def run(args: argparse.Namespace) -> int:
    summary = summarise(args)
    if args.json or "message" in summary:
        print_summary(args, summary)
    else:
        print(f"Wrote {summary['out']} ({count_words(summary['lines'], 'line')}, "
              f"{count_words(len(summary['speakers']), 'speaker')}, {summary['seconds']:.1f} s of audio "
              f"in {summary['render_seconds']:.1f} s).", file=sys.stderr)
        for note in summary["warnings"]:
            print(f"warning: {note}", file=sys.stderr)
    return 0


def summarise(args: argparse.Namespace) -> dict:
    """Carry out one ``script`` command; returns its summary."""
    if args.script_command == "import":
        return _import(args)
    studio_model = args.studio_model
    started = time.perf_counter()
    script_best_of.check(args)
    script, specs, lexicon = _read(args)
    from studio.scripts.render import check_timeline

    book = args.out.suffix.lower() == ".m4b"
    check_book_options(args, book)
    if book:
        from studio.scripts.audiobook import AUDIOBOOK_LUFS, with_room_tone

        script = with_room_tone(script)  # pauses only: the lines and their takes are the same
    if args.lufs is None:
        args.lufs = AUDIOBOOK_LUFS if book else -16.0
    check_timeline(script)
    lexicon = _lexicon(lexicon, args.dictionary)
    if not (math.isfinite(args.lufs) and -70 <= args.lufs <= 0):
        raise UserError(f"The loudness target must be from -70 to 0 LUFS; got {args.lufs:g}.")
    check_output(args.out, MIX_SUFFIXES, "mix")
    stems = _stem_paths(args, script.speakers)
    if args.srt is not None:
        check_output(args.srt, (".srt",), "subtitle file")
    _check_distinct(args, specs, stems)
    judge = script_best_of.LineJudge(script, specs) if args.best_of > 1 else None
    with library_chatter_to_log():
        rendered, engine = _render(args, script, specs, studio_model, lexicon, judge)
    from studio.scripts.export import stage_outputs
    from studio.staged import Staged

    audiobook = None
    with Staged() as staged:
        if book:
            audiobook = stage_book(args, staged, script, rendered)
            written = [str(p) for p in audiobook.written]
        else:
            written = [str(p) for p in stage_outputs(staged, script, rendered, args.out,
                                                     stems, args.srt)]
        kept = _keep_takes(args, script, specs, rendered, engine, judge) \
            if _is_project(args.file) else 0
        staged.commit()
    from studio.scripts.render import chapters

    summary = {
        "out": str(args.out),
        "lines": len(script.lines),
        "speakers": script.speakers,
        "seconds": round(rendered.seconds, 3),
        "render_seconds": round(time.perf_counter() - started, 3),
        "stems": [str(p) for p in stems.values()],
        "srt": str(args.srt) if args.srt else None,
        "chapters": chapters(script, rendered),
        "seeds": rendered.seeds,
        "lufs": None if rendered.lufs is None else round(rendered.lufs, 2),
        "gain_db": rendered.gain_db,
        "device": str(engine.device),
        "warnings": rendered.warnings,
        "written": written,
        "rendered_lines": len(rendered.fresh),
        "reused_lines": len(script.lines) - len(rendered.fresh),
        "takes_saved": kept,
        "best_of": args.best_of,
        **(judge.json_fields(rendered) if judge is not None else {}),
    }
    if audiobook is not None:
        summary["chapters"] = audiobook.chapters
        summary["acx"] = [report.as_dict() for report in audiobook.acx]
        summary["acx_gains_db"] = audiobook.gains_applied
        summary["warnings"] = [*summary["warnings"], *audiobook.sentences()]
    return summary


def _is_project(path: Path) -> bool:
    from studio.scripts.project import PROJECT_SUFFIX

    return path.suffix.lower() == PROJECT_SUFFIX


def _lexicon(own, dictionary: Path | None):
    """A project's own dictionary, then --dictionary, then the data folder's (any may be
    missing); None when there is none at all."""
    from studio.engine.lexicon import Lexicon, load_pronunciations

    return ((own or Lexicon()) + (load_pronunciations(dictionary) or Lexicon())) or None


def _check_distinct(args, specs: dict[str, dict], stems: dict[str, Path]) -> None:
    """No output may be an input (a reference clip, the script, the map...) or another."""
    from studio.outputs import check_distinct

    inputs = [(args.file, "project" if _is_project(args.file) else "script"),
              (args.voices, "voice map"), (args.dictionary, "pronunciation dictionary")]
    inputs += [(spec.get("ref"), f"reference clip of {speaker}")
               for speaker, spec in specs.items()]
    saved = {spec["voice"]: speaker for speaker, spec in specs.items() if "voice" in spec}
    if saved:
        from studio.library.voices import VoiceLibrary

        with VoiceLibrary() as library:
            for name, speaker in saved.items():
                inputs.append((library.clip_path(library.find(name).id),
                               f"saved voice of {speaker}"))
    if _is_project(args.file):
        inputs += _take_files(args.file)
    check_distinct(inputs, [(args.out, "mix"), (args.srt, "subtitle file"),
                            *((path, f"stem of {s}") for s, path in stems.items())])


def _take_files(project_file: Path) -> list[tuple[Path, str]]:
    """The audio of a project's chosen takes (mixed again, so inputs too)."""
    from studio.library.takes import TakeLibrary
    from studio.scripts.project import Project

    with Project.open(project_file) as project:
        chosen = [(n, line.take) for n, line in enumerate(project.lines(), 1) if line.take]
    if not chosen:
        return []
    try:
        with TakeLibrary(read_only=True) as takes:
            return [(takes.audio_path(take), f"take of line {n}") for n, take in chosen]
    except UserError:  # no take library yet: no take to overwrite
        return []


def _reused(args, engine) -> dict[int, tuple]:
    """A project's lines whose chosen take is still what they say: (audio, seed) each."""
    from studio.library.takes import TakeLibrary
    from studio.scripts.line_takes import LineTakes
    from studio.scripts.project import Project

    reuse: dict[int, tuple] = {}
    if args.all or not _is_project(args.file):
        return reuse
    with Project.open(args.file, read_only=True) as project, \
            TakeLibrary(read_only=True) as takes:
        owned = LineTakes(project, takes)  # a take deleted in the studio is no line's take
        for n, line in enumerate(project.lines()):
            if owned.status(line) != "done":
                continue
            try:
                audio, rate = takes.read_audio(line.take)
                seed = takes.get(line.take).settings.seed
            except UserError:  # the take was pruned: the line renders again
                continue
            if rate == engine.sample_rate:
                reuse[n] = (audio, seed)
    return reuse


def _keep_takes(args, script, specs, rendered, engine, judge=None) -> int:
    """Each line rendered now becomes a take in the take library (with --best-of, all its
    takes, judged, in one batch), the mixed one chosen for its line, in one save of the
    project; when that save fails the new takes are removed again. Returns the number of
    takes saved."""
    from studio.engine.engine import GenerationOptions
    from studio.engine.options import DecodeOptions
    from studio.scripts.project import Project
    from studio.service.judging import store
    from studio.service.requests import AccelState, RenderRequest
    from studio.service.takes import TakeKeeper, take_run

    keeper, notes, chosen, named, saved = TakeKeeper(), [], {}, False, []
    options = GenerationOptions(decode=DecodeOptions(num_step=args.steps))
    try:
        with Project.open(args.file) as project:
            lines = project.lines()
            for n, render in sorted(rendered.fresh.items()):
                renders = rendered.takes.get(n) or [render]
                line, spec = script.lines[n], specs[script.lines[n].speaker]
                reference, ref_text, voice_id = spec.get("ref"), spec.get("ref_text"), None
                if "voice" in spec:  # the take names the saved voice, as the studio's do
                    from studio.library.voices import VoiceLibrary

                    with VoiceLibrary() as library:
                        voice = library.find(spec["voice"])
                        reference, ref_text = library.clip_path(voice.id), voice.transcript
                        voice_id = voice.id
                request = RenderRequest(
                    text=line.text, language=spec.get("language"),
                    instruct=spec.get("instruct"), reference=reference, ref_text=ref_text,
                    duration=line.duration, seeds=tuple(r.seed for r in renders),
                    options=options,
                    mode="clone" if reference is not None else "design", voice_id=voice_id,
                    project=str(Path(args.file).absolute()), project_line=n + 1)
                seconds = render.audio.size / render.sample_rate
                run = take_run(engine.source, str(engine.device),
                               str(engine.dtype).removeprefix("torch."),
                               AccelState("off", "off", None), seconds, seconds)
                _batch, ids = keeper.save(request, renders, run, None, [None] * len(renders),
                                          notes.append)
                saved += [take_id for take_id in ids if take_id is not None]
                if judge is not None and n in judge.judged:
                    for take_id, result in zip(ids, judge.judged[n][0]):
                        if take_id is not None:
                            store(keeper.library(), take_id, result)
                take_id = ids[next(k for k, r in enumerate(renders) if r is render)]
                if take_id is not None:
                    chosen[lines[n].id] = take_id
            project.choose_takes(chosen)
            named = True
    except BaseException:
        if saved and not named:  # nothing names them: they would be orphans
            try:
                keeper.library().remove(saved)
            except Exception:  # the first failure is the one to tell
                logging.getLogger(__name__).exception("removing the unsaved render's takes")
        raise
    finally:
        keeper.close()
    rendered.warnings.extend(notes)
    return len(saved)


def _read(args):
    """The script, its speakers' voices and (for a project) its own dictionary."""
    from studio.scripts.parse import read_script
    from studio.scripts.project import PROJECT_SUFFIX, Project

    if args.file.suffix.lower() == PROJECT_SUFFIX:
        with Project.open(args.file, read_only=True) as project:
            script, voices = project.to_script()
            lexicon = project.dictionary() or None
        if not script.lines:
            raise UserError(f"The project {args.file} has no lines to speak.")
        if args.voices is not None:  # the map's entries replace the project's
            voices.update(_load_map(args.voices))
        specs = voice_specs(voices, script.speakers, str(args.file), args.file.parent)
        return script, specs, lexicon
    if args.voices is None:
        raise UserError("--voices is needed for a script: a JSON file giving each speaker a "
                        "voice (a project keeps its own).")
    script = read_script(args.file)
    return script, read_voice_map(args.voices, script.speakers), None


def _import(args) -> dict:
    from studio.scripts.parse import read_script
    from studio.scripts.project import PROJECT_SUFFIX, Project

    if args.file.suffix.lower() == ".epub":
        return import_book_file(args, _load_map, voice_specs)
    script = read_script(args.file)
    voices = None
    if args.voices is not None:
        data = _load_map(args.voices)
        known = [s for s in script.speakers if s in data]
        voices = voice_specs({s: data[s] for s in known}, known, str(args.voices),
                             args.voices.parent)
    check_output(args.out, (PROJECT_SUFFIX,), "project")
    from studio.outputs import check_distinct

    check_distinct([(args.file, "script"), (args.voices, "voice map")], [(args.out, "project")])
    with Project.from_script(args.out, script, voices) as project:
        speakers = [s.name for s in project.speakers()]
        lines = len(project.lines())
    summary = {"project": str(args.out), "lines": lines, "speakers": speakers,
               "warnings": script.warnings}
    summary["message"] = (f"Wrote {args.out}: {count_words(lines, 'line')}, "
                          f"{count_words(len(speakers), 'speaker')} "
                          f"({', '.join(speakers)}).")
    return summary


def _load_map(path: Path) -> dict:
    from studio.safe_read import read_json

    data = read_json(path, MAX_VOICE_MAP_BYTES, "voice map")
    if not isinstance(data, dict):
        raise UserError(f"The voice map {path} must be a JSON object of speaker names.")
    return data


def read_voice_map(path: Path, speakers: list[str]) -> dict[str, dict]:
    """The voice map: one entry per speaker, each checked; one sentence for a problem."""
    return voice_specs(_load_map(path), speakers, str(path), Path(path).parent)


def _stem_paths(args, speakers: list[str]) -> dict[str, Path]:
    """One file per speaker in --stems, named after the speaker, in the mix's format (the
    folder is made only when the render has worked)."""
    if args.stems is None:
        return {}
    if args.stems.exists() and not args.stems.is_dir():
        raise UserError(f"The stems folder {args.stems} is a file; name a folder.")
    from studio.scripts.export import stem_files

    paths = stem_files(args.stems, speakers, args.out.suffix)
    if not args.stems.is_dir():
        _check_new_folder(args.stems)
        return paths
    for path in paths.values():
        check_output(path, MIX_SUFFIXES, "stem")
    return paths


def _check_new_folder(folder: Path) -> None:
    """A folder that can be made: its nearest existing parent is a writable folder."""
    import os

    parent = next(p for p in Path(os.path.abspath(folder)).parents if p.exists())
    if not parent.is_dir():
        raise UserError(f"The stems folder {folder} cannot be made: {parent} is a file.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"The stems folder {folder} cannot be made: {parent} is not "
                        "writable; choose another folder.")


def _render(args, script, specs, studio_model, lexicon, judge=None):
    from studio.engine.asr import DEFAULT_ASR_MODEL
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem, check_item
    from studio.engine.prompt_cache import default_cache_folder, disk_cache_enabled
    from studio.scripts.render import render_script
    from studio.scripts.voices import script_voices
    from studio.service.voices import prompt_source

    for n, line in enumerate(script.lines):  # a bad line is said before the model loads
        try:
            check_item(SynthesisItem(line.text, instruct=specs[line.speaker].get("instruct"),
                                     language=specs[line.speaker].get("language")))
        except UserError as exc:
            raise UserError(f"Line {n + 1} ({line.speaker}): {exc}") from None
    engine = Engine.load(model_source(args.model, studio_model), device=args.device, precision=args.precision)
    prompts = prompt_source(engine, default_cache_folder() if disk_cache_enabled() else None,
                            DEFAULT_ASR_MODEL)
    voices = script_voices(engine, prompts, specs)
    if judge is not None:
        judge.device = str(engine.device)
    options = GenerationOptions(decode=DecodeOptions(num_step=args.steps))
    return render_script(engine, script, voices, options, seed=args.seed, lufs=args.lufs,
                         lexicon=lexicon, reuse=_reused(args, engine), takes=args.best_of,
                         choose=judge), engine

