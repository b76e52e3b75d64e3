"""Writing an audiobook file: AAC in MP4 (``.m4b``) with chapter marks, title, author and
a cover, through PyAV (FFmpeg's muxer; its wheels bundle FFmpeg). The one module that
imports ``av``, as files.py is for soundfile.

The audio arrives chapter by chapter (the caller holds one at a time); the chapter marks
are known before the first sample, so they are set on the container up front.
"""

from __future__ import annotations

import fractions
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.errors import UserError

AAC_BIT_RATE = 64_000  # mono speech; ACX asks 192 kb/s of MP3, AAC at 64 kb/s is alike
FRAME_BLOCK = 1 << 15  # samples handed to the encoder at a time
COVER_CODECS = {".png": "png", ".jpg": "mjpeg", ".jpeg": "mjpeg"}
_MS = fractions.Fraction(1, 1000)


@dataclass(frozen=True)
class Mark:
    title: str
    start: int  # samples
    end: int


def cover_size(path: Path) -> tuple[int, int]:
    """The cover's width and height; one sentence when it is not a PNG or JPEG image."""
    import av

    path = Path(path)
    if path.suffix.lower() not in COVER_CODECS or not path.is_file():
        raise UserError(f"The cover {path} must be an existing .png or .jpg image.")
    try:
        with av.open(str(path)) as image:
            frame = next(image.decode(video=0))
            return frame.width, frame.height
    except (av.FFmpegError, StopIteration, OSError):
        raise UserError(f"The cover {path} could not be read as an image; choose another "
                        ".png or .jpg.") from None


def chapters_read(path: Path) -> list[tuple[str, float]]:
    """(title, start in seconds) of each chapter of an MP4/M4B file: for checks and tests."""
    import av

    with av.open(str(path)) as book:
        return [(c["metadata"].get("title", ""), float(c["start"] * c["time_base"]))
                for c in book.chapters()]


def tags_read(path: Path) -> dict[str, str]:
    import av

    with av.open(str(path)) as book:
        return dict(book.metadata)


class M4bWriter:
    """``with M4bWriter(path, rate, marks, title=..., author=..., cover=...) as w:
    w.write(block)`` for every block of the book in order. ``path`` is written in place:
    callers give a staged temporary name."""

    def __init__(self, path: Path, sample_rate: int, marks: list[Mark], *, title: str = "",
                 author: str = "", cover: Path | None = None):
        self.path, self.rate, self.marks = Path(path), sample_rate, marks
        self.title, self.author, self.cover = title, author, cover
        self._out = self._audio = None
        self._pts = 0

    def __enter__(self) -> M4bWriter:
        import av

        size = cover_size(self.cover) if self.cover is not None else None
        self._out = av.open(str(self.path), "w", format="mp4")
        try:
            for key, value in (("title", self.title), ("album", self.title),
                               ("artist", self.author), ("album_artist", self.author),
                               ("genre", "Audiobook")):
                if value:
                    self._out.metadata[key] = value
            self._audio = self._out.add_stream("aac", rate=self.rate, layout="mono")
            self._audio.bit_rate = AAC_BIT_RATE
            if size is not None:
                self._add_cover(size)
            ms = 1000 / self.rate
            self._out.set_chapters([
                {"id": n, "start": round(m.start * ms), "end": round(m.end * ms),
                 "time_base": _MS, "metadata": {"title": m.title}}
                for n, m in enumerate(self.marks, 1)])
        except BaseException:
            self._out.close()
            raise
        return self

    def _add_cover(self, size: tuple[int, int]) -> None:
        import av

        codec = COVER_CODECS[Path(self.cover).suffix.lower()]
        stream = self._out.add_stream(codec)
        stream.width, stream.height = size
        stream.pix_fmt = "yuvj420p" if codec == "mjpeg" else "rgb24"
        stream.disposition = av.stream.Disposition.attached_pic
        self._cover_stream = stream

    def write(self, block: np.ndarray) -> None:
        import av

        block = np.ascontiguousarray(block, np.float32).reshape(1, -1)
        for at in range(0, block.shape[1], FRAME_BLOCK):
            piece = block[:, at:at + FRAME_BLOCK]
            frame = av.AudioFrame.from_ndarray(piece, format="flt", layout="mono")
            frame.sample_rate, frame.pts = self.rate, self._pts
            self._pts += piece.shape[1]
            for packet in self._audio.encode(frame):
                self._out.mux(packet)

    def __exit__(self, kind, exc, tb) -> None:
        import av

        try:
            if kind is None:
                for packet in self._audio.encode(None):
                    self._out.mux(packet)
                if self.cover is not None:
                    packet = av.Packet(Path(self.cover).read_bytes())
                    packet.stream, packet.pts, packet.dts = self._cover_stream, 0, 0
                    packet.time_base = fractions.Fraction(1, 90_000)
                    self._out.mux(packet)
        finally:
            self._out.close()
