"""The voice prompt cache: keys, the memory and disk layers, damage, concurrency, pruning.

Encodes run through the real engine on the tiny random checkpoint; the ASR is a
counting fake. Every count below (encodes, transcriptions, files hashed) is
counted by the test itself, not only read back from the object under test.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import pickle
import shutil
import sqlite3
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from studio.engine.engine import Engine
from studio.engine.file_hashes import HASHES_FILE, FileHasher
from studio.engine.prompt import VoicePrompt
from studio.engine.prompt_cache import (
    PromptCache,
    disk_cache_enabled,
    parse_switch,
    prompt_key,
    waveform_sha256,
)
from studio.engine.prompts import PromptSource
from studio.errors import UserError

TRANSCRIPT = "This is what the clip says"
LONG_AGO = time.time() - 3600


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def clip(tmp_path, speech) -> Path:
    path = tmp_path / "clips" / "voice.wav"
    path.parent.mkdir()
    sf.write(path, speech(3.0), 24000)
    os.utime(path, (LONG_AGO, LONG_AGO))  # settled: the hash memo may remember it
    return path


@pytest.fixture
def folder(tmp_path) -> Path:
    return tmp_path / "prompt_cache"


class Counts:
    def __init__(self):
        self.encodes = 0
        self.transcriptions = 0


@pytest.fixture
def counts(engine, monkeypatch) -> Counts:
    """Counts real encodes of the session engine (any PromptSource) and fake ASR calls."""
    counted = Counts()
    original = engine.create_prompt

    def create_prompt(*args, **kwargs):
        counted.encodes += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(engine, "create_prompt", create_prompt)
    return counted


@pytest.fixture
def make_source(engine, folder, counts):
    """``make_source(**kw)``: a PromptSource with a fresh PromptCache (no memory of
    earlier sources) over ``folder``, whose ASR is a counting fake."""

    def fake_asr():
        def transcribe(wave, rate):
            assert rate == engine.sample_rate and wave.size > 0
            counts.transcriptions += 1
            return TRANSCRIPT

        return transcribe

    def make(eng: Engine = engine, cache_folder: Path | None = folder, **kwargs) -> PromptSource:
        cache = kwargs.pop("cache", None) or PromptCache(cache_folder)
        kwargs.setdefault("transcriber_factory", fake_asr)
        return PromptSource(eng, cache, **kwargs)

    return make


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pt"))


def no_temp_files(folder: Path) -> None:
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]
    assert not leftovers, leftovers


def random_prompt(seed: int = 0, frames: int = 20, codebooks: int = 8) -> VoicePrompt:
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 1024, (codebooks, frames), generator=generator)
    return VoicePrompt(tokens, f"Prompt {seed}.", 0.05)


def key_of(i: int) -> str:
    return prompt_key(f"{i:064x}", None, True, "codec")


# ---------------------------------------------------------------------------
# Keys and the switch
# ---------------------------------------------------------------------------


def test_key_changes_with_every_field():
    base = ("a" * 64, "Hello.", True, "codec-1")
    key = prompt_key(*base)
    assert len(key) == 64 and int(key, 16) >= 0
    assert prompt_key(*base) == key
    variants = [("b" * 64, "Hello.", True, "codec-1"), ("a" * 64, "Hello!", True, "codec-1"),
                ("a" * 64, None, True, "codec-1"), ("a" * 64, "Hello.", False, "codec-1"),
                ("a" * 64, "Hello.", True, "codec-2")]
    assert len({key, *(prompt_key(*v) for v in variants)}) == 6


def test_waveform_hash():
    wave = np.linspace(-0.5, 0.5, 1000, dtype=np.float32)
    assert waveform_sha256(wave, 24000) == waveform_sha256(wave.astype(np.float64), 24000)
    assert waveform_sha256(wave, 24000) != waveform_sha256(wave, 16000)
    assert waveform_sha256(wave, 24000) != waveform_sha256(wave.reshape(1, -1), 24000)


@pytest.mark.parametrize(("value", "expected"), [
    (None, True), ("", True), ("1", True), ("on", True), (" TRUE ", True),
    ("0", False), ("off", False), ("False", False),
])
def test_disk_cache_switch(value, expected):
    env = {} if value is None else {"OMNIVOICE_PROMPT_DISK_CACHE": value}
    assert disk_cache_enabled(env) is expected


def test_disk_cache_switch_refuses_other_values():
    with pytest.raises(UserError) as caught:
        disk_cache_enabled({"OMNIVOICE_PROMPT_DISK_CACHE": "maybe"})
    message = str(caught.value)
    assert "OMNIVOICE_PROMPT_DISK_CACHE" in message and "'maybe'" in message
    assert "\n" not in message and message.endswith(".")
    assert parse_switch("On", "x") is True


# ---------------------------------------------------------------------------
# Hits and misses
# ---------------------------------------------------------------------------


def test_encoded_then_memory_then_disk(make_source, clip, folder, counts):
    first = make_source()
    prompt, source = first.obtain(clip, None)
    assert source == "encoded" and counts.encodes == 1 and counts.transcriptions == 1
    assert (first.encodes, first.transcriptions) == (1, 1)
    assert prompt.text.startswith(TRANSCRIPT)
    [entry] = entries(folder)

    again, source = first.obtain(clip, None)
    assert source == "memory" and again is prompt and counts.encodes == 1

    fresh = make_source()  # a new process, as far as the cache can tell
    loaded, source = fresh.obtain(clip, None)
    assert source == "disk"
    assert (counts.encodes, counts.transcriptions) == (1, 1)
    assert (fresh.encodes, fresh.transcriptions) == (0, 0)
    assert torch.equal(loaded.tokens, prompt.tokens) and loaded.text == prompt.text
    assert loaded.rms == pytest.approx(prompt.rms)

    # The file is a plain v1 prompt: the reference package loads it too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydub warns at import when ffmpeg is absent
        from omnivoice import VoiceClonePrompt
    reference = VoiceClonePrompt.load(str(entry))
    assert torch.equal(reference.ref_audio_tokens, prompt.tokens)
    assert reference.ref_text == prompt.text


def test_given_transcript_and_auto_transcript_are_separate(make_source, clip, counts):
    source = make_source()
    assert source.obtain(clip, "Typed words.")[1] == "encoded"
    assert counts.transcriptions == 0
    assert source.obtain(clip, None)[1] == "encoded"
    assert source.obtain(clip, "   ")[1] == "memory"  # blank is auto-transcription too
    assert source.obtain(clip, "Typed words.", preprocess=False)[1] == "encoded"
    assert (counts.encodes, counts.transcriptions) == (3, 1)


def test_renamed_and_moved_copies_hit(make_source, clip, tmp_path, counts):
    make_source().obtain(clip, TRANSCRIPT)
    elsewhere = tmp_path / "moved" / "deeper"
    elsewhere.mkdir(parents=True)
    copy = shutil.copy2(clip, elsewhere / "renamed copy.wav")
    assert make_source().obtain(Path(copy), TRANSCRIPT)[1] == "disk"
    moved = clip.rename(tmp_path / "moved.wav")
    assert make_source().obtain(moved, TRANSCRIPT)[1] == "disk"
    assert counts.encodes == 1


def test_edited_clip_misses(make_source, clip, speech, counts):
    make_source().obtain(clip, TRANSCRIPT)
    sf.write(clip, speech(3.0, seed=1), 24000)  # same size, new content
    assert make_source().obtain(clip, TRANSCRIPT)[1] == "encoded"
    assert counts.encodes == 2


def test_other_codec_config_misses(make_source, clip, tiny_checkpoint, tmp_path, folder, counts):
    make_source().obtain(clip, TRANSCRIPT)
    copy = tmp_path / "other" / "OmniVoice"
    shutil.copytree(tiny_checkpoint, copy)
    config_path = copy / "audio_tokenizer" / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["unused_note"] = "same weights, another config file"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    other = Engine.load(copy, device="cpu", precision="fp32")

    assert make_source(other).obtain(clip, TRANSCRIPT)[1] == "encoded"
    assert len(entries(folder)) == 2
    assert make_source().obtain(clip, TRANSCRIPT)[1] == "disk"  # the original still hits


def test_in_memory_waveform(make_source, speech, counts):
    source = make_source()
    wave = speech(3.0, 48000)
    assert source.obtain((wave, 48000), TRANSCRIPT)[1] == "encoded"
    assert source.obtain((wave.copy(), 48000), TRANSCRIPT)[1] == "memory"
    assert make_source().obtain((wave, 48000), TRANSCRIPT)[1] == "disk"
    assert source.obtain((wave, 44100), TRANSCRIPT)[1] == "encoded"
    assert counts.encodes == 2


def test_failed_encode_stores_nothing(make_source, tmp_path, folder):
    silent = tmp_path / "silent.wav"
    sf.write(silent, np.zeros(24000 * 2, dtype=np.float32), 24000)
    source = make_source()
    with pytest.raises(UserError, match="silent"):
        source.obtain(silent, TRANSCRIPT)
    assert source.encodes == 0 and not (folder.is_dir() and entries(folder))


def test_missing_clip_is_one_sentence(make_source, tmp_path):
    with pytest.raises(UserError, match="does not exist"):
        make_source().obtain(tmp_path / "absent.wav", TRANSCRIPT)


def test_no_transcriber_but_cached_transcript(make_source, clip, counts):
    """A known voice needs no ASR at all, even where none is set up."""
    make_source().obtain(clip, None)
    assert make_source(transcriber_factory=None).obtain(clip, None)[1] == "disk"
    with pytest.raises(UserError, match="transcript"):
        make_source(cache_folder=None, transcriber_factory=None).obtain(clip, None)


def test_long_reference_warns_on_a_hit_too(make_source, clip):
    source = make_source()
    key = source.key_for(clip, TRANSCRIPT, True)
    source.cache.store(key, random_prompt(frames=25 * 24), auto_transcript=False)
    warnings: list[str] = []
    assert make_source().obtain(clip, TRANSCRIPT, warn=warnings.append)[1] == "disk"
    assert len(warnings) == 1 and "24.0 s" in warnings[0]


# ---------------------------------------------------------------------------
# Damaged, foreign and hostile files
# ---------------------------------------------------------------------------


class _PlantsMarker:
    """Unpickling this would call open(marker, "w"), creating the marker file."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _valid_dict(entry: Path) -> dict:
    return torch.load(entry, weights_only=True)


