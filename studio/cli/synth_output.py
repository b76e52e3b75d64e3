"""Where `synth`'s results go: the audio (a file renamed into place at the end, or
standard output), the side files (tokens, a voice prompt), and the progress bar.

Nothing is ever left half-written at an output path: a failure removes the temp file
and any side file this render wrote.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from studio.cli.common import to_stdout
from studio.errors import UserError


class ProgressBar:
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


def write_side_files(args, result, prompt, finish) -> None:
    """The side files first, then ``finish()`` (the audio); if any of it fails, the side
    files written go again, so a failed command leaves no new file."""
    written: list[Path] = []
    try:
        if args.tokens_out:
            _side_file(args.tokens_out, "tokens file", lambda: save_tokens(args.tokens_out,
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


def _side_file(path: Path, what: str, write) -> None:
    try:
        write()
    except OSError as exc:
        raise UserError(f"Cannot write the {what} {path} ({exc.strerror or exc}); choose another "
                        "folder or free some disk space.") from None


def save_tokens(path: Path, tokens) -> None:
    import torch

    from studio.atomic import atomic_write

    with atomic_write(path) as handle:
        torch.save([t.to(torch.long).contiguous() for t in tokens], handle)


class AudioOut:
    """Where synth's audio goes: a file (renamed into place at the end, written chunk by
    chunk with --stream) or standard output (a WAV stream or raw PCM, flushed per chunk).
    ``first_audio`` is when the first samples were written."""

    def __init__(self, args, sample_rate: int):
        self.args, self.sample_rate = args, sample_rate
        self.first_audio: float | None = None
        self._file = None
        self._pipe = None
        self._sent = 0  # samples written so far

    def __enter__(self) -> AudioOut:
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
