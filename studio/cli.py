"""`omnivoice-desktop`: the studio (no subcommand) and the headless commands: synth,
download, cache, selftest, and voices, script and serve (in cli_voices.py, cli_script.py,
cli_serve.py; cli_remote.py renders `synth --backend`).

A mistake the user can fix prints one sentence and exits with status 2; an
unexpected failure prints one sentence pointing at the log file and exits 1.
Nothing is ever left half-written at an output path.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from studio import __version__
from studio.engine.options import CHUNKINGS, DEFAULT_REPO, PRECISION_CHOICES, model_source
from studio.errors import UserError, one_line
from studio.sound.stream_out import STREAM_FORMATS

log = logging.getLogger("studio.cli")

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg")
ACCEL_CHOICES = ("off", "compile", "flashinfer", "flashinfer-graph")


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


class _Parser(argparse.ArgumentParser):
    """argparse, with the CLI's contract for a mistake: one sentence, exit status 2
    (not a usage block), and how to see the options."""

    def error(self, message: str):
        where = self.prog
        self.exit(2, f"error: {message[0].upper()}{message[1:].rstrip('.')}; run {where} --help "
                     "for the options.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="omnivoice-desktop",
        description="OmniVoice Desktop: clone and design voices with OmniVoice, locally.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--model", dest="studio_model", default=None,
                        help="open the studio on this checkpoint folder or repo id")
    commands = parser.add_subparsers(dest="command")  # subparsers are _Parsers too

    synth = commands.add_parser("synth", help="render speech to an audio file")
    synth.add_argument("--model", help=f"checkpoint folder or Hugging Face repo id (default {DEFAULT_REPO})")
    what = synth.add_mutually_exclusive_group(required=True)
    what.add_argument("--text", help="the text to speak")
    what.add_argument("--text-file", type=Path, help="read the text from a UTF-8 file")
    synth.add_argument("--lang", help="language id or name (e.g. en, English); default: language-agnostic")
    synth.add_argument("--instruct", help='voice design, e.g. "female, low pitch, british accent"')
    synth.add_argument("--ref", type=Path, help="reference clip to clone (WAV, FLAC, OGG, ...)")
    synth.add_argument("--ref-text", help="transcript of the reference clip (omit to auto-transcribe)")
    synth.add_argument("--prompt", type=Path, help="a saved voice prompt (.pt) to clone")
    synth.add_argument("--voice", help="a saved voice to clone, by name (see `voices list`)")
    synth.add_argument("--save-prompt", type=Path, help="save the encoded reference as a voice prompt")
    synth.add_argument("--asr-model", default=None, help="Whisper model for auto-transcription")
    synth.add_argument("--steps", type=_positive_int, default=32, help="decoding steps (default 32)")
    synth.add_argument("--guidance", type=float, default=2.0, help="classifier-free guidance scale")
    synth.add_argument("--t-shift", type=float, default=0.1, help="time-step shift of the schedule")
    synth.add_argument("--layer-penalty", type=float, default=5.0, help="codebook layer penalty")
    synth.add_argument("--position-temperature", type=float, default=5.0)
    synth.add_argument("--class-temperature", type=float, default=0.0)
    synth.add_argument("--speed", type=float, help="speaking speed factor (>1 faster)")
    synth.add_argument("--duration", type=float, help="exact output duration in seconds (overrides --speed)")
    synth.add_argument("--seed", type=int, help="random seed (default: a fresh one, reported)")
    synth.add_argument("--no-denoise", action="store_true", help="leave out the denoise token")
    synth.add_argument("--no-preprocess", action="store_true", help="do not trim the reference clip")
    synth.add_argument("--no-postprocess", action="store_true", help="do not trim silence from the output")
    synth.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda", "mps"))
    synth.add_argument("--precision", default="auto", choices=PRECISION_CHOICES)
    synth.add_argument("--decode", default="auto", choices=("auto", "padded", "packed"),
                       help="packed: one row, no padding; padded: the reference-equal layout; "
                            "auto (default): the faster one measured on this device (packed on the CPU, "
                            "padded on CUDA)")
    synth.add_argument("--accel", default="off", choices=ACCEL_CHOICES, help="acceleration path")
    synth.add_argument("--out", type=Path, required=True,
                       help="output audio file (.wav, .flac or .ogg), or - for standard output")
    synth.add_argument("--stream", action="store_true",
                       help="write each chunk as soon as it is rendered (with --out -: play as it renders)")
    synth.add_argument("--format", choices=STREAM_FORMATS, default=None,
                       help="with --out -: a WAV stream (default) or raw 16-bit little-endian PCM")
    synth.add_argument("--chunking", default="quick-start", choices=CHUNKINGS,
                       help="quick-start (default): a short first chunk, so audio starts early; "
                            "reference: the reference implementation's chunks")
    synth.add_argument("--dictionary", type=Path,
                       help="a pronunciation dictionary (JSON), before the data folder's own")
    synth.add_argument("--tokens-out", type=Path, help="also save the audio tokens (torch.save)")
    synth.add_argument("--json", action="store_true", help="print one JSON line with the result")
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    from studio import cli_remote, cli_serve

    cli_remote.add_arguments(synth)

    download = commands.add_parser("download", help="download the model into the data folder (resumes)")
    download.add_argument("repo", nargs="?", default=None, help=f"repo id (default {DEFAULT_REPO})")

    cache = commands.add_parser("cache", help="the cache of encoded reference clips (voice prompts)")
    cache_commands = cache.add_subparsers(dest="cache_command", required=True, metavar="COMMAND")
    cache_info = cache_commands.add_parser("info", help="where the cache is and what it holds")
    cache_info.add_argument("--json", action="store_true", help="print one JSON line")
    cache_clear = cache_commands.add_parser("clear", help="delete every cached voice prompt")
    cache_clear.add_argument("--json", action="store_true", help="print one JSON line")

    from studio import cli_script, cli_voices

    cli_voices.add_parser(commands)
    cli_script.add_parser(commands)
    cli_serve.add_parser(commands)

    selftest = commands.add_parser("selftest", help="check this install without downloading anything")
    selftest.add_argument("--json", action="store_true", help="print one JSON object with every check")
    # The child processes of the Qt checks.
    selftest.add_argument("--probe", choices=("qt", "studio"), help=argparse.SUPPRESS)
    selftest.add_argument("--probe-model", help=argparse.SUPPRESS)
    return parser


def _read_text(args) -> str:
    if args.text is not None:
        return args.text
    from studio.safe_read import MB, read_text

    return read_text(args.text_file, MB, "text file")  # 50x the longest text a render takes


def _check_output(path: Path, suffixes: tuple[str, ...], what: str) -> None:
    from studio.atomic import check_target

    if path.suffix.lower() not in suffixes:
        raise UserError(f"The {what} {path} must end in {', '.join(suffixes)}.")
    check_target(path, what)


def _check_distinct(args) -> None:
    """No output may be an input (it would be overwritten) or another output."""
    from studio.outputs import check_distinct

    check_distinct([(args.ref, "reference clip"), (args.prompt, "voice prompt"),
                    (args.text_file, "text file"),
                    (args.dictionary, "pronunciation dictionary")],
                   [(None if to_stdout(args) else args.out, "output file"),
                    (args.tokens_out, "tokens file"), (args.save_prompt, "prompt file")])


def _save_tokens(path: Path, tokens) -> None:
    import torch

    from studio.atomic import atomic_write

    with atomic_write(path) as handle:
        torch.save([t.to(torch.long).contiguous() for t in tokens], handle)


@contextlib.contextmanager
def _library_chatter_to_log():
    """Send transformers' own output to the log file instead of the terminal.

    Loading a checkpoint makes transformers warn about the config's model type
    and draw a weight-loading bar; neither means anything to the user, and they
    would bury the one sentence an error prints. Download bars (an ASR model
    fetched for auto-transcription) stay. Everything is restored afterwards, so
    calling ``main`` in-process leaves the libraries as it found them.
    """
    from huggingface_hub import utils as hub_utils
    from transformers.utils import logging as hf_logging

    library = hf_logging.get_logger()
    handlers, propagate = list(library.handlers), library.propagate
    bars = hf_logging.is_progress_bar_enabled()
    hub_bars = not hub_utils.are_progress_bars_disabled()
    for handler in handlers:
        library.removeHandler(handler)
    library.propagate = True  # to the root logger, i.e. the log file
    hf_logging.disable_progress_bar()  # this switches off the hub's bars too
    if hub_bars:
        hub_utils.enable_progress_bars()
    try:
        yield
    finally:
        for handler in handlers:
            library.addHandler(handler)
        library.propagate = propagate
        if bars:
            hf_logging.enable_progress_bar()
        if not hub_bars:
            hub_utils.disable_progress_bars()


class _ProgressBar:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, p) -> None:
        if not self.enabled:
            return
        filled = int(30 * p.step / p.steps)
        chunk = f" chunk {p.chunk}/{p.chunks}" if p.chunks > 1 else ""
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] step {p.step}/{p.steps}{chunk} ")
        if p.step == p.steps and p.chunk == p.chunks:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _options(args):
    from studio.engine.decode import DecodeOptions
    from studio.engine.engine import GenerationOptions

    return GenerationOptions(
        decode=DecodeOptions(
            num_step=args.steps,
            guidance_scale=args.guidance,
            t_shift=args.t_shift,
            layer_penalty=args.layer_penalty,
            position_temperature=args.position_temperature,
            class_temperature=args.class_temperature,
        ),
        denoise=not args.no_denoise,
        postprocess=not args.no_postprocess,
        decode_mode=args.decode,
        chunking=args.chunking,
    )


def to_stdout(args) -> bool:
    """``--out -``: the audio goes to standard output (and --json to standard error)."""
    return str(getattr(args, "out", "")) == "-"


def run_synth(args) -> dict:
    from studio.engine.engine import check_item, check_options

    command_started = time.perf_counter()  # first_audio_seconds counts from here

    # Cheap checks first, so a typo never waits for a model load.
    from studio.engine.text import check_code_points

    text = _read_text(args)
    if not text.strip():
        raise UserError("The text is empty; type what the voice should say.")
    if args.ref_text is not None:
        check_code_points(args.ref_text, "transcript")
    if to_stdout(args):
        if sys.stdout.isatty():
            raise UserError("--out - writes audio to standard output, which is a terminal here; "
                            "pipe it into a player such as aplay, or name a file.")
    else:
        _check_output(args.out, AUDIO_SUFFIXES, "output file")
        if args.format is not None:
            raise UserError(f"--format is for --out - (standard output); the file {args.out} "
                            "gets the format its name ends in.")
    if args.stream and args.chunking != "quick-start":
        raise UserError("--stream needs quick-start chunking; the reference's chunking "
                        "post-processes the whole text at once.")
    if args.tokens_out:
        _check_output(args.tokens_out, (".pt",), "tokens file")
    if args.save_prompt:
        _check_output(args.save_prompt, (".pt",), "prompt file")
        if args.ref is None:
            raise UserError("--save-prompt needs a reference clip (--ref) to encode.")
    _check_distinct(args)
    if sum(x is not None for x in (args.prompt, args.ref, args.voice)) > 1:
        raise UserError("Give one of --voice, --prompt or --ref, not more.")
    if args.ref is not None and args.ref.is_dir():
        raise UserError(f"The reference clip {args.ref} is a folder; pass an audio file.")
    if args.ref is not None and args.ref.exists() and not args.ref.is_file():
        raise UserError(f"The reference clip {args.ref} is not a regular file (a device or a "
                        "pipe); pass an audio file.")
    if args.ref is not None and not args.ref.is_file():
        raise UserError(f"The reference clip {args.ref} does not exist.")
    if args.ref_text is not None and args.ref is None:
        raise UserError("--ref-text is the transcript of a reference clip; give the clip with "
                        "--ref, or leave --ref-text out.")
    if args.backend is not None:
        from studio import cli_remote

        return cli_remote.run(args, text)
    if args.api_key is not None or args.dialect is not None or args.timeout is not None:
        raise UserError("--api-key, --dialect and --timeout are for a remote render; give "
                        "the server with --backend.")
    from studio.engine.lexicon import load_pronunciations
    from studio.service.voices import synthesis_items

    voice = _saved_voice(args.voice) if args.voice is not None else None
    options = _options(args)
    [item] = synthesis_items(text, [args.seed], language=args.lang, instruct=args.instruct,
                             speed=args.speed, duration=args.duration,
                             lexicon=load_pronunciations(args.dictionary),
                             saved=voice[0] if voice is not None else None)
    # The engine checks again; checking here reports a typo before the model loads.
    check_options(options)
    check_item(item)

    with _library_chatter_to_log():
        return _render(args, options, item, voice, command_started)


def _saved_voice(name: str):
    """The saved voice called ``name``; its language and locked seed fill in what the
    command line leaves out."""
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary() as library:
        voice = library.find(name)
        return voice, library.prompt_path(voice.id)


def _render(args, options, item, voice, command_started: float) -> dict:
    from studio.engine.accel.accelerator import Accelerator
    from studio.engine.engine import Engine, check_item
    from studio.engine.options import resolve_decode_mode
    from studio.engine.prompt_cache import disk_cache_enabled
    from studio.service.voices import VoiceChoice, resolve_voice

    warnings: list[str] = []

    def warn(message: str) -> None:
        warnings.append(message)
        print(f"warning: {message}", file=sys.stderr)

    # The env switch is read before the model loads, so a typo in it costs nothing.
    prompts_enabled = disk_cache_enabled() if args.ref else False
    # `omnivoice-desktop --model X synth ...` means the same as `synth --model X`.
    engine = Engine.load(model_source(args.model, args.studio_model), device=args.device, precision=args.precision)
    # The studio's contract: a refused or failing accelerator falls back with a named reason.
    stage = None if args.quiet else (lambda text: print(f"{args.accel}: {text}", file=sys.stderr))
    accel = Accelerator(args.accel, on_stage=stage)
    accel.prepare(engine)
    started = time.perf_counter()
    choice = VoiceChoice(saved_prompt=voice[1] if voice is not None else None,
                         prompt_file=args.prompt, reference=args.ref, ref_text=args.ref_text,
                         preprocess=not args.no_preprocess)
    prompts = _prompt_source(engine, args, prompts_enabled) if args.ref else None
    prompt, source = resolve_voice(engine, prompts, choice, warn=warn)
    encodes, transcriptions = (prompts.encodes, prompts.transcriptions) if prompts else (0, 0)

    item.prompt = prompt
    show = not args.quiet and sys.stderr.isatty()
    with _AudioOut(args, engine.sample_rate) as out:
        [result] = accel.run(lambda: engine.synthesize(
            [item], options, on_progress=_ProgressBar(show), warn=warn,
            on_chunk=out.chunk if args.stream else None))
        report = accel.report
        accel.release()
        seconds = time.perf_counter() - started
        _write_side_files(args, result, prompt, finish=lambda: out.finish(result.audio))
    audio_seconds = result.audio.shape[-1] / result.sample_rate
    if report.reason:
        warn(report.reason)
    return {
        "out": str(args.out),
        "seconds": round(seconds, 4),
        "load_seconds": round(started - command_started, 4),
        "first_audio_seconds": round(out.first_audio - command_started, 4),
        "stream": bool(args.stream),
        "audio_seconds": round(audio_seconds, 4),
        "rtf": round(seconds / audio_seconds, 4) if audio_seconds else None,
        "device": str(engine.device),
        "precision": engine.precision,
        "precision_reason": engine.precision_reason,
        "steps": args.steps,
        # An active accelerator always runs the packed layout.
        "decode": "packed" if report.active != "off" else resolve_decode_mode(args.decode, engine.device),
        "seed": result.seed,
        "accel_requested": report.requested,
        "accel_active": report.active,
        "fallback_reason": report.reason,
        "prompt_source": source,
        "encodes": encodes,
        "transcriptions": transcriptions,
        "chunks": len(result.tokens),
        "read_text": item.lexicon.apply(item.text, check_item(item)[0]) if item.lexicon
        else item.text,
        "warnings": warnings,
    }


def _write_side_files(args, result, prompt, finish) -> None:
    """The side files first, then ``finish()`` (the audio); if any of it fails, the side
    files written go again, so a failed command leaves no new file."""
    written: list[Path] = []
    try:
        if args.tokens_out:
            _side_file(args.tokens_out, "tokens file", lambda: _save_tokens(args.tokens_out,
                                                                            result.tokens))
            written.append(args.tokens_out)
        if args.save_prompt:
            _side_file(args.save_prompt, "prompt file", lambda: prompt.save(args.save_prompt))
            written.append(args.save_prompt)
        finish()
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise


class _AudioOut:
    """Where synth's audio goes: a file (renamed into place at the end, written chunk by
    chunk with --stream) or standard output (a WAV stream or raw PCM, flushed per chunk).
    ``first_audio`` is when the first samples were written."""

    def __init__(self, args, sample_rate: int):
        self.args, self.sample_rate = args, sample_rate
        self.first_audio: float | None = None
        self._file = None
        self._pipe = None
        self._sent = 0  # samples written so far

    def __enter__(self) -> _AudioOut:
        from studio.sound.stream_out import PipeWriter

        if to_stdout(self.args):
            self._pipe = PipeWriter(sys.stdout.buffer, self.sample_rate, self.args.format or "wav")
        else:
            self._file = self._open_file()
        return self

    def _open_file(self):
        from studio.sound.files import AudioFileWriter

        return AudioFileWriter(self.args.out, self.sample_rate).__enter__()

    def chunk(self, chunk) -> None:
        """Write a streamed chunk. An accelerator that fails mid-render renders again on
        the standard path from chunk 0: a file starts over; on a pipe, what was already
        sent cannot be taken back, so the samples past it follow."""
        if chunk.index == 0 and self._sent and self._file is not None:
            self._file.__exit__(RuntimeError, None, None)
            self._file, self._sent = self._open_file(), 0
        skip = max(0, self._sent - chunk.start)
        if skip < chunk.audio.shape[-1]:
            self._write(chunk.audio[skip:])

    def finish(self, audio) -> None:
        """The whole take: what was not streamed is written now, then the file is closed."""
        if self._sent < audio.shape[-1]:
            self._write(audio[self._sent:])
        if self._file is not None:
            file, self._file = self._file, None
            file.__exit__(None, None, None)

    def _write(self, audio) -> None:
        try:
            (self._pipe or self._file).write(audio)
        except BrokenPipeError:
            # Nothing more can reach the reader; Python's own flush at exit must not fail too.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            raise UserError("The program reading the audio from standard output stopped "
                            "reading; the render stopped.") from None
        self._sent += audio.shape[-1]
        if self.first_audio is None:
            self.first_audio = time.perf_counter()

    def __exit__(self, kind, exc, tb) -> bool:
        if self._file is not None:  # an error or interruption: the temp file goes
            file, self._file = self._file, None
            file.__exit__(kind or RuntimeError, exc, tb)
        return False


def _side_file(path: Path, what: str, write) -> None:
    try:
        write()
    except OSError as exc:
        raise UserError(f"Cannot write the {what} {path} ({exc.strerror or exc}); choose another "
                        "folder or free some disk space.") from None


def _prompt_source(engine, args, disk: bool):
    from studio.engine.asr import DEFAULT_ASR_MODEL
    from studio.engine.prompt_cache import default_cache_folder
    from studio.service.voices import prompt_source

    return prompt_source(engine, default_cache_folder() if disk else None,
                         args.asr_model or DEFAULT_ASR_MODEL)


def _size(count: int) -> str:
    if count < 1024:
        return f"{count} bytes"
    size = count / 1024
    for unit in ("KB", "MB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def run_cache(args) -> dict:
    """``cache info`` and ``cache clear``; the folder is the same whether the disk layer is on."""
    from studio.engine.file_hashes import HASHES_FILE, FileHasher
    from studio.engine.prompt_cache import (
        DISK_CACHE_ENV,
        PromptCache,
        default_cache_folder,
        disk_cache_enabled,
    )

    folder = default_cache_folder()
    cache = PromptCache(folder)
    if args.cache_command == "clear":
        removed = cache.clear()
        if (folder / HASHES_FILE).is_file():
            FileHasher(folder / HASHES_FILE).clear()  # it names the user's clips
        noun = "prompt" if removed == 1 else "prompts"
        message = f"Removed {removed} cached voice {noun} from {folder}."
        return {"folder": str(folder), "removed": removed, "message": message}
    enabled = disk_cache_enabled()
    info = cache.info()
    state = "on" if enabled else f"off (by {DISK_CACHE_ENV})"
    noun = "prompt" if info["entries"] == 1 else "prompts"
    message = (
        f"Voice prompt cache: {folder}\n"
        f"Disk layer: {state}\n"
        f"Holds {info['entries']} voice {noun} ({_size(info['bytes'])}); keeps the "
        f"{info['disk_items']} most recently used plus those of saved voices."
    )
    return {"folder": str(folder), "enabled": enabled, "entries": info["entries"],
            "bytes": info["bytes"], "disk_items": info["disk_items"], "message": message}


def run_download(args) -> None:
    """The studio's own resumable download (the setup card's), with one progress line."""
    from studio.engine.hub_download import (
        LICENSE_NOTICE,
        describe_progress,
        download_folder,
        download_repo,
    )

    repo = args.repo or DEFAULT_REPO
    print(LICENSE_NOTICE, file=sys.stderr)
    print(f"Downloading {repo} ...", file=sys.stderr)
    live = sys.stderr.isatty()

    def show(progress) -> None:
        if live:
            print(f"\r{describe_progress(progress)}   ", end="", file=sys.stderr, flush=True)

    path = download_repo(repo, download_folder(repo), on_progress=show)
    if live:
        print(file=sys.stderr)
    print(f"Done: {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    # First, before anything can crash: the log file, with faulthandler writing fatal
    # signals into it, and the hooks that log exceptions nobody caught.
    from studio import logfile
    from studio.crash import UncaughtHooks

    handler, log_path = logfile.attach()
    hooks = UncaughtHooks()
    # Library warnings (torch, torchaudio) go to the log file, not the terminal.
    logging.captureWarnings(True)
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            # No subcommand: open the studio (Qt is imported only here).
            from studio.app import run

            extra = ["--model", args.studio_model] if args.studio_model else []
            return run([sys.argv[0], *extra], log_path=log_path, hooks=hooks)
        return _command(args, log_path)
    finally:
        logging.captureWarnings(False)
        hooks.remove()
        logging.getLogger().removeHandler(handler)
        handler.close()


def _json_to(args):
    """Standard output, unless it carries the audio (--out -)."""
    return sys.stderr if to_stdout(args) else sys.stdout


def _command(args, logfile: Path | None) -> int:
    """One headless subcommand, with the CLI's contract for errors and exit statuses."""
    from studio.paths import check_data_dir

    try:
        if args.command != "download":  # every other command keeps something there
            check_data_dir()
        if args.command == "synth":
            summary = run_synth(args)
            if args.json:
                print(json.dumps(summary, ensure_ascii=False), file=_json_to(args))
            else:
                print(f"Wrote {summary['out']} ({summary['audio_seconds']:.2f} s of audio "
                      f"in {summary['seconds']:.2f} s, seed {summary['seed']}, {summary['precision']}: "
                      f"{summary['precision_reason']}).", file=sys.stderr)
        elif args.command == "download":
            run_download(args)
        elif args.command == "serve":
            from studio import cli_serve

            return cli_serve.run(args, args.studio_model)
        elif args.command == "selftest":
            from studio import selftest

            if args.probe:  # a child of the self-test: nothing imported before it runs
                return selftest.main(probe=args.probe, probe_model=args.probe_model)
            with _library_chatter_to_log():
                return selftest.main(json_output=args.json)
        elif args.command == "voices":
            from studio import cli_voices

            summary = cli_voices.run(args, args.studio_model)
            if args.json:
                print(json.dumps({k: v for k, v in summary.items() if k != "message"},
                                 ensure_ascii=False))
            else:
                print(summary["message"])
        elif args.command == "script":
            from studio import cli_script

            summary = cli_script.run(args, args.studio_model)
            if args.json:
                print(json.dumps({k: v for k, v in summary.items() if k != "message"},
                                 ensure_ascii=False))
            elif "message" in summary:
                print(summary["message"])
            else:
                print(f"Wrote {summary['out']} ({summary['lines']} lines, "
                      f"{len(summary['speakers'])} speakers, {summary['seconds']:.1f} s of audio "
                      f"in {summary['render_seconds']:.1f} s).", file=sys.stderr)
                for note in summary["warnings"]:
                    print(f"warning: {note}", file=sys.stderr)
        elif args.command == "cache":
            summary = run_cache(args)
            if args.json:
                print(json.dumps({k: v for k, v in summary.items() if k != "message"},
                                 ensure_ascii=False))
            else:
                print(summary["message"])
        return 0
    except UserError as exc:
        sentence = one_line(str(exc))
        print(f"error: {sentence}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"error": sentence}, ensure_ascii=False), file=_json_to(args))
        return 2
    except KeyboardInterrupt:
        print("error: interrupted; nothing was written.", file=sys.stderr)
        return 130
    except Exception:
        log.exception("unexpected failure")
        where = f"; details are in {logfile}" if logfile else ""
        message = f"an unexpected internal error stopped the command{where}."
        print(f"error: {message}", file=sys.stderr)
        if getattr(args, "json", False):
            print(json.dumps({"error": message}, ensure_ascii=False), file=_json_to(args))
        return 1


if __name__ == "__main__":
    sys.exit(main())
