"""tools/move_sound.py, which the merger runs again over code written before the move:
it rewrites every spelling of an import of what moved, leaves the rest alone, and a
second run changes nothing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("move_sound", ROOT / "tools" / "move_sound.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


OLD = '''\
from studio.audio.loudness import loudness_lufs
from studio.audio.backend import AudioStatus
from studio.audio import backend, peaks
from studio.engine import clip_bounds, prompt
from tests.engine.test_clip_bounds import flac_bomb
from studio.engine.audio import remove_silence, read_audio, write_audio_atomic  # why
from studio.engine import audio
from studio.engine.prompt_cache import HASHES_FILE, FileHasher, PromptCache
from studio.library.takes import NO_PROJECT, Take, TakeLibrary, TakeRun
from studio.library.clips import (
    MIN_VOICE_SECONDS,
    check_voice_clip,
    is_readable_audio,
)


def f(takes):
    from studio.library.clips import clip_seconds
    from studio.engine.audio import AudioFileWriter

    takes.read_audio("id")  # a TakeLibrary method, not the moved function
    audio.remove_silence(audio.read_audio("a.wav")[0])
    patch("studio.engine.clip_bounds.read_clip")  # and "studio/engine/clip_bounds.py" stays
    return clip_seconds, AudioFileWriter, "studio.audio.growing"
'''

NEW = '''\
from studio.sound.loudness import loudness_lufs
from studio.audio.backend import AudioStatus
from studio.audio import backend
from studio.sound import peaks
from studio.engine import prompt
from studio.sound import clip_bounds
from tests.sound.test_clip_bounds import flac_bomb
from studio.engine.audio import remove_silence
from studio.sound.files import read_audio, write_audio_atomic  # why
from studio.engine import audio
from studio.sound import files as sound_files
from studio.engine.prompt_cache import PromptCache
from studio.engine.file_hashes import HASHES_FILE, FileHasher
from studio.library.takes import NO_PROJECT, TakeLibrary
from studio.library.take_record import Take, TakeRun
from studio.library.clips import MIN_VOICE_SECONDS, check_voice_clip
from studio.sound.files import is_readable_audio


def f(takes):
    from studio.sound.files import clip_seconds
    from studio.sound.files import AudioFileWriter

    takes.read_audio("id")  # a TakeLibrary method, not the moved function
    audio.remove_silence(sound_files.read_audio("a.wav")[0])
    patch("studio.sound.clip_bounds.read_clip")  # and "studio/engine/clip_bounds.py" stays
    return clip_seconds, AudioFileWriter, "studio.sound.growing"
'''


def test_every_spelling_is_rewritten_and_the_rest_left_alone():
    assert _tool().rewrite(OLD) == NEW


def test_a_second_run_changes_nothing():
    tool = _tool()
    assert tool.rewrite(NEW) == NEW


def test_the_tree_holds_no_import_of_what_moved():
    tool = _tool()
    stale = [str(path.relative_to(ROOT)) for folder in tool.FOLDERS
             for path in sorted((ROOT / folder).rglob("*.py"))
             if path.name not in tool.SELF
             and tool.rewrite(path.read_text(encoding="utf-8")) != path.read_text(encoding="utf-8")]
    assert stale == [], f"run python tools/move_sound.py: {stale}"
