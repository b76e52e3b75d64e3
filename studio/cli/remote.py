"""`synth --backend URL`: the same render, done by a speech server.

The text, design, reference clip (or a saved voice's clip and transcript), steps,
guidance, seed and speed travel; settings only the local engine has are refused in
one sentence rather than silently dropped. The file appears whole or not at all.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from studio.cli.common import AUDIO_SUFFIXES, check_output, to_stdout
from studio.errors import UserError


def add_arguments(synth) -> None:
    from studio.remote.client import DEFAULT_TIMEOUT_S
    from studio.remote.dialects import DIALECTS

    synth.add_argument("--backend", metavar="URL",
                       help="render on this speech server (vLLM-Omni, omnivoice-server or "
                            "omnivoice-desktop serve) instead of this machine")
    synth.add_argument("--api-key", help="the server's API key (with --backend)")
    synth.add_argument("--dialect", choices=DIALECTS,
                       help="the server's request dialect (default: detected from the server)")
    synth.add_argument("--timeout", type=float, default=None,
                       help="seconds the server has for each answer, from connecting to its "
                            f"last byte (with --backend; default {DEFAULT_TIMEOUT_S:g})")


# (attribute, value meaning "not given", how the option is spelled)
_LOCAL_ONLY = (("prompt", None, "--prompt"), ("save_prompt", None, "--save-prompt"),
               ("tokens_out", None, "--tokens-out"), ("duration", None, "--duration"),
               ("no_denoise", False, "--no-denoise"),
               ("no_postprocess", False, "--no-postprocess"),
               ("no_preprocess", False, "--no-preprocess"), ("accel", "off", "--accel"),
               ("decode", "auto", "--decode"), ("chunking", "quick-start", "--chunking"),
               ("t_shift", 0.1, "--t-shift"), ("layer_penalty", 5.0, "--layer-penalty"),
               ("asr_model", None, "--asr-model"))


def _request(args, text: str):
    from studio.remote.dialects import RemoteRequest

    language, instruct, seed = args.lang, args.instruct, args.seed
    clip, transcript, name = None, args.ref_text, "reference.wav"
    if args.voice is not None:
        # A saved voice travels as its clip and transcript: the server clones it.
        from studio.library.voices import VoiceLibrary

        with VoiceLibrary() as library:
            voice = library.find(args.voice)
            path = library.clip_path(voice.id)
        clip, transcript, name = path.read_bytes(), voice.transcript, path.name
        language = language if language is not None else voice.language
        seed = seed if seed is not None else voice.seed
    elif args.ref is not None:
        from studio.library.fields import MAX_CLIP_BYTES
        from studio.safe_read import read_bytes

        clip, name = read_bytes(args.ref, MAX_CLIP_BYTES, "reference clip"), args.ref.name
        if not (transcript or "").strip():
            raise UserError("A remote render needs the reference clip's transcript; give it "
                            "with --ref-text.")
    return RemoteRequest(
        text=text, language=language, instruct=instruct, ref_audio=clip, ref_name=name,
        ref_text=transcript, steps=args.steps, guidance=args.guidance, seed=seed,
        speed=args.speed, position_temperature=args.position_temperature,
        class_temperature=args.class_temperature, stream=bool(args.stream))


class _Sink:
    """Where the remote audio goes, opened at the first samples (the rate comes with
    them): a file under a temp name until the end, or standard output."""

    def __init__(self, out: Path, to_pipe: bool, fmt: str | None):
        self.out, self.to_pipe, self.fmt = out, to_pipe, fmt or "wav"
        self.first_audio: float | None = None
        self._writer = None
        self._rate = None

    def open(self, rate: int) -> None:
        from studio.sound.files import AudioFileWriter
        from studio.sound.stream_out import PipeWriter

        if self._writer is None:
            self._rate = rate
            self._writer = (PipeWriter(sys.stdout.buffer, rate, self.fmt) if self.to_pipe
                            else AudioFileWriter(self.out, rate).__enter__())

    def write(self, audio) -> None:
        self._writer.write(audio)
        if self.first_audio is None:
            self.first_audio = time.perf_counter()

    def close(self, failed: BaseException | None) -> None:
        writer, self._writer = self._writer, None
        if writer is not None and not self.to_pipe:
            writer.__exit__(type(failed) if failed else None, failed, None)


def _render_parts(backend, request, sink: _Sink, chunk, lexicon):
    """The text between pause tags, a server call a part, with exactly the asked
    silence written between them; the pronunciation dictionary applied to each."""
    import dataclasses

    from studio.service.remote import render_between_pauses

    samples = [0]

    def audio(result) -> None:
        samples[0] += result.audio.size
        if not request.stream:
            sink.open(result.sample_rate)
            sink.write(result.audio)

    def silence(zeros, _rate: int) -> None:
        samples[0] += zeros.size
        sink.write(zeros)

    result = render_between_pauses(
        request.text, request.language, lexicon, backend.url,
        lambda said: backend.render(dataclasses.replace(request, text=said),
                                    on_chunk=chunk if request.stream else None),
        audio, silence)
    return result, samples[0] / result.sample_rate


def run(args, text: str) -> dict:
    from studio.remote.client import DEFAULT_TIMEOUT_S, RemoteBackend
    from studio.remote.dialects import dialect

    started = time.perf_counter()
    for attr, unset, spelled in _LOCAL_ONLY:
        if getattr(args, attr, unset) != unset:
            raise UserError(f"{spelled} works with the local engine only; leave it out with "
                            "--backend.")
    if args.ref is not None and args.voice is not None:
        raise UserError("Give one of --voice or --ref, not both.")
    pipe = to_stdout(args)
    if not pipe:
        check_output(args.out, AUDIO_SUFFIXES, "output file")
    request = _request(args, text)
    from studio.engine.lexicon import load_pronunciations

    lexicon = load_pronunciations(args.dictionary)  # applied here: servers have none of ours
    sink = _Sink(args.out, pipe, args.format)
    with RemoteBackend(args.backend, args.api_key, args.dialect,
                       DEFAULT_TIMEOUT_S if args.timeout is None else args.timeout) as backend:
        info = backend.info()

        def chunk(audio, rate: int) -> None:
            sink.open(rate)
            sink.write(audio)

        try:
            result, audio_seconds = _render_parts(backend, request, sink, chunk, lexicon)
        except BaseException as exc:
            sink.close(exc)
            raise
        sink.close(None)
    ignored = dialect(result.dialect).ignores
    warnings = []
    if ignored and (args.position_temperature, args.class_temperature) != (5.0, 0.0):
        warnings.append(f"{result.dialect} does not take the {' or the '.join(ignored)}; the "
                        "server used its own.")
    for note in warnings:
        print(f"warning: {note}", file=sys.stderr)
    seconds = time.perf_counter() - started
    return {
        "out": str(args.out),
        "seconds": round(seconds, 4),
        "first_audio_seconds": round((sink.first_audio or time.perf_counter()) - started, 4),
        "stream": bool(request.stream),
        "audio_seconds": round(audio_seconds, 4),
        "rtf": round(seconds / audio_seconds, 4) if audio_seconds else None,
        "backend": backend.url,
        "dialect": result.dialect,
        "server_model": result.model,
        "server_models": info.models,
        "reported": result.reported,
        "steps": args.steps,
        "seed": result.seed,
        "precision": "remote",
        "precision_reason": f"rendered by {result.dialect} at {backend.url}",
        "warnings": warnings,
    }
