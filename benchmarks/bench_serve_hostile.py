"""Peak memory of ``omnivoice-desktop serve`` under the worst requests it allows (issue 26).

The real server (``python -m studio serve``, as bench_serve.py starts it) on a tiny
random checkpoint (or ``--checkpoint``), sent in turn, from the cheapest to the
costliest:

* ``1hz``: 2,000 samples declared at 1 Hz (once +1.8 GB; now a 422 from the header);
* ``flac_bomb``: a FLAC of 8 channels x 1,300 s of silence, about 84 KB (once 2.2 GB;
  now a 413 from the header);
* ``hidden_bomb``: the same with STREAMINFO's length zeroed, so only a bounded decode
  can refuse it, and ``hidden_bomb_x20``: twenty of those at once;
* ``largest_body_x20``: twenty 20 MB bodies at once (a ref_audio of random bytes with
  ``steps: 0``, refused once parsed): what bodies cost before the queue can refuse them;
* ``odd_rate``: a 3 s clip at 24,001 Hz (once 10 GB and 50 s; now renders);
* ``largest_clip``: the longest, densest clip the limits allow (60 s, 48 kHz, stereo,
  16-bit: an 11.5 MB file, a 15.4 MB body), which renders, and ``largest_clip_x20``:
  twenty of those at once (the queue holds 16, the rest get 429).

After each: the statuses, the wall time, and the server's VmRSS and VmHWM (peak RSS,
from /proc/PID/status; it only grows, so each row's growth is over everything before
it). Nothing is asserted; a JSON file goes to ``--json-out`` (default under
benchmarks/results/).

Usage (from the repository root)::

    python benchmarks/bench_serve_hostile.py [--checkpoint DIR | --size tiny]
        [--steps 4] [--threads N] [--cases 1hz,flac_bomb,...] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import httpx
import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import machine_info  # noqa: E402
from bench_serve import start_server  # noqa: E402
from bench_stream import cpu_flags  # noqa: E402

from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402
from studio.serve.intake import BODY_BUDGET_BYTES  # noqa: E402
from studio.serve.request import CLIP_LIMITS, MAX_BODY_BYTES, MAX_REF_AUDIO_BYTES  # noqa: E402

TEXT = "Pick a reference clip, type what the voice should say, and press render."


def wav_1hz() -> bytes:
    buf = io.BytesIO()
    sf.write(buf, np.zeros(2_000, np.int16), 1, format="WAV", subtype="PCM_16")
    return buf.getvalue()


def flac_bomb(hide_length: bool) -> bytes:
    buf = io.BytesIO()
    with sf.SoundFile(buf, "w", 8_000, 8, format="FLAC", subtype="PCM_16") as out:
        block = np.zeros((8_000 * 20, 8), np.float32)
        for _ in range(65):  # 1,300 s
            out.write(block)
    data = bytearray(buf.getvalue())
    if hide_length:  # STREAMINFO's 36-bit total samples = 0: "unknown"
        data[21] &= 0xF0
        data[22:26] = b"\0\0\0\0"
    return bytes(data)


def speech_like(seconds: float, rate: int, channels: int) -> bytes:
    """Voiced bursts with pauses, 16-bit WAV: silence trimming keeps most of it."""
    t = np.arange(int(seconds * rate)) / rate
    voiced = np.sin(2 * np.pi * np.cumsum(140 + 40 * np.sin(2 * np.pi * 0.7 * t)) / rate)
    noise = np.random.default_rng(0).standard_normal(t.size)
    wave = 0.2 * (voiced + 0.3 * noise) * (np.sin(2 * np.pi * 1.3 * t) > -0.3)
    buf = io.BytesIO()
    sf.write(buf, np.repeat(wave[:, None], channels, axis=1).astype(np.float32), rate,
             format="WAV", subtype="PCM_16")
    return buf.getvalue()


def status_kb(pid: int) -> dict:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields


def post(url: str, clip: bytes, steps: int) -> tuple[int, str]:
    uri = "data:audio/wav;base64," + base64.b64encode(clip).decode()
    body = {"input": TEXT, "steps": steps, "seed": 1, "ref_audio": uri,
            "ref_text": "A clip of speech for the benchmark."}
    with httpx.Client(timeout=3600) as client:
        response = client.post(f"{url}/v1/audio/speech", json=body)
    message = "" if response.status_code == 200 else response.json()["error"]["message"]
    return response.status_code, message


def run_case(url: str, pid: int, name: str, clip: bytes, steps: int, copies: int = 1) -> dict:
    start = time.perf_counter()
    # largest_body: refused (steps 0) only once parsed, so it costs its body and no render.
    steps = 0 if name.startswith("largest_body") else steps
    with ThreadPoolExecutor(copies) as pool:
        answers = list(pool.map(lambda _: post(url, clip, steps), range(copies)))
    wall = time.perf_counter() - start
    memory = status_kb(pid)
    health = httpx.get(f"{url}/health", timeout=30).json()["status"]
    row = {"case": name, "requests": copies, "clip_bytes": len(clip),
           "statuses": dict(Counter(code for code, _ in answers)),
           "message": next((m for _, m in answers if m and "busy" not in m), ""),
           "wall_s": round(wall, 2), "rss_mb": round(memory["VmRSS"] / 1024),
           "peak_mb": round(memory["VmHWM"] / 1024), "health": health}
    print(f"{name:18} x{copies:<3} {row['statuses']!s:24} {row['wall_s']:>7.2f} s  "
          f"RSS {row['rss_mb']:>5} MB  peak {row['peak_mb']:>5} MB  {row['message'][:70]}",
          flush=True)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="a checkpoint folder (default: build one)")
    parser.add_argument("--size", default="tiny", choices=("tiny", "full"))
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--queue", type=int, default=16, help="serve --queue (default 16)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--threads", type=int, help="OMP_NUM_THREADS of the server")
    parser.add_argument("--cases", help="comma-separated case names to run (default: all)")
    parser.add_argument("--json-out", type=Path, default=ROOT / "benchmarks" / "results" / (
        f"cpu-{date.today().isoformat()}-bench_serve_hostile.json"))
    args = parser.parse_args(argv)
    # bench_serve's start_server: queue = 2 x requests.
    server_args = argparse.Namespace(threads=args.threads, device=args.device,
                                     precision=args.precision, requests=args.queue // 2,
                                     batch=8)
    cases = [("1hz", wav_1hz(), 1), ("flac_bomb", flac_bomb(False), 1),
             ("hidden_bomb", flac_bomb(True), 1), ("hidden_bomb_x20", flac_bomb(True), 20),
             ("largest_body_x20", None, 20), ("odd_rate", None, 1), ("largest_clip", None, 1),
             ("largest_clip_x20", None, 20)]
    if args.cases:
        cases = [case for case in cases if case[0] in args.cases.split(",")]
    odd = io.BytesIO()
    wave, _ = sf.read(io.BytesIO(speech_like(3, 24_000, 1)), dtype="float32")
    sf.write(odd, wave, 24_001, format="WAV", subtype="PCM_16")
    largest = speech_like(60, 48_000, 2)
    body = np.random.default_rng(0).bytes(15 * 2**20)  # a 20 MB body: near the limit
    clips = {"odd_rate": odd.getvalue(), "largest_clip": largest, "largest_clip_x20": largest,
             "largest_body_x20": body}

    with tempfile.TemporaryDirectory(prefix="bench-serve-hostile-") as tmp:
        checkpoint = args.checkpoint
        if checkpoint is None:
            print(f"building a {args.size} random checkpoint ...", file=sys.stderr, flush=True)
            checkpoint = build_random_checkpoint(Path(tmp) / "OmniVoice", args.size)
        machine = {**machine_info(), "cpu_flags": cpu_flags()}
        process, url, _ = start_server(checkpoint, Path(tmp) / "data", server_args)
        try:
            started = status_kb(process.pid)
            warm = run_case(url, process.pid, "warm_up (3 s clip)", speech_like(3, 24_000, 1),
                            args.steps)
            rows = [run_case(url, process.pid, name, clip or clips[name], args.steps, copies)
                    for name, clip, copies in cases]
            machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        finally:
            process.terminate()
            process.wait(timeout=60)

    baseline = warm["peak_mb"]
    result = {"machine": machine, "checkpoint": checkpoint.name if args.checkpoint else args.size,
              "steps": args.steps, "queue": args.queue,
              "rss_after_start_mb": round(started["VmRSS"] / 1024),
              "peak_after_warm_up_mb": baseline, "warm_up": warm, "cases": rows,
              "peak_growth_over_warm_up_mb": rows[-1]["peak_mb"] - baseline,
              "limits": {"clip_s": CLIP_LIMITS.max_seconds,
                         "rates_hz": [CLIP_LIMITS.min_rate, CLIP_LIMITS.max_rate],
                         "channels": CLIP_LIMITS.max_channels,
                         "clip_samples": CLIP_LIMITS.max_samples,
                         "ref_audio_bytes": MAX_REF_AUDIO_BYTES, "body_bytes": MAX_BODY_BYTES,
                         "bodies_in_flight_bytes": BODY_BUDGET_BYTES}}
    m = machine
    print(f"\n{m['cpu']} ({m['cpu_flags']}), {m['usable_cores']} cores; RSS after start "
          f"{result['rss_after_start_mb']} MB, peak after one warm-up render {baseline} MB, "
          f"peak at the end {rows[-1]['peak_mb']} MB "
          f"(+{result['peak_growth_over_warm_up_mb']} MB)")
    args.json_out.parent.mkdir(parents=True, exist_ok=True)
    args.json_out.write_text(json.dumps(result, indent=2))
    print(f"saved {args.json_out}")


if __name__ == "__main__":
    main()
