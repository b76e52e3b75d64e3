"""Downloading a model repo from the Hugging Face hub with byte progress, a cancel and resume.

Qt-free and torch-free. The real ``huggingface_hub`` client finds the repo's commit and
files (``HF_ENDPOINT``, tokens and proxies as it does for everything else) and its HTTP
session fetches them, one after another, into a plain checkpoint folder. A file still
arriving is ``name.part``: a dropped connection resumes it at once with a Range request,
and a cancel, a quit or a crash leave it for the next download to resume. (The client's
own ``hf_hub_download`` deletes a partial file on any error since huggingface_hub 1.x,
so it cannot resume across a restart.) A cancel is a ``threading.Event`` checked
before each chunk is written.
"""

from __future__ import annotations

import errno
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from studio.errors import UserError

log = logging.getLogger(__name__)

DOWNLOAD_SIZE = "about 3 GB"  # k2-fsa/OmniVoice: the weights, tokenizer and codec together
LICENSE_NOTICE = (
    "The OmniVoice weights (k2-fsa/OmniVoice) are released under CC BY-NC 4.0: "
    "non-commercial use only, with attribution.\n"
    "The bundled audio codec (HiggsAudioV2 tokenizer, by Boson AI) is under its own "
    "Boson Higgs Audio community license.\n"
    "Read both on the model page before you use the audio you make."
)

NO_ROOM = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


class DownloadCancelled(UserError):
    """The user stopped the download; what arrived is kept and resumes next time."""


@dataclass(frozen=True)
class DownloadProgress:
    done: int  # bytes on disk of the repo's files, resumed parts included
    total: int | None  # the repo's size, once known
    bytes_per_second: float | None  # over the last few seconds; None until measured

    @property
    def seconds_left(self) -> float | None:
        if not self.total or not self.bytes_per_second:
            return None
        return max(0.0, (self.total - self.done) / self.bytes_per_second)