def _garbage(entry, marker):
    entry.write_bytes(np.random.default_rng(1).integers(0, 256, 3000, dtype=np.uint8).tobytes())


def _truncated(entry, marker):
    with entry.open("r+b") as handle:
        handle.truncate(entry.stat().st_size // 2)


def _empty(entry, marker):
    entry.write_bytes(b"")


def _torch_code(entry, marker):
    data = _valid_dict(entry)
    data["payload"] = _PlantsMarker(marker)
    torch.save(data, entry)


def _pickle_code(entry, marker):
    data = _valid_dict(entry)
    data["payload"] = _PlantsMarker(marker)
    entry.write_bytes(pickle.dumps(data, protocol=2))  # the unpickler reaches the GLOBAL


def _pickle_code_v5(entry, marker):
    data = _valid_dict(entry)
    data["payload"] = _PlantsMarker(marker)
    entry.write_bytes(pickle.dumps(data, protocol=5))  # refused at its first FRAME already


def _other_key(entry, marker):
    data = _valid_dict(entry)
    data["cache_key"] = "0" * 64
    torch.save(data, entry)


def _wrong_codebooks(entry, marker):
    data = _valid_dict(entry)
    data["ref_audio_tokens"] = data["ref_audio_tokens"][:4]
    torch.save(data, entry)


def _tokens_out_of_range(entry, marker):
    data = _valid_dict(entry)
    data["ref_audio_tokens"][0, 0] = 1024  # the mask id, never a code
    torch.save(data, entry)


def _newer_format(entry, marker):
    data = _valid_dict(entry)
    data["format_version"] = 2
    torch.save(data, entry)


def _no_flag(entry, marker):
    data = _valid_dict(entry)
    del data["auto_transcript"]
    torch.save(data, entry)


@pytest.mark.parametrize("damage", [
    _garbage, _truncated, _empty, _torch_code, _pickle_code, _pickle_code_v5, _other_key, _wrong_codebooks,
    _tokens_out_of_range, _newer_format, _no_flag,
], ids=lambda f: f.__name__.strip("_"))
@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_bad_entry_is_deleted_and_encoded_again(make_source, clip, folder, tmp_path, counts,
                                                caplog, damage):
    original, _ = make_source().obtain(clip, None)
    [entry] = entries(folder)
    marker = tmp_path / "pwned"
    damage(entry, marker)
    assert not marker.exists()

    with caplog.at_level(logging.WARNING, logger="studio.engine.prompt_cache"):
        prompt, source = make_source().obtain(clip, None)
    assert source == "encoded"
    assert (counts.encodes, counts.transcriptions) == (2, 2)
    assert not marker.exists(), "loading the cache file ran code from it"
    reasons = [r.getMessage() for r in caplog.records if "deleting" in r.getMessage()]
    assert len(reasons) == 1 and entry.name in reasons[0], caplog.text
    if damage in (_torch_code, _pickle_code):
        assert "objects other than plain data" in reasons[0]
    assert torch.equal(prompt.tokens, original.tokens)
    # Replaced by a good entry, which the next process uses.
    assert entries(folder) == [entry]
    assert _valid_dict(entry)["cache_key"] == entry.stem
    assert make_source().obtain(clip, None)[1] == "disk"
    no_temp_files(folder)


def test_unreadable_folder_entry_is_a_miss_not_an_error(folder):
    folder.mkdir()
    key = key_of(1)
    (folder / f"{key}.pt").mkdir()  # a folder where the file should be
    cache = PromptCache(folder)
    assert cache.lookup(key) is None
    assert cache.store(key, random_prompt(), auto_transcript=False) is False  # logged, not raised
    assert cache.lookup(key)[1] == "memory"


# ---------------------------------------------------------------------------
# The file hash memo
# ---------------------------------------------------------------------------


def test_unchanged_file_is_not_hashed_again(clip, tmp_path):
    db = tmp_path / "memo" / HASHES_FILE
    hasher = FileHasher(db)
    digest = hasher.file_sha256(clip)
    assert hasher.files_hashed == 1
    assert hasher.file_sha256(clip) == digest and hasher.files_hashed == 1

    other_process = FileHasher(db)
    assert other_process.file_sha256(clip) == digest and other_process.files_hashed == 0

    copy = Path(shutil.copy2(clip, tmp_path / "copy.wav"))
    assert other_process.file_sha256(copy) == digest and other_process.files_hashed == 1

    data = bytearray(clip.read_bytes())
    data[-1] ^= 0xFF
    clip.write_bytes(bytes(data))  # same size; the mtime moves
    os.utime(clip, (LONG_AGO + 5, LONG_AGO + 5))
    changed = FileHasher(db).file_sha256(clip)
    assert changed != digest


def test_fresh_file_is_hashed_but_not_remembered(tmp_path):
    path = tmp_path / "new.bin"
    path.write_bytes(b"just written")
    hasher = FileHasher(tmp_path / HASHES_FILE)
    hasher.file_sha256(path)
    hasher.file_sha256(path)
    assert hasher.files_hashed == 2  # within the mtime granularity window: never trusted


@pytest.mark.parametrize("fault", ["garbage", "deleted"])
def test_hash_memo_recovers(clip, tmp_path, fault, caplog):
    db = tmp_path / HASHES_FILE
    digest = FileHasher(db).file_sha256(clip)
    if fault == "garbage":
        for suffix in ("-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        db.write_bytes(b"this is not a database at all" * 100)
    else:
        db.unlink()
    hasher = FileHasher(db)
    with caplog.at_level(logging.WARNING):
        assert hasher.file_sha256(clip) == digest
    assert hasher.files_hashed == 1
    with sqlite3.connect(db) as conn:  # recreated, and holding the digest again
        assert conn.execute("SELECT sha256 FROM file_hashes").fetchall() == [(digest,)]
    assert FileHasher(db).file_sha256(clip) == digest


# ---------------------------------------------------------------------------
# Concurrency
# ---------------------------------------------------------------------------


def _assert_one_valid_entry(folder: Path, key: str) -> None:
    assert [p.name for p in entries(folder)] == [f"{key}.pt"]
    no_temp_files(folder)
    hit = PromptCache(folder).lookup(key, codebooks=8, codebook_size=1024)
    assert hit is not None and hit[1] == "disk"
    assert torch.equal(hit[0].tokens, random_prompt(7).tokens)


@pytest.mark.parametrize("shared", [True, False], ids=["one-cache", "cache-per-thread"])
def test_threads_writing_one_key(folder, shared):
    key = key_of(7)
    prompt = random_prompt(7)
    caches = [PromptCache(folder)] * 8 if shared else [PromptCache(folder) for _ in range(8)]
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def write(cache: PromptCache) -> None:
        try:
            barrier.wait()
            for _ in range(10):
                assert cache.store(key, prompt, auto_transcript=True)
                assert PromptCache(folder, memory_items=0).lookup(key) is not None
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(c,)) for c in caches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    _assert_one_valid_entry(folder, key)


def _process_writer(folder: str, key: str, barrier, failures) -> None:
    cache, reader = PromptCache(Path(folder)), PromptCache(Path(folder), memory_items=0)
    prompt = random_prompt(7)
    barrier.wait()
    for _ in range(10):
        if not cache.store(key, prompt, auto_transcript=True):
            failures.put("store failed")
        # Entries are only ever replaced whole: after our own store a read must hit.
        if reader.lookup(key, codebooks=8, codebook_size=1024) is None:
            failures.put("lookup missed")


def test_processes_writing_one_key(folder):
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    key = key_of(7)
    barrier, failures = context.Barrier(8), context.Queue()
    workers = [context.Process(target=_process_writer, args=(str(folder), key, barrier, failures))
               for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert [w.exitcode for w in workers] == [0] * 8
    problems = []
    while not failures.empty():
        problems.append(failures.get())
    assert problems == []
    _assert_one_valid_entry(folder, key)


# ---------------------------------------------------------------------------
# Pruning and the LRU
# ---------------------------------------------------------------------------


def _fill(folder: Path, count: int) -> list[str]:
    """``count`` entries, the first the oldest (mtimes a minute apart)."""
    cache = PromptCache(folder)
    keys = [key_of(i) for i in range(count)]
    start = time.time() - 10 * 3600
    for i, key in enumerate(keys):
        cache.store(key, random_prompt(i), auto_transcript=False, prune=False)
        os.utime(cache.path_for(key), (start + 60 * i, start + 60 * i))
    return keys


def test_prune_keeps_the_newest_and_saved_voices(folder):
    keys = _fill(folder, 40)
    saved = {keys[0], keys[3]}
    assert PromptCache(folder).prune(keep=saved) == 6
    assert {p.stem for p in entries(folder)} == set(keys[8:]) | saved


def test_a_hit_counts_as_use(folder):
    keys = _fill(folder, 32)
    cache = PromptCache(folder)
    assert cache.lookup(keys[0])[1] == "disk"  # the oldest, now the newest
    cache.store(key_of(100), random_prompt(100), auto_transcript=False)  # prunes one
    left = {p.stem for p in entries(folder)}
    assert keys[0] in left and keys[1] not in left and len(left) == 32

    cache.lookup(keys[2])  # a memory hit too refreshes the file
    assert PromptCache(folder).lookup(keys[2])  # (promoted in that fresh cache)
    cache = PromptCache(folder)
    cache.lookup(keys[5])
    os.utime(cache.path_for(keys[5]), (LONG_AGO, LONG_AGO))
    assert cache.lookup(keys[5])[1] == "memory"
    assert cache.path_for(keys[5]).stat().st_mtime > LONG_AGO + 60


def test_memory_hit_puts_back_a_pruned_file(folder):
    cache = PromptCache(folder)
    key = key_of(1)
    cache.store(key, random_prompt(1), auto_transcript=True)
    cache.path_for(key).unlink()  # another process pruned or cleared it
    assert cache.lookup(key)[1] == "memory"
    assert PromptCache(folder).lookup(key)[1] == "disk"


def test_store_prunes_with_saved_voices_spared(make_source, folder, clip, speech, tmp_path, counts):
    from studio.library.voices import VoiceLibrary

    library = VoiceLibrary(tmp_path / "library")
    try:
        source = make_source(cache=PromptCache(folder, disk_items=2), keep_keys=library.cache_keys)
        prompt, _ = source.obtain(clip, TRANSCRIPT)
        library.create("Saved", clip, prompt, cache_key=source.key_for(clip, TRANSCRIPT, True))
        saved = entries(folder)[0]
        os.utime(saved, (LONG_AGO, LONG_AGO))
        for seed in range(1, 5):
            other = tmp_path / f"other{seed}.wav"
            sf.write(other, speech(2.0, seed=seed), 24000)
            source.obtain(other, TRANSCRIPT)
        names = {p.name for p in entries(folder)}
        assert len(names) == 3 and saved.name in names
    finally:
        library.close()


def test_keep_keys_failure_prunes_nothing(make_source, folder, clip, speech, tmp_path):
    def broken():
        raise UserError("library unreadable")

    source = make_source(cache=PromptCache(folder, disk_items=1), keep_keys=broken)
    for seed in range(3):
        other = tmp_path / f"other{seed}.wav"
        sf.write(other, speech(2.0, seed=seed), 24000)
        source.obtain(other, TRANSCRIPT)
    assert len(entries(folder)) == 3


def test_stale_temp_files_are_swept(folder):
    cache = PromptCache(folder)
    key = key_of(1)
    cache.store(key, random_prompt(1), auto_transcript=False)
    stale = folder / f".{key}.pt.0123456789ab.tmp"
    fresh = folder / f".{key}.pt.ba9876543210.tmp"
    for path in (stale, fresh):
        path.write_bytes(b"partial")
    os.utime(stale, (LONG_AGO - 3600, LONG_AGO - 3600))
    cache.prune()
    assert not stale.exists() and fresh.exists()  # a live writer's temp file is left alone


def test_memory_lru_order():
    cache = PromptCache(None, memory_items=2)
    a, b, c = key_of(1), key_of(2), key_of(3)
    assert cache.store(a, random_prompt(1), False) is False  # no disk layer
    cache.store(b, random_prompt(2), False)
    assert cache.lookup(a)[1] == "memory"  # a is now the most recent
    cache.store(c, random_prompt(3), False)
    assert cache.lookup(b) is None and cache.lookup(a) and cache.lookup(c)
    assert cache.info() == {"folder": None, "enabled": False, "entries": 0, "bytes": 0,
                            "disk_items": 32, "memory_entries": 2, "memory_items": 2}


def test_info_and_clear(folder):
    cache = PromptCache(folder)
    assert cache.info()["entries"] == 0
    _fill(folder, 3)
    info = cache.info()
    assert info["entries"] == 3 and info["bytes"] == sum(p.stat().st_size for p in entries(folder))
    assert info["folder"] == str(folder) and info["enabled"] is True
    assert cache.clear() == 3 and entries(folder) == []


def test_keys_must_be_hex():
    cache = PromptCache(None)
    for bad in ("../../etc/passwd", "A" * 64, "a" * 63, ""):
        with pytest.raises(ValueError):
            cache.lookup(bad)
