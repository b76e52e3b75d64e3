"""The voice prompt cache: an in-memory LRU over a folder of prompt files.

Encoding a reference clip (and transcribing it when no transcript is given) is
the slow first step of every clone. This module keeps the result, so a voice
used before starts generating at once, in a new process too.

Keys (:func:`prompt_key`) are content based: the sha256 of the reference audio,
the transcript (or the auto-transcription marker), the preprocess flag, the
identity of the audio codec (its ``config.json`` bytes and the sha256 of its
weights) and the prompt format and cache schema versions. A renamed or moved
copy of a clip hits; another codec never reuses tokens. Change
``CACHE_SCHEMA`` whenever the way a clip becomes a prompt changes (trimming,
loudness, punctuation), so old entries stop matching. A cleaned reference
(:mod:`studio.service.cleanup`) is a file of its own whose bytes carry the cleanup's
steps and versions, so it keys like any clip: cleaned again the same way it hits.

Files: ``<folder>/<key>.pt``, a format-v1 prompt dict (so it also loads in
``omnivoice.VoiceClonePrompt``) plus the plain fields ``cache_key`` and
``auto_transcript``. Writes are atomic (a unique temp file beside the target,
flushed, then ``os.replace``), so threads and processes writing one key at
once leave one complete file. Last use is the file's mtime, touched on every
hit, so pruning needs no shared index. Loading is ``weights_only``; a file that
is corrupt, truncated, carries code, or does not belong to its key is logged,
deleted and treated as a miss.

Reference files are hashed through :class:`studio.engine.file_hashes.FileHasher`,
which memoises digests in ``<folder>/hashes.sqlite``, so an unchanged file (the 0.8 GB
codec weights included) is read once per version.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Mapping
from pathlib import Path

import numpy as np
import torch

from studio.atomic import atomic_write
from studio.engine.file_hashes import FileHasher
from studio.engine.prompt import FORMAT_VERSION, VoicePrompt
from studio.errors import UserError
from studio.switches import parse_switch

log = logging.getLogger(__name__)

CACHE_SCHEMA = 1  # bump when the way a clip becomes a prompt changes
CACHE_FOLDER = "prompt_cache"
DISK_CACHE_ENV = "OMNIVOICE_PROMPT_DISK_CACHE"
DEFAULT_MEMORY_ITEMS = 8
DEFAULT_DISK_ITEMS = 32
STALE_TEMP_S = 3600.0  # a temp file this old belongs to a writer that died

_KEY = re.compile(r"[0-9a-f]{64}")
_SUFFIX = ".pt"
_TEMP = re.compile(r"\.[0-9a-f]{64}\.pt\.[0-9a-f]+\.tmp")  # atomic_write's temp names


# ---------------------------------------------------------------------------
# The on/off switch (shared with the settings module)
# ---------------------------------------------------------------------------


def disk_cache_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether ``OMNIVOICE_PROMPT_DISK_CACHE`` leaves the disk layer on (unset or empty: on)."""
    value = (os.environ if env is None else env).get(DISK_CACHE_ENV)
    if value is None or not value.strip():
        return True
    return parse_switch(value, DISK_CACHE_ENV)


def default_cache_folder() -> Path:
    from studio.paths import data_dir

    return data_dir() / CACHE_FOLDER


# ---------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------


def prompt_key(
    audio_sha256: str, transcript: str | None, preprocess: bool, codec_identity: str
) -> str:
    """The cache key (64 hex digits) of one way to turn one clip into a prompt.

    ``transcript=None`` is the auto-transcription marker: the transcript comes
    from the ASR pass and is stored with the prompt.
    """
    fields = {
        "schema": CACHE_SCHEMA,
        "prompt_format": FORMAT_VERSION,
        "audio": audio_sha256,
        "auto_transcript": transcript is None,
        "transcript": transcript,
        "preprocess": bool(preprocess),
        "codec": codec_identity,
    }
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def waveform_sha256(waveform: np.ndarray, sample_rate: int) -> str:
    """Content hash of in-memory audio (a microphone take): float32 samples, shape and rate."""
    samples = np.ascontiguousarray(np.asarray(waveform, dtype=np.float32)).astype("<f4", copy=False)
    header = {"kind": "waveform", "shape": list(samples.shape), "sample_rate": int(sample_rate)}
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode("utf-8") + b"\0")
    digest.update(samples.tobytes())
    return digest.hexdigest()