def format_bytes(count: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{int(count)} B"


def describe_progress(progress) -> str:
    """"1.2 GB of 3.1 GB · 8.4 MB/s · 4 min left" from a DownloadProgress."""
    parts = [format_bytes(progress.done) + (f" of {format_bytes(progress.total)}"
                                            if progress.total else "")]
    if progress.bytes_per_second:
        parts.append(f"{format_bytes(progress.bytes_per_second)}/s")
    left = progress.seconds_left
    if left is not None:
        parts.append(f"{max(1, round(left))} s left" if left < 90 else
                     f"{round(left / 60)} min left")
    return " · ".join(parts)


class _Rate:
    """Bytes per second over a sliding window, from (time, bytes) samples."""

    def __init__(self, clock: Callable[[], float], window: float = 5.0):
        self._clock = clock
        self._window = window
        self._samples: list[tuple[float, int]] = []

    def add(self, received: int) -> float | None:
        now = self._clock()
        self._samples.append((now, received))
        while len(self._samples) > 2 and now - self._samples[0][0] > self._window:
            self._samples.pop(0)
        first_time, first_bytes = self._samples[0]
        if now - first_time < 0.2:
            return None
        return (received - first_bytes) / (now - first_time)


def _sentence(repo: str, exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in NO_ROOM:
        return (f"There is no room left on the disk for {repo}; free some space and download "
                "again: it resumes where it stopped.")
    from huggingface_hub.errors import OfflineModeIsEnabled

    if isinstance(exc, OfflineModeIsEnabled):  # HF_HUB_OFFLINE: no request was even made
        return (f"Cannot download {repo}: Hugging Face offline mode is on (HF_HUB_OFFLINE is "
                "set); unset HF_HUB_OFFLINE, restart the studio and download again, or choose "
                "a model folder in Settings.")
    return (f"Cannot download {repo} from the Hugging Face hub; check your connection and "
            "download again: it resumes where it stopped.")


def download_repo(repo: str, target: Path, *,
                  on_progress: Callable[[DownloadProgress], None] | None = None,
                  cancel: threading.Event | None = None,
                  clock: Callable[[], float] = time.monotonic, every: float = 0.1) -> Path:
    """Fetch ``repo`` into the folder ``target`` and return it.

    ``on_progress`` is called from this thread as bytes arrive (at most every ``every`` s);
    ``cancel`` stops the download with :class:`DownloadCancelled`. Every other failure
    is a :class:`UserError` of one sentence (no room on the disk, no connection)."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    cancel = cancel or threading.Event()
    progress = _Progress(on_progress, cancel, clock, every, repo)
    try:
        api = HfApi()
        commit = api.repo_info(repo).sha
        files = _wanted([(f.path, f.size) for f in api.list_repo_tree(repo, recursive=True,
                                                                       revision=commit)
                         if getattr(f, "size", None) is not None])
        progress.total = sum(size for _name, size in files) or None
        for name, size in files:
            progress.finished += min(size, _on_disk(target, name))
        progress.report(force=True)
        (target / COMPLETE).unlink(missing_ok=True)
        for name, size in files:
            _fetch(api, repo, commit, name, size, target, progress)
        progress.report(force=True)
        (target / COMPLETE).write_text(commit or "", encoding="utf-8")
        return target
    except UserError:
        raise
    except (RepositoryNotFoundError, RevisionNotFoundError, GatedRepoError):
        raise UserError(f"There is no model {repo} on the Hugging Face hub that this computer "
                        "may download; check the model name in Settings.") from None
    except (HfHubHTTPError, OSError) as exc:
        log.info("download of %s failed: %r", repo, exc)
        raise UserError(_sentence(repo, exc)) from None
    except Exception as exc:  # the HTTP client's own errors and anything else
        log.warning("download of %s failed", repo, exc_info=True)
        raise UserError(_sentence(repo, exc)) from None


PART = ".part"  # a file still arriving; the next download resumes it with a Range request
COMPLETE = ".download-complete"  # written last: every file of the repo arrived whole


def download_folder(repo: str) -> Path:
    """Where the studio downloads ``repo``: a plain checkpoint folder in the data folder."""
    from studio.paths import data_dir

    return data_dir() / "models" / repo.replace("/", "--")


def arrived_bytes(repo: str) -> int:
    """Bytes of an unfinished download of ``repo`` kept on disk (0 when none)."""
    folder = download_folder(repo)
    if not folder.is_dir() or (folder / COMPLETE).is_file():
        return 0
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def downloaded_folder(repo: str) -> Path | None:
    """The download of ``repo`` when it is whole (no file still arriving), else None."""
    folder = download_folder(repo)
    return folder if (folder / COMPLETE).is_file() else None
RETRIES = 5  # a dropped connection resumes this many times before the download gives up


# Other frameworks' copies of the same weights, which the studio never reads.
SKIPPED = ("*.msgpack", "*.h5", "*.onnx", "*.onnx_data", "*.ot", "*.tflite", "*.mlmodel",
           "flax_model*", "tf_model*", "rust_model*", "onnx/*", "coreml/*")


def _wanted(files: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The repo's files the studio loads: PyTorch .bin weights only without safetensors."""
    from fnmatch import fnmatch

    kept = [(n, s) for n, s in files if not any(fnmatch(n, p) for p in SKIPPED)]
    if any(n.endswith(".safetensors") for n, _s in kept):
        kept = [(n, s) for n, s in kept if not fnmatch(n.rsplit("/", 1)[-1], "pytorch_model*.bin")]
    return kept


def _on_disk(target: Path, name: str) -> int:
    """Bytes of ``name`` already in ``target``: the whole file, or the part that arrived."""
    for path in (target / name, target / (name + PART)):
        if path.is_file():
            return path.stat().st_size
    return 0


class _Progress:
    def __init__(self, on_progress, cancel, clock, every: float, repo: str):
        self._on_progress, self._cancel, self._clock, self._every = on_progress, cancel, clock, every
        self._repo = repo
        self._rate = _Rate(clock)
        self._last = float("-inf")
        self.total: int | None = None
        self.finished = 0  # bytes on disk, the file arriving included

    def add(self, count: int) -> None:
        self.finished += count
        self.report()

    def report(self, force: bool = False) -> None:
        if self._cancel.is_set():
            raise DownloadCancelled(f"The download of {self._repo} was cancelled; what arrived "
                                    "is kept and the next download resumes from there.")
        now = self._clock()
        if self._on_progress is None or (not force and now - self._last < self._every):
            return
        self._last = now
        self._on_progress(DownloadProgress(self.finished, self.total, self._rate.add(self.finished)))


def _fetch(api, repo: str, commit: str, name: str, size: int, target: Path,
           progress: _Progress) -> None:
    """One file into ``target``, resumed from its ``.part``; renamed when whole."""
    from huggingface_hub import constants, hf_hub_url
    from huggingface_hub.errors import HfHubHTTPError
    from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status

    final = target / name
    if final.is_file() and final.stat().st_size == size:
        return
    part = target / (name + PART)
    part.parent.mkdir(parents=True, exist_ok=True)
    url = hf_hub_url(repo, name, revision=commit)
    tries = RETRIES
    while True:
        have = part.stat().st_size if part.is_file() else 0
        if have >= size:
            break
        headers = build_hf_headers()
        if have:
            headers["Range"] = f"bytes={have}-"
        try:
            with get_session().stream("GET", url, headers=headers, follow_redirects=True,
                                      timeout=constants.HF_HUB_DOWNLOAD_TIMEOUT) as response:
                hf_raise_for_status(response)
                mode = "ab"
                if have and response.status_code == 200:  # the server ignored the Range
                    progress.finished -= have
                    mode = "wb"
                with part.open(mode) as out:
                    # As the bytes arrive (no 10 MB buffering): a cancel or a dropped
                    # connection keeps everything that came.
                    for chunk in response.iter_bytes():
                        progress.report()  # a cancel stops before the next chunk is written
                        out.write(chunk)
                        progress.add(len(chunk))
        except (UserError, HfHubHTTPError):
            raise
        except OSError as exc:
            if exc.errno in NO_ROOM:
                raise
            tries = _retry(tries, name, exc)
        except Exception as exc:  # a dropped or timed-out connection: resume from what arrived
            tries = _retry(tries, name, exc)
    if part.stat().st_size != size:
        part.unlink()  # longer than the file: not this file; the next try starts over
        raise UserError(f"The download of {repo} gave a damaged {name}; download again.")
    part.replace(final)


def _retry(tries: int, name: str, exc: Exception) -> int:
    if tries <= 0:
        raise exc
    log.info("the connection dropped while downloading %s (%r); resuming", name, exc)
    time.sleep(0.5)
    return tries - 1
