"""`omnivoice-desktop script render`: a multi-speaker script to one mixed track.

The script (.txt, .md, .srt or .vtt) and the voice map are read and checked, and every
output is checked, before the model loads; the stems and the subtitles are written
before the mix, and a failure removes what was written, so a failed command leaves no
new file.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from studio.engine.errors import UserError
from studio.engine.options import PRECISION_CHOICES

VOICE_KEYS = ("voice", "ref", "ref_text", "instruct", "seed", "language")
MIX_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")


def add_parser(commands) -> None:
    from studio.cli import _positive_int

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
    render.add_argument("--steps", type=_positive_int, default=32, help="decoding steps")
    render.add_argument("--seed", type=int, help="line n gets seed SEED+n (a voice's own wins)")
    render.add_argument("--lufs", type=float, default=-16.0, help="loudness of the mix")
    render.add_argument("--dictionary", type=Path,
                        help="a pronunciation dictionary (JSON), before the data folder's own")
    render.add_argument("--model", help="checkpoint folder or repo id")
    render.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    render.add_argument("--precision", default="auto", choices=PRECISION_CHOICES)
    render.add_argument("--all", action="store_true",
                        help="a project: render every line, not only the new and changed ones")
    render.add_argument("--json", action="store_true", help="print one JSON line")

    imported = sub.add_parser("import", help="make a project (.ovproj) of a script")
    imported.add_argument("file", type=Path, help="the script: .txt, .md, .srt or .vtt")
    imported.add_argument("--out", type=Path, required=True, help="the new .ovproj file")
    imported.add_argument("--voices", type=Path, help="the speakers' voices (JSON), if known")
    imported.add_argument("--json", action="store_true", help="print one JSON line")


def run(args: argparse.Namespace, studio_model: str | None = None) -> dict:
    if args.script_command == "import":
        return _import(args)
    from studio.cli import _check_output
    from studio.engine.lexicon import load_pronunciations

    started = time.perf_counter()
    script, specs, lexicon = _read(args)
    lexicon = (lexicon + load_pronunciations(args.dictionary)) if lexicon \
        else load_pronunciations(args.dictionary)
    if not (math.isfinite(args.lufs) and -70 <= args.lufs <= 0):
        raise UserError(f"The loudness target must be from -70 to 0 LUFS; got {args.lufs:g}.")
    _check_output(args.out, MIX_SUFFIXES, "mix")
    stems = _stem_paths(args, script.speakers)
    if args.srt is not None:
        _check_output(args.srt, (".srt",), "subtitle file")
    with _chatter_to_log():
        rendered, engine = _render(args, script, specs, studio_model, lexicon)
    written = _write(args, script, rendered, stems)
    kept = _keep_takes(args, script, specs, rendered, engine) if _is_project(args.file) else 0
    from studio.scripts.render import chapters

    return {
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
    }


def _is_project(path: Path) -> bool:
    from studio.scripts.project import PROJECT_SUFFIX

    return path.suffix.lower() == PROJECT_SUFFIX


def _reused(args, engine) -> dict[int, tuple]:
    """A project's lines whose chosen take is still what they say: (audio, seed) each."""
    from studio.library.takes import TakeLibrary
    from studio.scripts.project import Project

    reuse: dict[int, tuple] = {}
    if args.all or not _is_project(args.file):
        return reuse
    with Project.open(args.file) as project, TakeLibrary(read_only=True) as takes:
        for n, line in enumerate(project.lines()):
            if project.status(line) != "done":
                continue
            try:
                audio, rate = takes.read_audio(line.take)
                seed = takes.get(line.take).settings.seed
            except UserError:  # the take was deleted: the line renders again
                continue
            if rate == engine.sample_rate:
                reuse[n] = (audio, seed)
    return reuse


