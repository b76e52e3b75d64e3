"""A cleaned reference is a file named for its source and cleanup, and the prompt cache
keys on it: the same clip cleaned again hits, a changed step misses; a voice saved from a
cleaned clip keeps the cleaned clip."""

from __future__ import annotations

import numpy as np
import pytest

from studio.engine.prompt_cache import PromptCache
from studio.engine.prompts import PromptSource
from studio.judges.cleanup import LOUDNESS, NOISE, TRIM, Cleaner
from studio.service.cleanup import cleaned_clip, prune
from studio.sound.files import read_audio, write_audio_atomic
from tests.judges.conftest import T1

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def cleaner():
    return Cleaner()


@pytest.fixture
def noisy_clip(tmp_path, speak):
    audio, rate = speak(T1)
    pad = np.zeros(rate // 2, np.float32)
    audio = np.concatenate([pad, audio, pad])
    noise = np.random.default_rng(3).standard_normal(audio.size).astype(np.float32) * 0.02
    path = tmp_path / "noisy.wav"
    write_audio_atomic(path, audio + noise, rate)
    return path


def test_cleaned_again_hits_the_prompt_cache_and_a_changed_step_misses(
        tmp_path, engine, noisy_clip, cleaner):
    folder, cache = tmp_path / "cleaned", tmp_path / "cache"
    first = cleaned_clip(noisy_clip, (NOISE, TRIM), cleaner, folder)
    assert first.path.parent == folder and not first.reused
    assert first.report.trimmed_start > 0
    prompts = PromptSource(engine, PromptCache(cache))
    assert prompts.obtain(first.path, T1)[1] == "encoded"

    for item in folder.iterdir():  # cleaned again from scratch: the same bytes
        item.unlink()
    again = cleaned_clip(noisy_clip, (NOISE, TRIM), cleaner, folder)
    assert again.path == first.path and not again.reused
    fresh = PromptSource(engine, PromptCache(cache))  # another process: from disk
    assert fresh.obtain(again.path, T1)[1] == "disk" and fresh.encodes == 0

    assert cleaned_clip(noisy_clip, (NOISE, TRIM), cleaner, folder).reused

    louder = cleaned_clip(noisy_clip, (NOISE, TRIM, LOUDNESS), cleaner, folder)
    assert louder.path != first.path
    assert fresh.obtain(louder.path, T1)[1] == "encoded"
    assert fresh.key_for(louder.path, T1, True) != fresh.key_for(first.path, T1, True)


def test_another_version_of_a_step_misses(tmp_path, engine, noisy_clip, cleaner, monkeypatch):
    folder = tmp_path / "cleaned"
    prompts = PromptSource(engine, PromptCache(tmp_path / "cache"))
    before = cleaned_clip(noisy_clip, (TRIM,), cleaner, folder)
    monkeypatch.setattr("studio.judges.cleanup.version", lambda _name: "99.0")
    after = cleaned_clip(noisy_clip, (TRIM,), cleaner, folder)
    assert after.path != before.path  # same samples, another VAD version: its own file
    assert prompts.key_for(after.path, T1, True) != prompts.key_for(before.path, T1, True)


def test_no_step_is_the_clip_itself(tmp_path, noisy_clip, cleaner):
    plain = cleaned_clip(noisy_clip, (), cleaner, tmp_path / "cleaned")
    assert plain.path == noisy_clip and plain.report is None
    assert not (tmp_path / "cleaned").exists()


def test_the_cleaned_file_holds_the_cleaned_audio(tmp_path, noisy_clip, cleaner):
    made = cleaned_clip(noisy_clip, (TRIM,), cleaner, tmp_path / "cleaned")
    audio, rate = read_audio(made.path)
    source, _ = read_audio(noisy_clip)
    assert audio.shape[-1] == source.shape[-1] - made.report.trimmed_start - made.report.trimmed_end
    assert b'"steps":["trim"]' in made.path.read_bytes()  # the identity is in the file


def test_a_voice_saved_from_a_cleaned_clip_keeps_the_cleaned_clip(
        tmp_path, engine, noisy_clip, cleaner):
    from studio.library.voices import VoiceLibrary
    from studio.service.voice_save import check_new_voice, save_voice

    made = cleaned_clip(noisy_clip, (NOISE, TRIM), cleaner, tmp_path / "cleaned")
    root = tmp_path / "voices"
    prompts = PromptSource(engine, PromptCache(None))
    voice, _ = save_voice(prompts, check_new_voice("Clean", made.path, root=root), T1, root=root)
    with VoiceLibrary(root) as library:
        assert library.clip_path(voice.id).read_bytes() == made.path.read_bytes()


def test_prune_keeps_the_newest(tmp_path):
    import os

    for i in range(5):
        (tmp_path / f"{i}.wav").write_bytes(b"x")
        (tmp_path / f"{i}.json").write_bytes(b"{}")
        os.utime(tmp_path / f"{i}.wav", ns=(i * 10**9, i * 10**9))
    assert prune(tmp_path, keep={"0"}, limit=2) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "0.json", "0.wav", "3.json", "3.wav", "4.json", "4.wav"]
