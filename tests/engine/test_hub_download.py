"""The model download against a local server that speaks the hub's file routes, with the
real huggingface_hub client: progress, cancel and resume, a dropped connection, a full disk.

Each download runs in a child process: HF_ENDPOINT is read when huggingface_hub is
imported, and the full disk is a file-size limit (RLIMIT_FSIZE) set in the child only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hub_server import HubServer

REPO = "k2-fsa/OmniVoice"
WEIGHTS = "model.safetensors"
CODEC = "audio_tokenizer/model.safetensors"  # the first file past 500 kB

CHILD = textwrap.dedent('''
    import json, resource, signal, sys, threading
    from pathlib import Path
    from studio.errors import UserError
    from studio.engine.hub_download import download_repo

    args = json.loads(sys.argv[1])
    if args.get("fsize"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (args["fsize"], args["fsize"]))
    cancel = threading.Event()
    seen = []

    def progress(p):
        seen.append([p.done, p.total])
        if args.get("cancel_at") and p.done >= args["cancel_at"]:
            cancel.set()

    try:
        path = download_repo(args["repo"], Path(args["target"]), on_progress=progress,
                             cancel=cancel, every=0)
        outcome = {"path": str(path)}
    except UserError as exc:
        outcome = {"error": str(exc), "kind": type(exc).__name__}
    outcome["seen"] = seen
    print("RESULT " + json.dumps(outcome))
''')


def download(hub: HubServer, home: Path, **args) -> dict:
    args.setdefault("target", str(home / "models" / "OmniVoice"))
    env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(home), HF_HUB_DISABLE_TELEMETRY="1",
               HF_HUB_OFFLINE="0", HF_HUB_ETAG_TIMEOUT="5", HF_HUB_DOWNLOAD_TIMEOUT="10")
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps({"repo": REPO, **args})],
                          env=env, capture_output=True, text=True, timeout=180)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, f"the download process ended without a result:\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def parts(home: Path) -> list[Path]:
    return sorted((home / "models" / "OmniVoice").rglob("*.part"))


def assert_same_files(snapshot: Path, source: Path) -> None:
    for name in ("config.json", WEIGHTS, "audio_tokenizer/model.safetensors"):
        assert (snapshot / name).read_bytes() == (source / name).read_bytes(), name


@pytest.fixture
def hub(tiny_checkpoint):
    with HubServer(REPO, tiny_checkpoint) as server:
        yield server


def test_download_reports_bytes_against_the_repos_size_and_loads(hub, tiny_checkpoint, tmp_path):
    result = download(hub, tmp_path / "hf")
    snapshot = Path(result["path"])
    assert snapshot == tmp_path / "hf" / "models" / "OmniVoice"
    assert_same_files(snapshot, tiny_checkpoint)
    total = hub.total_bytes()
    seen = result["seen"]
    assert all(t == total for _done, t in seen if t is not None)
    assert seen[-1] == [total, total]
    dones = [d for d, _t in seen]
    assert dones == sorted(dones) and len(set(dones)) >= 3  # it moved, never backwards
    from studio.engine.checkpoint import inspect_checkpoint

    assert inspect_checkpoint(snapshot).sample_rate == 24000


def test_cancel_keeps_what_arrived_and_the_next_download_resumes_it(hub, tiny_checkpoint,
                                                                     tmp_path):
    home = tmp_path / "hf"
    weights = (tiny_checkpoint / WEIGHTS).stat().st_size
    first = download(hub, home, cancel_at=hub.total_bytes() - weights + 200_000)
    assert first["kind"] == "DownloadCancelled", first
    assert "cancelled" in first["error"] and "resumes" in first["error"]
    partial = parts(home)
    assert [p.name for p in partial] == [WEIGHTS + ".part"]
    assert len(partial) == 1 and 0 < partial[0].stat().st_size < weights
    kept = partial[0].stat().st_size

    second = download(hub, home)
    assert "path" in second, second
    assert_same_files(Path(second["path"]), tiny_checkpoint)
    assert hub.ranges(WEIGHTS)[-1] == f"bytes={kept}-"  # resumed, not started over
    assert not parts(home)


def test_a_dropped_connection_resumes_within_the_same_download(hub, tiny_checkpoint, tmp_path):
    hub.drop_after[WEIGHTS] = 300_000
    result = download(hub, tmp_path / "hf")
    assert "path" in result, result
    assert_same_files(Path(result["path"]), tiny_checkpoint)
    ranges = hub.ranges(WEIGHTS)
    assert len(ranges) == 2 and ranges[0] is None and ranges[1].startswith("bytes=")
    assert int(ranges[1][6:-1]) >= 300_000 - 64 * 1024


def test_a_full_disk_is_one_sentence_and_the_next_download_resumes(hub, tiny_checkpoint,
                                                                  tmp_path):
    home = tmp_path / "hf"
    first = download(hub, home, fsize=500_000)  # every file may grow to 500 kB, no further
    assert first.get("kind") == "UserError", first
    assert first["error"].startswith("There is no room left on the disk for k2-fsa/OmniVoice;")
    assert "Traceback" not in first["error"] and "OSError" not in first["error"]
    second = download(hub, home)
    assert "path" in second, second
    assert_same_files(Path(second["path"]), tiny_checkpoint)
    assert hub.ranges(CODEC)[-1] == "bytes=500000-"


def test_an_unknown_repo_is_one_sentence(hub, tmp_path):
    hub.repo = "someone/else"  # the server now knows only another repo
    result = download(hub, tmp_path / "hf")
    assert result.get("kind") == "UserError", result
    assert result["error"].startswith("There is no model k2-fsa/OmniVoice on the Hugging Face hub")


def test_the_cli_download_is_the_same_download_and_the_model_is_found(hub, tiny_checkpoint,
                                                                      tmp_path):
    env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf"),
               HF_HUB_OFFLINE="0", HF_HUB_DISABLE_TELEMETRY="1",
               OMNIVOICE_DESKTOP_DATA_DIR=str(tmp_path / "data"))
    done = subprocess.run([sys.executable, "-m", "studio", "download"], env=env,
                          capture_output=True, text=True, timeout=180)
    folder = tmp_path / "data" / "models" / "k2-fsa--OmniVoice"
    assert done.returncode == 0, done.stderr[-2000:]
    assert "CC BY-NC 4.0" in done.stderr and f"Done: {folder}" in done.stderr
    assert_same_files(folder, tiny_checkpoint)
    env["HF_HUB_OFFLINE"] = "1"  # found offline, where the studio's load looks
    found = subprocess.run([sys.executable, "-c", "from studio.engine.checkpoint import "
                            "resolve_checkpoint; print(resolve_checkpoint('k2-fsa/OmniVoice'))"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert found.stdout.strip() == str(folder), found.stderr[-2000:]
