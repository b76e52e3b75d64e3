"""`omnivoice-desktop synth`: render speech to an audio file (or standard output).

Every check that needs no model runs first, so a typo never waits for a model load;
`--backend URL` hands the render to a speech server (studio.cli.remote). Where the
audio and side files go is studio.cli.synth_output.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from studio.cli import remote, synth_clean, synth_takes
from studio.cli.common import (
    AUDIO_SUFFIXES,
    check_output,
    json_to,
    library_chatter_to_log,
    to_stdout,
)
from studio.cli.options import (
    add_chunking,
    add_decoding,
    add_dictionary,
    add_hardware,
    add_json,
    add_layout,
    add_model_with_default,
    add_seed,
)
from studio.cli.synth_output import AudioOut, ProgressBar, write_side_files
from studio.engine.options import model_source
from studio.errors import UserError
from studio.sound.stream_out import STREAM_FORMATS


def add_parser(commands) -> None:
    synth = commands.add_parser("synth", help="render speech to an audio file")
    add_synth_options(synth)


def add_synth_options(synth) -> None:
    """Every option of `synth`, in the order --help lists them."""
    add_model_with_default(synth)
    what = synth.add_mutually_exclusive_group(required=True)
    what.add_argument("--text", help="the text to speak")
    what.add_argument("--text-file", type=Path, help="read the text from a UTF-8 file")
    synth.add_argument("--lang", help="language id or name (e.g. en, English); default: language-agnostic")
    synth.add_argument("--instruct", help='voice design, e.g. "female, low pitch, british accent"')
    synth.add_argument("--describe", help='the voice in words, e.g. "a young woman, low pitch, british accent"')
    synth.add_argument("--ref", type=Path, help="reference clip to clone (WAV, FLAC, OGG, ...)")
    synth.add_argument("--ref-text", help="transcript of the reference clip (omit to auto-transcribe)")
    synth.add_argument("--prompt", type=Path, help="a saved voice prompt (.pt) to clone")
    synth.add_argument("--voice", help="a saved voice to clone, by name (see `voices list`)")
    synth.add_argument("--save-prompt", type=Path, help="save the encoded reference as a voice prompt")
    synth.add_argument("--asr-model", default=None, help="Whisper model for auto-transcription")
    add_decoding(synth)
    synth.add_argument("--speed", type=float, help="speaking speed factor (>1 faster)")
    synth.add_argument("--duration", type=float, help="exact output duration in seconds (overrides --speed)")
    add_seed(synth, "random seed (default: a fresh one, reported)")
    synth_takes.add_arguments(synth)
    synth.add_argument("--no-denoise", action="store_true", help="leave out the denoise token")
    synth.add_argument("--no-preprocess", action="store_true", help="do not trim the reference clip")
    synth_clean.add_arguments(synth)
    synth.add_argument("--no-postprocess", action="store_true", help="do not trim silence from the output")
    add_hardware(synth)
    add_layout(synth)
    synth.add_argument("--out", type=Path, required=True,
                       help="output audio file (.wav, .flac or .ogg), or - for standard output")
    synth.add_argument("--stream", action="store_true",
                       help="write each chunk as soon as it is rendered (with --out -: play as it renders)")
    synth.add_argument("--format", choices=STREAM_FORMATS, default=None,
                       help="with --out -: a WAV stream (default) or raw 16-bit little-endian PCM")
    add_chunking(synth)
    add_dictionary(synth)
    synth.add_argument("--tokens-out", type=Path, help="also save the audio tokens (torch.save)")
    add_json(synth, "print one JSON line with the result")
    synth.add_argument("--quiet", action="store_true", help="no progress bar")
    remote.add_arguments(synth)


def run(args) -> int:
    summary = run_synth(args)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False), file=json_to(args))
    else:
        print(f"Wrote {summary['out']} ({summary['audio_seconds']:.2f} s of audio "
              f"in {summary['seconds']:.2f} s, seed {summary['seed']}, {summary['precision']}: "
              f"{summary['precision_reason']}).", file=sys.stderr)
    return 0


def _read_text(args) -> str:
    if args.text is not None:
        return args.text
    from studio.safe_read import MB, read_text

    return read_text(args.text_file, MB, "text file")  # 50x the longest text a render takes


def _check_distinct(args) -> None:
    """No output may be an input (it would be overwritten) or another output."""
    from studio.outputs import check_distinct

    check_distinct([(args.ref, "reference clip"), (args.prompt, "voice prompt"),
                    (args.text_file, "text file"),
                    (args.dictionary, "pronunciation dictionary")],
                   [(None if to_stdout(args) else args.out, "output file"),
                    (args.tokens_out, "tokens file"), (args.save_prompt, "prompt file")])


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
        check_output(args.out, AUDIO_SUFFIXES, "output file")
        if args.format is not None:
            raise UserError(f"--format is for --out - (standard output); the file {args.out} "
                            "gets the format its name ends in.")
    if args.stream and args.chunking != "quick-start":
        raise UserError("--stream needs quick-start chunking; the reference's chunking "
                        "post-processes the whole text at once.")
    if args.tokens_out:
        check_output(args.tokens_out, (".pt",), "tokens file")
    if args.save_prompt:
        check_output(args.save_prompt, (".pt",), "prompt file")
        if args.ref is None:
            raise UserError("--save-prompt needs a reference clip (--ref) to encode.")
    _check_distinct(args)
    if args.describe is not None:  # read as the Design view reads it; a bad one stops here
        from studio.engine.describe import describe

        if args.instruct is not None:
            raise UserError("Give --instruct or --describe, not both.")
        args.instruct = describe(args.describe)
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
    synth_takes.check(args)
    cleaning = synth_clean.steps(args)
    args.cleanup = synth_clean.apply(args, cleaning, args.quiet)  # args.ref: the cleaned clip
    if args.backend is not None:
        return remote.run(args, text)
    if args.api_key is not None or args.dialect is not None or args.timeout is not None:
        raise UserError("--api-key, --dialect and --timeout are for a remote render; give "
                        "the server with --backend.")
    from studio.engine.lexicon import load_pronunciations
    from studio.service.voices import synthesis_items

    voice = _saved_voice(args.voice) if args.voice is not None else None
    options = _options(args)
    items = synthesis_items(text, synth_takes.seeds(args), language=args.lang,
                            instruct=args.instruct,
                             speed=args.speed, duration=args.duration,
                             lexicon=load_pronunciations(args.dictionary),
                             saved=voice[0] if voice is not None else None)
    # The engine checks again; checking here reports a typo before the model loads.
    check_options(options)
    for item in items:
        check_item(item)

    with library_chatter_to_log():
        return _render(args, options, items, voice, command_started)


def _saved_voice(name: str):
    """The saved voice called ``name``; its language and locked seed fill in what the
    command line leaves out."""
    from studio.library.voices import VoiceLibrary

    with VoiceLibrary() as library:
        voice = library.find(name)
        return voice, library.prompt_path(voice.id), library.clip_path(voice.id)


def _render(args, options, items, voice, command_started: float) -> dict:
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

    for item in items:
        item.prompt = prompt
    item = items[0]
    show = not args.quiet and sys.stderr.isatty()
    judged: dict = {}
    with AudioOut(args, engine.sample_rate) as out:
        results = accel.run(lambda: engine.synthesize(
            items, options, on_progress=ProgressBar(show), warn=warn,
            on_chunk=out.chunk if args.stream else None))
        report = accel.report
        accel.release()
        seconds = time.perf_counter() - started
        result = results[0]
        if len(results) > 1:
            # Judged against the clip cloned: --ref, or the saved voice's own clip.
            clip = args.ref if voice is None else voice[2]
            best, judged = synth_takes.pick(args, item.text, item.language, results, clip,
                                            str(engine.device))
            result = results[best]
        write_side_files(args, result, prompt, finish=lambda: out.finish(result.audio))
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
        "warnings": warnings + list(args.cleanup["warnings"] if args.cleanup else []),
        "cleanup": args.cleanup,
        **judged,
    }


def _prompt_source(engine, args, disk: bool):
    from studio.engine.asr import DEFAULT_ASR_MODEL
    from studio.engine.prompt_cache import default_cache_folder
    from studio.service.voices import prompt_source

    return prompt_source(engine, default_cache_folder() if disk else None,
                         args.asr_model or DEFAULT_ASR_MODEL)