def _keep_takes(args, script, specs, rendered, engine) -> int:
    """Each line rendered now becomes a take in the take library, chosen for its line."""
    from studio.engine.engine import GenerationOptions
    from studio.engine.options import DecodeOptions
    from studio.scripts.project import Project
    from studio.worker.jobs import AccelState, RenderRequest
    from studio.worker.keeper import TakeKeeper, take_run

    keeper, saved, notes = TakeKeeper(), 0, []
    options = GenerationOptions(decode=DecodeOptions(num_step=args.steps))
    try:
        with Project.open(args.file) as project:
            lines = project.lines()
            for n, render in sorted(rendered.fresh.items()):
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
                    duration=line.duration, seeds=(render.seed,), options=options,
                    mode="clone" if reference is not None else "design", voice_id=voice_id)
                seconds = render.audio.size / render.sample_rate
                run = take_run(str(args.model or "k2-fsa/OmniVoice"), str(engine.device),
                               str(engine.dtype).removeprefix("torch."),
                               AccelState("off", "off", None), seconds, seconds)
                _batch, [take_id] = keeper.save(request, [render], run, None, [None],
                                                notes.append)
                if take_id is not None:
                    project.choose_take(lines[n].id, take_id)
                    saved += 1
    finally:
        keeper.close()
    rendered.warnings.extend(notes)
    return saved


def _read(args):
    """The script, its speakers' voices and (for a project) its own dictionary."""
    from studio.scripts.parse import read_script
    from studio.scripts.project import PROJECT_SUFFIX, Project

    if args.file.suffix.lower() == PROJECT_SUFFIX:
        with Project.open(args.file) as project:
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
    from studio.cli import _check_output
    from studio.scripts.parse import read_script
    from studio.scripts.project import PROJECT_SUFFIX, Project

    script = read_script(args.file)
    voices = None
    if args.voices is not None:
        data = _load_map(args.voices)
        known = [s for s in script.speakers if s in data]
        voices = voice_specs({s: data[s] for s in known}, known, str(args.voices),
                             args.voices.parent)
    _check_output(args.out, (PROJECT_SUFFIX,), "project")
    with Project.from_script(args.out, script, voices) as project:
        speakers = [s.name for s in project.speakers()]
        lines = len(project.lines())
    summary = {"project": str(args.out), "lines": lines, "speakers": speakers,
               "warnings": script.warnings}
    summary["message"] = (f"Wrote {args.out}: {lines} lines, {len(speakers)} speakers "
                          f"({', '.join(speakers)}).")
    return summary


def _load_map(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"The voice map {path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"The voice map {path} cannot be read ({exc}).") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"The voice map {path} is not valid JSON ({exc.msg} at line "
                        f"{exc.lineno}).") from None
    if not isinstance(data, dict):
        raise UserError(f"The voice map {path} must be a JSON object of speaker names.")
    return data


def read_voice_map(path: Path, speakers: list[str]) -> dict[str, dict]:
    """The voice map: one entry per speaker, each checked; one sentence for a problem."""
    return voice_specs(_load_map(path), speakers, str(path), Path(path).parent)


def voice_specs(data: dict, speakers: list[str], path: str, folder: Path) -> dict[str, dict]:
    """Each speaker's entry of a voice map, checked; clip paths resolved from ``folder``."""
    missing = [s for s in speakers if s not in data]
    if missing:
        raise UserError(f"The voice map {path} has no voice for {', '.join(missing)}; add "
                        f"{'them' if len(missing) > 1 else 'it'}.")
    specs = {}
    for speaker in speakers:
        entry = data[speaker]
        if not isinstance(entry, dict) or not entry:
            raise UserError(f"The voice of {speaker} in {path} must be an object such as "
                            '{"voice": NAME}, {"ref": CLIP, "ref_text": TEXT} or '
                            '{"instruct": TEXT, "seed": N}.')
        unknown = [k for k in entry if k not in VOICE_KEYS]
        if unknown:
            raise UserError(f"The voice of {speaker} in {path} has an unknown key "
                            f"{unknown[0]!r}; use {', '.join(VOICE_KEYS)}.")
        # A saved voice alone, a clip (with an instruct to steady it, if wanted), or an
        # instruct alone.
        sources = [k for k in ("voice", "ref") if k in entry]
        if len(sources) > 1 or ("voice" in entry and "instruct" in entry) \
                or not (sources or "instruct" in entry) or ("ref_text" in entry and "ref" not in entry):
            raise UserError(f"The voice of {speaker} in {path} needs exactly one of a saved "
                            '"voice", a "ref" clip or an "instruct".')
        for key in ("voice", "ref", "ref_text", "instruct", "language"):
            if key in entry and not isinstance(entry[key], str):
                raise UserError(f'The "{key}" of {speaker} in {path} must be text.')
        seed = entry.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not 0 <= seed < 2**63):
            raise UserError(f'The "seed" of {speaker} in {path} must be a whole number from 0.')
        spec = dict(entry)
        if "ref" in spec:
            ref = Path(spec["ref"]).expanduser()
            spec["ref"] = ref if ref.is_absolute() else Path(folder) / ref
            if not spec["ref"].is_file():
                raise UserError(f"The reference clip {spec['ref']} of {speaker} does not exist.")
        specs[speaker] = spec
    return specs


