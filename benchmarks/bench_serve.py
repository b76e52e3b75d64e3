"""Eight requests at once to ``omnivoice-desktop serve`` against the same eight in turn.

The real server, started as its own process (``python -m studio serve``) on
127.0.0.1 with a full-size random checkpoint (or ``--checkpoint``) and an empty
data folder. Every request has the same settings (a designed voice, ``--steps``
steps, one text) and its own seed, so the renderer may put waiting ones in one
batch; each response's ``X-Batch-Size`` says the batch it was rendered in.

* sequential: ``--requests`` POSTs to ``/v1/audio/speech``, each sent when the
  previous one has answered;
* concurrent: the same requests sent at once from as many client threads.

Reported: requests/s and audio-seconds/s of each, the ratio concurrent/sequential,
the batch sizes the server formed, and each request's latency. One warm-up of
each kind first (allocator, kernels). Nothing here asserts on time.

Usage (from the repository root)::

    python benchmarks/bench_serve.py [--requests 8] [--steps 12] [--checkpoint DIR |
        --size tiny] [--precision auto] [--threads N] [--json-out serve.json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from bench_engine import machine_info  # noqa: E402
from bench_stream import cpu_flags  # noqa: E402

from studio.engine.random_checkpoint import build_random_checkpoint  # noqa: E402

TEXT = "Pick a reference clip, type what the voice should say, and press render."
INSTRUCT = "female, low pitch, british accent"
FIRST_SEED = 1000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(checkpoint: Path, data: Path, args) -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    env = dict(os.environ, OMNIVOICE_DESKTOP_DATA_DIR=str(data))
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
    stderr = data.parent / "serve-stderr.txt"
    # The queue holds every request, so none is refused with 429.
    command = [sys.executable, "-m", "studio", "serve", "--model", str(checkpoint),
               "--port", str(port), "--device", args.device, "--precision", args.precision,
               "--queue", str(2 * args.requests), "--batch", str(args.batch)]
    with open(stderr, "wb") as err:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                   stderr=err)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600  # a full-size checkpoint loads in well under this
    while time.monotonic() < deadline:
        if process.poll() is not None:  # the data folder goes with this run: say its log here
            log = data / "omnivoice-desktop.log"
            details = log.read_text()[-3000:] if log.is_file() else ""
            raise SystemExit(f"serve exited: {stderr.read_text()[-2000:]}\n{details}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url, stderr
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.terminate()
    raise SystemExit(f"serve did not come up: {stderr.read_text()[-2000:]}")


def post(url: str, steps: int, seed: int) -> dict:
    body = {"input": TEXT, "voice": INSTRUCT, "steps": steps, "seed": seed}
    start = time.perf_counter()
    with httpx.Client(timeout=3600) as client:
        response = client.post(f"{url}/v1/audio/speech", json=body)
    latency = time.perf_counter() - start
    if response.status_code != 200:
        raise SystemExit(f"request {seed} got {response.status_code}: {response.text[:300]}")
    return {"seed": seed, "latency_s": latency,
            "batch_size": int(response.headers["x-batch-size"]),
            "audio_s": float(response.headers["x-audio-duration-s"])}


def sequential(url: str, steps: int, seeds: list[int]) -> tuple[float, list[dict]]:
    start = time.perf_counter()
    rows = [post(url, steps, seed) for seed in seeds]
    return time.perf_counter() - start, rows


def concurrent(url: str, steps: int, seeds: list[int]) -> tuple[float, list[dict]]:
    with ThreadPoolExecutor(len(seeds)) as pool:
        start = time.perf_counter()
        rows = list(pool.map(lambda seed: post(url, steps, seed), seeds))
    return time.perf_counter() - start, rows


def summary(wall: float, rows: list[dict]) -> dict:
    audio = sum(r["audio_s"] for r in rows)
    sizes = Counter(r["batch_size"] for r in rows)
    # n requests answered with X-Batch-Size k came from n / k batches of k.
    batches = sorted((k for k, n in sizes.items() for _ in range(max(1, round(n / k)))),
                     reverse=True)
    latencies = [r["latency_s"] for r in rows]
    return {"wall_s": round(wall, 2), "requests_per_s": round(len(rows) / wall, 4),
            "audio_s": round(audio, 2), "audio_s_per_s": round(audio / wall, 4),
            "batches": batches, "latency_min_s": round(min(latencies), 2),
            "latency_median_s": round(statistics.median(latencies), 2),
            "latency_max_s": round(max(latencies), 2), "rows": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="a checkpoint folder (default: build one)")
    parser.add_argument("--size", default="full", choices=("tiny", "full"),
                        help="the random checkpoint to build when --checkpoint is not given")
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8, help="serve --batch (default 8)")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--threads", type=int, help="OMP_NUM_THREADS of the server")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    seeds = list(range(FIRST_SEED, FIRST_SEED + args.requests))

    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        checkpoint = args.checkpoint
        if checkpoint is None:
            print(f"building a {args.size} random checkpoint ...", file=sys.stderr, flush=True)
            checkpoint = build_random_checkpoint(Path(tmp) / "OmniVoice", args.size)
        # Before the server starts: the load is other work on this machine.
        machine = {**machine_info(), "cpu_flags": cpu_flags()}
        process, url, stderr = start_server(checkpoint, Path(tmp) / "data", args)
        try:
            print("serving; warming up ...", file=sys.stderr, flush=True)
            post(url, args.steps, 1)
            concurrent(url, args.steps, [s + 100 for s in seeds])
            print("sequential ...", file=sys.stderr, flush=True)
            one = summary(*sequential(url, args.steps, seeds))
            print("concurrent ...", file=sys.stderr, flush=True)
            many = summary(*concurrent(url, args.steps, seeds))
            health = httpx.get(f"{url}/health").json()
            machine["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        finally:
            process.terminate()
            process.wait(timeout=60)

    ratio = many["requests_per_s"] / one["requests_per_s"]
    result = {"machine": machine,
              "checkpoint": checkpoint.name if args.checkpoint else args.size,
              "device": args.device, "precision": args.precision, "steps": args.steps,
              "requests": args.requests, "serve_batch": args.batch, "model": health["model"],
              "sequential": one, "concurrent": many, "ratio": round(ratio, 2)}
    m = result["machine"]
    print(f"\n{args.requests} requests to serve, {result['checkpoint']} checkpoint, "
          f"{args.steps} steps, precision {args.precision}; {m['cpu']} ({m['cpu_flags']}), "
          f"{m['usable_cores']} cores, load average {m['loadavg_at_start'][0]} at the start, "
          f"{m['loadavg_at_end'][0]} at the end (the server's own work counts in the latter)")
    print(f"{'':12} {'wall s':>8} {'req/s':>8} {'audio s/s':>10} "
          f"{'latency min/med/max s':>22}  batches")
    for name, row in (("sequential", one), ("concurrent", many)):
        print(f"{name:12} {row['wall_s']:>8.1f} {row['requests_per_s']:>8.3f} "
              f"{row['audio_s_per_s']:>10.3f} {row['latency_min_s']:>8.1f} / "
              f"{row['latency_median_s']:.1f} / {row['latency_max_s']:<6.1f}  {row['batches']}")
    print(f"concurrent / sequential throughput: {ratio:.2f}x")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
