"""The remote client's peak memory and time against the worst answers a server can send.

Each case runs in a fresh process (so its peak RSS is its own) against a hostile
server on 127.0.0.1 (tests/serve/hostile.py) that offers far more than the client's
bounds. The text is the longest one allowed (``MAX_TEXT_CHARS``), so the audio bound
is the largest there is (``MAX_AUDIO_S``, 30 minutes): these are the worst peaks any
server can cause. Reported per case: the sentence the client ended with, the seconds
it took, the bytes the server got rid of, and the peak RSS above the process's
baseline (imports done, before the request). Nothing here asserts.

Usage (from the repository root)::

    python benchmarks/bench_remote_client.py [--json-out remote_client.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

MB = 1024 * 1024
OFFER = 1024 * MB  # what an endless answer sends before giving up

CASES = ("huge-content-length", "endless-wav", "endless-stream", "endless-models",
         "endless-error", "trickle-headers-timeout-5", "longest-wav", "longest-stream",
         "endless-events", "endless-event-line", "longest-events", "longest-one-event")


def _wav_header(rate: int, frames: int) -> bytes:
    """A 16-bit mono WAV header for ``frames`` samples."""
    import struct

    size = frames * 2
    return (b"RIFF" + struct.pack("<I", 36 + size) + b"WAVEfmt " +
            struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16) + b"data" +
            struct.pack("<I", size))


def _handlers(case: str):
    from tests.serve.hostile import response

    def endless(kind: str):
        def speech(send):
            send(response("200 OK", {"content-type": kind, "transfer-encoding": "chunked"}))
            send.chunks(b"\1\0" * 32768, OFFER)
        return speech

    def huge(send):
        send(response("200 OK", {"content-type": "audio/wav",
                                 "content-length": str(10 * 1024**3)}))
        while send.server.sent < OFFER and send(b"\0" * 65536):
            pass

    def models(send):
        send(response("200 OK", {"content-type": "application/json",
                                 "transfer-encoding": "chunked"}))
        send.chunks(b" " * 65536, OFFER)

    def error(send):
        send(response("500 Internal Server Error", {"content-type": "text/plain",
                                                     "transfer-encoding": "chunked"}))
        send.chunks(b"x" * 65536, OFFER)

    def trickle(send):
        send.trickle(b"HTTP/1.1 200 OK\r\n" * 100, 1.0)

    def longest(stream: bool):
        """The most audio the bounds let through: 30 min at 48 kHz (a WAV), or at
        24 kHz (a PCM stream), 16-bit."""
        from studio.remote.answers import MAX_AUDIO_S, MAX_SAMPLES_PER_S

        rate = 24_000 if stream else MAX_SAMPLES_PER_S
        frames = int(MAX_AUDIO_S * rate)
        head = b"" if stream else _wav_header(rate, frames)

        def speech(send):
            send(response("200 OK", {"content-type": "audio/pcm" if stream else "audio/wav",
                                     "content-length": str(len(head) + frames * 2)}) + head)
            left, piece = frames * 2, b"\1\0" * 32768
            while left > 0 and send(piece[:left]):
                left -= len(piece)
        return speech

    def events(endless: bool, one: bool = False):
        """Server-sent speech events (vLLM-Omni's ``stream: true``): endless deltas, or
        the most audio the bounds let through (30 min at 24 kHz, 16-bit) in deltas of
        64 KB, or in one event as a server sending the whole take at once would."""
        import base64

        from studio.remote.answers import MAX_AUDIO_S
        from studio.sound.stream_out import SSE_DELTA, SSE_DONE, SSE_MEDIA_TYPE

        def event(pcm: bytes) -> bytes:
            data = json.dumps({"type": SSE_DELTA, "response_format": "pcm",
                               "audio": base64.b64encode(pcm).decode()})
            return f"event: {SSE_DELTA}\ndata: {data}\n\n".encode()

        def speech(send):
            send(response("200 OK", {"content-type": SSE_MEDIA_TYPE,
                                     "transfer-encoding": "chunked"}))
            if endless:
                send.chunks(event(b"\1\0" * 32768), OFFER)
                return
            frames = int(MAX_AUDIO_S * 24_000) - 24_000  # a second under the bound
            pieces = [event(b"\1\0" * frames)] if one else [event(b"\1\0" * 32768)] * (
                frames // 32768)
            pieces.append(f"data: {json.dumps({'type': SSE_DONE})}\n\n".encode())
            for piece in pieces:
                for at in range(0, len(piece), 1 << 20):
                    part = piece[at:at + (1 << 20)]
                    if not send(b"%x\r\n%s\r\n" % (len(part), part)):
                        return
            send(b"0\r\n\r\n")
        return speech

    def event_line(send):
        send(response("200 OK", {"content-type": "text/event-stream",
                                 "transfer-encoding": "chunked"}))
        send.chunks(b"data: " + b"A" * 65530, OFFER)

    return {"longest-wav": (longest(False), None), "longest-stream": (longest(True), None),
            "endless-events": (events(True), None), "endless-event-line": (event_line, None),
            "longest-events": (events(False), None),
            "longest-one-event": (events(False, one=True), None),
            "huge-content-length": (huge, None), "endless-wav": (endless("audio/wav"), None),
            "endless-stream": (endless("audio/pcm"), None), "endless-models": (None, models),
            "endless-error": (error, None), "trickle-headers-timeout-5": (trickle, None)}[case]


def _rss_mb() -> float:
    """The process's peak RSS (VmHWM: unlike ru_maxrss, not inherited across exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_case(case: str) -> dict:
    from studio.engine.options import MAX_TEXT_CHARS
    from studio.errors import UserError
    from studio.remote.client import RemoteBackend
    from studio.remote.dialects import RemoteRequest
    from tests.serve.hostile import HostileServer

    speech, probe = _handlers(case)
    server = HostileServer(speech, probe) if probe else HostileServer(speech)
    text = ("word " * MAX_TEXT_CHARS)[:MAX_TEXT_CHARS]
    baseline = _rss_mb()
    started = time.perf_counter()
    outcome = "returned audio"
    try:
        timeout = 5 if case.startswith("trickle") else 600
        with RemoteBackend(server.url, timeout=timeout) as remote:
            remote.render(RemoteRequest(text=text, stream=case.endswith(("stream", "event",
                                                                         "events"))),
                          on_chunk=lambda samples, rate: None)
    except UserError as exc:
        outcome = str(exc)
    seconds = time.perf_counter() - started
    server.close()
    return {"case": case, "seconds": round(seconds, 2), "server_sent_mb": round(server.sent / MB, 1),
            "peak_rss_above_baseline_mb": round(_rss_mb() - baseline, 1),
            "baseline_rss_mb": round(baseline, 1), "outcome": outcome}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=CASES, help=argparse.SUPPRESS)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case)))
        return
    from bench_stream import cpu_flags

    from studio.remote import answers

    results = []
    for case in CASES:
        done = subprocess.run([sys.executable, __file__, "--case", case], capture_output=True,
                              text=True, timeout=600, cwd=ROOT)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(result)
        print(f"{case:28s} {result['seconds']:7.2f} s  sent {result['server_sent_mb']:7.1f} MB  "
              f"peak +{result['peak_rss_above_baseline_mb']:7.1f} MB  {result['outcome'][:90]}")
    report = {"cpu_flags": cpu_flags(), "offer_mb": OFFER // MB,
              "bounds": {"max_audio_s": answers.MAX_AUDIO_S,
                         "max_audio_bytes": answers.audio_byte_limit(answers.MAX_AUDIO_S),
                         "max_json_bytes": answers.MAX_JSON_BYTES,
                         "max_error_bytes": answers.MAX_ERROR_BYTES},
              "cases": results}
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