def _stem_paths(args, speakers: list[str]) -> dict[str, Path]:
    """One file per speaker in --stems, named after the speaker, in the mix's format."""
    from studio.cli import _check_output

    if args.stems is None:
        return {}
    if args.stems.exists() and not args.stems.is_dir():
        raise UserError(f"The stems folder {args.stems} is a file; name a folder.")
    args.stems.mkdir(parents=True, exist_ok=True)
    from studio.scripts.export import stem_files

    paths = stem_files(args.stems, speakers, args.out.suffix)
    for path in paths.values():
        _check_output(path, MIX_SUFFIXES, "stem")
    return paths


def _render(args, script, specs, studio_model, lexicon):
    from studio.engine.asr import DEFAULT_ASR_MODEL
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import Engine, GenerationOptions, SynthesisItem, check_item
    from studio.engine.prompt_cache import PromptCache, default_cache_folder, disk_cache_enabled
    from studio.engine.prompts import PromptSource
    from studio.library.voices import VoiceLibrary, saved_voice_cache_keys
    from studio.scripts.render import VoiceSpec, render_script

    for n, line in enumerate(script.lines):  # a bad line is said before the model loads
        try:
            check_item(SynthesisItem(line.text, instruct=specs[line.speaker].get("instruct"),
                                     language=specs[line.speaker].get("language")))
        except UserError as exc:
            raise UserError(f"Line {n + 1} ({line.speaker}): {exc}") from None
    engine = Engine.load(args.model or studio_model, device=args.device, precision=args.precision)
    prompts = PromptSource(engine, PromptCache(default_cache_folder() if disk_cache_enabled()
                                               else None),
                           asr_model=DEFAULT_ASR_MODEL, keep_keys=saved_voice_cache_keys)
    voices = {}
    for speaker, spec in specs.items():
        prompt = None
        if "voice" in spec:
            with VoiceLibrary() as library:
                voice = library.find(spec["voice"])
                audio = engine.info.audio
                prompt = library.load_prompt(voice.id, audio.codebooks, audio.mask_id)
        elif "ref" in spec:
            prompt, _source = prompts.obtain(spec["ref"], spec.get("ref_text"), True)
        voices[speaker] = VoiceSpec(prompt, spec.get("instruct"), spec.get("seed"),
                                    spec.get("language"))
    options = GenerationOptions(decode=DecodeOptions(num_step=args.steps))
    return render_script(engine, script, voices, options, seed=args.seed, lufs=args.lufs,
                         lexicon=lexicon, reuse=_reused(args, engine)), engine


def _write(args, script, rendered, stems: dict[str, Path]) -> list[str]:
    """Stems and subtitles first, the mix last; on any failure what was written goes."""
    from studio.atomic import atomic_write
    from studio.engine.audio import write_audio_atomic
    from studio.scripts.render import srt_text

    written: list[Path] = []
    try:
        for speaker, path in stems.items():
            write_audio_atomic(path, rendered.stems[speaker], rendered.sample_rate)
            written.append(path)
        if args.srt is not None:
            with atomic_write(args.srt) as handle:
                handle.write(srt_text(script, rendered).encode("utf-8"))
            written.append(args.srt)
        write_audio_atomic(args.out, rendered.mix, rendered.sample_rate)
        written.append(args.out)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return [str(p) for p in written]


def _chatter_to_log():
    from studio.cli import _library_chatter_to_log

    return _library_chatter_to_log()
