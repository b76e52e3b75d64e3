"""Loopback speed of the model download (studio.engine.hub_download) against the test hub
server (tests/engine/hub_server.py): the real huggingface_hub client in a child process,
bytes written as they arrive with a cancel check and a throttled progress callback per
chunk. It shows that the studio's own loop is not what limits a download: compare with
the same bytes read by plain httpx from the same server into a file.

Usage (from the repository root)::

    python benchmarks/bench_download.py [--megabytes 300]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "engine"))

from hub_server import HubServer

CHILD = """
import json, sys, time
from pathlib import Path
from studio.engine.hub_download import download_repo
calls = []
started = time.perf_counter()
download_repo("k2-fsa/OmniVoice", Path(sys.argv[1]), on_progress=calls.append)
studio = time.perf_counter() - started
import httpx
started = time.perf_counter()
size = 0
with httpx.stream("GET", sys.argv[2]) as response, open(sys.argv[1] + ".plain", "wb") as out:
    for chunk in response.iter_bytes():
        out.write(chunk)
        size += len(chunk)
plain = time.perf_counter() - started
print(json.dumps({"studio_s": studio, "plain_httpx_s": plain, "bytes": size,
                  "progress_calls": len(calls)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        repo = Path(scratch) / "repo"
        repo.mkdir()
        (repo / "config.json").write_text("{}")
        with open(repo / "model.safetensors", "wb") as out:
            for _ in range(args.megabytes):
                out.write(os.urandom(1 << 20))
        with HubServer("k2-fsa/OmniVoice", repo) as hub:
            env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(Path(scratch) / "hf"),
                       HF_HUB_OFFLINE="0", HF_HUB_DISABLE_TELEMETRY="1")
            url = f"{hub.url}/k2-fsa/OmniVoice/resolve/main/model.safetensors"
            done = subprocess.run([sys.executable, "-c", CHILD, str(Path(scratch) / "out"), url],
                                  env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    mb = result["bytes"] / 1e6
    result["studio_MB_per_s"] = round(mb / result["studio_s"], 1)
    result["plain_httpx_MB_per_s"] = round(mb / result["plain_httpx_s"], 1)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