def codec_identity(codec_dir: Path, hasher: FileHasher, content: bool = True) -> str:
    """Identity of the audio codec in ``codec_dir``: its config bytes and its weights.

    With ``content`` (needed for anything on disk) the weights count by their
    sha256, memoised by ``hasher``. Without it they count by path, size, mtime
    and inode: enough within one process (a memory-only cache), and free.
    """
    config_path, weights_path = codec_dir / "config.json", codec_dir / "model.safetensors"
    try:
        config = hashlib.sha256(config_path.read_bytes()).hexdigest()
        if content:
            weights: object = hasher.file_sha256(weights_path)
        else:
            st = weights_path.stat()
            weights = [str(weights_path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino]
    except OSError as exc:
        raise UserError(
            f"The audio codec files in {codec_dir} cannot be read ({exc.strerror or exc}); "
            "download the checkpoint again."
        ) from None
    blob = json.dumps({"config": config, "weights": weights}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------


class _BadEntry(Exception):
    """A cache file that must not be used; the message is the reason, for the log."""


def _check_key(key: str) -> None:
    # The key becomes a file name: only ever 64 lowercase hex digits.
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"not a prompt cache key: {key!r}")


class PromptCache:
    """An LRU of ``memory_items`` prompts in memory over ``disk_items`` files in ``folder``.

    ``folder=None`` turns the disk layer off (the memory layer stays). The
    memory layer is guarded by a lock; the disk layer is safe across threads
    and processes by construction (atomic renames, mtimes as last use).
    """

    def __init__(
        self,
        folder: str | os.PathLike | None,
        memory_items: int = DEFAULT_MEMORY_ITEMS,
        disk_items: int = DEFAULT_DISK_ITEMS,
    ):
        if memory_items < 0 or disk_items < 0:
            raise ValueError("cache sizes cannot be negative")
        self.folder = Path(folder) if folder is not None else None
        self.memory_items = memory_items
        self.disk_items = disk_items
        self._memory: OrderedDict[str, tuple[VoicePrompt, bool]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """Whether the disk layer is on."""
        return self.folder is not None

    def path_for(self, key: str) -> Path:
        _check_key(key)
        if self.folder is None:
            raise ValueError("the disk layer is off")
        return self.folder / f"{key}{_SUFFIX}"

    # -- reading ---------------------------------------------------------------

    def lookup(
        self, key: str, codebooks: int | None = None, codebook_size: int | None = None
    ) -> tuple[VoicePrompt, str] | None:
        """The prompt for ``key`` and where it came from (``"memory"`` or ``"disk"``), or None.

        ``codebooks`` and ``codebook_size``, when given, are checked against a
        file's tokens (a mismatch is a bad entry, deleted like a corrupt one).
        """
        _check_key(key)
        with self._lock:
            entry = self._memory.get(key)
            if entry is not None:
                self._memory.move_to_end(key)
        if entry is not None:
            self._touch(key, *entry)
            return entry[0], "memory"
        if self.folder is None:
            return None
        loaded = self._load(key, codebooks, codebook_size)
        if loaded is None:
            return None
        prompt, auto_transcript = loaded
        self._remember(key, prompt, auto_transcript)
        return prompt, "disk"

    def _load(self, key: str, codebooks: int | None, codebook_size: int | None):
        path = self.path_for(key)
        try:
            handle = open(path, "rb")
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("prompt cache: cannot read %s (%s); encoding again", path, exc)
            return None
        with handle:
            seen = os.fstat(handle.fileno())
            try:
                data = torch.load(handle, map_location="cpu", weights_only=True)
                result = self._validate(data, key, codebooks, codebook_size)
            except _BadEntry as exc:
                reason = str(exc)
            # torch.load fails in many ways on a damaged file (UnpicklingError,
            # RuntimeError, EOFError, ValueError, ...): every one of them is a miss.
            except Exception as exc:
                if "Unsupported global" in str(exc):  # a pickle that names code to import
                    reason = "it holds objects other than plain data (refused without running them)"
                else:
                    reason = f"it is damaged, truncated or not a prompt file ({type(exc).__name__})"
            else:
                try:
                    os.utime(path)  # last use = mtime, for pruning
                except OSError:
                    pass  # pruned by another process meanwhile; the prompt is still good
                return result
        log.warning("prompt cache: deleting %s because %s; the clip is encoded again",
                    path.name, reason)
        self._discard(path, seen)
        return None

    @staticmethod
    def _validate(data: object, key: str, codebooks: int | None, codebook_size: int | None):
        try:
            prompt = VoicePrompt.from_dict(data, "it", codebooks)
        except UserError as exc:
            raise _BadEntry(str(exc).split(";")[0]) from None
        if data.get("cache_key") != key:
            raise _BadEntry("it was stored under another key")
        auto = data.get("auto_transcript")
        if not isinstance(auto, bool):
            raise _BadEntry("it lacks its auto_transcript flag")
        if not np.isfinite(prompt.rms) or prompt.rms <= 0:
            raise _BadEntry("its loudness is not a positive number")
        tokens = prompt.tokens
        if int(tokens.min()) < 0 or (codebook_size is not None and int(tokens.max()) >= codebook_size):
            raise _BadEntry("its tokens are outside the codec's range")
        return prompt, auto

    @staticmethod
    def _discard(path: Path, seen: os.stat_result) -> None:
        """Delete ``path`` unless another writer has replaced it since we read it."""
        try:
            now = os.stat(path)
            if (now.st_ino, now.st_size, now.st_mtime_ns) == (seen.st_ino, seen.st_size, seen.st_mtime_ns):
                path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("prompt cache: cannot delete %s (%s)", path, exc)

    # -- writing ---------------------------------------------------------------

    def store(
        self,
        key: str,
        prompt: VoicePrompt,
        auto_transcript: bool,
        keep: Collection[str] = (),
        prune: bool = True,
    ) -> bool:
        """Remember ``prompt`` under ``key``; with the disk layer on, write its file and
        prune (keeping ``keep``). Returns whether a file was written. A failed write
        is logged, never raised: the cache only ever saves time."""
        _check_key(key)
        self._remember(key, prompt, bool(auto_transcript))
        if self.folder is None:
            return False
        written = self._write(key, prompt, bool(auto_transcript))
        if prune:
            self.prune(keep)
        return written

    def _remember(self, key: str, prompt: VoicePrompt, auto_transcript: bool) -> None:
        if self.memory_items == 0:
            return
        with self._lock:
            self._memory[key] = (prompt, auto_transcript)
            self._memory.move_to_end(key)
            while len(self._memory) > self.memory_items:
                self._memory.popitem(last=False)

    def _write(self, key: str, prompt: VoicePrompt, auto_transcript: bool) -> bool:
        path = self.path_for(key)
        data = prompt.to_dict()
        data["cache_key"] = key
        data["auto_transcript"] = auto_transcript
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path) as handle:
                torch.save(data, handle)
        except OSError as exc:
            log.warning("prompt cache: cannot write %s (%s); the clip will be encoded again "
                        "next time", path, exc)
            return False
        return True

    def _touch(self, key: str, prompt: VoicePrompt, auto_transcript: bool) -> None:
        """A memory hit is a use too: refresh the file's mtime, or put the file back
        if another process pruned it."""
        if self.folder is None:
            return
        try:
            os.utime(self.path_for(key))
        except FileNotFoundError:
            self._write(key, prompt, auto_transcript)
        except OSError:
            pass

    # -- housekeeping ----------------------------------------------------------

    def _scan(self, strict: bool = False) -> list[tuple[int, str, int]]:
        """(mtime_ns, key, bytes) of every entry; stale temp files are removed on the way.

        A folder that cannot be read (a file in its place, no permission) is an empty
        cache for a render, which it only ever speeds up; ``strict`` (the cache
        commands) says so in one sentence instead."""
        if self.folder is None:
            return []
        entries = []
        try:
            scan = os.scandir(self.folder)
        except FileNotFoundError:
            return []
        except OSError as exc:
            if strict:
                raise UserError(f"The prompt cache folder {self.folder} cannot be read "
                                f"({exc.strerror or exc}); remove what is in its place or fix "
                                "its permissions.") from None
            log.warning("prompt cache: cannot read %s (%s); working without it", self.folder, exc)
            return []
        stale = time.time() - STALE_TEMP_S
        with scan:
            for item in scan:
                name = item.name
                try:
                    if name.endswith(_SUFFIX) and _KEY.fullmatch(name[: -len(_SUFFIX)]):
                        st = item.stat()
                        entries.append((st.st_mtime_ns, name[: -len(_SUFFIX)], st.st_size))
                    elif _TEMP.fullmatch(name) and item.stat().st_mtime < stale:
                        os.unlink(item.path)
                except FileNotFoundError:
                    continue  # removed by another process meanwhile
                except OSError as exc:
                    log.warning("prompt cache: cannot inspect %s (%s)", item.path, exc)
        return entries

    def prune(self, keep: Collection[str] = ()) -> int:
        """Delete all but the ``disk_items`` most recently used files and those in ``keep``;
        returns how many were deleted."""
        keep = set(keep)
        entries = sorted(self._scan(), reverse=True)
        removed = 0
        for rank, (_mtime, key, _size) in enumerate(entries):
            if rank < self.disk_items or key in keep:
                continue
            try:
                (self.folder / f"{key}{_SUFFIX}").unlink()
                removed += 1
            except FileNotFoundError:
                pass
            except OSError as exc:
                log.warning("prompt cache: cannot delete %s (%s)", key, exc)
        return removed

    def info(self) -> dict:
        entries = self._scan(strict=True)
        with self._lock:
            in_memory = len(self._memory)
        return {
            "folder": str(self.folder) if self.folder is not None else None,
            "enabled": self.enabled,
            "entries": len(entries),
            "bytes": sum(size for _m, _k, size in entries),
            "disk_items": self.disk_items,
            "memory_entries": in_memory,
            "memory_items": self.memory_items,
        }

    def clear(self) -> int:
        """Forget everything; returns how many files were deleted."""
        with self._lock:
            self._memory.clear()
        removed, kept = 0, []
        for _mtime, key, _size in self._scan(strict=True):
            try:
                (self.folder / f"{key}{_SUFFIX}").unlink()
                removed += 1
            except FileNotFoundError:
                pass
            except OSError as exc:  # a folder with an entry's name, or no permission
                kept.append(exc.strerror or str(exc))
        if kept:
            raise UserError(f"{len(kept)} of {removed + len(kept)} cached voice prompts in "
                            f"{self.folder} could not be deleted ({kept[0]}); check that the "
                            "folder and its entries are yours to delete.")
        return removed


__all__ = [
    "CACHE_FOLDER",
    "CACHE_SCHEMA",
    "DISK_CACHE_ENV",
    "PromptCache",
    "codec_identity",
    "default_cache_folder",
    "disk_cache_enabled",
    "parse_switch",
    "prompt_key",
    "waveform_sha256",
]
