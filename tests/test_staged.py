"""Outputs that appear together or not at all (studio/staged.py), and the one check that
no output is an input or another output (studio/outputs.py)."""

from __future__ import annotations

import os

import pytest

from studio.errors import UserError
from studio.outputs import check_distinct, same_file
from studio.staged import Staged


def test_staged_files_appear_only_on_commit(tmp_path):
    (tmp_path / "mix.wav").write_bytes(b"old mix")
    with Staged() as staged:
        folder = staged.folder(tmp_path / "new" / "stems")
        staged.path(folder / "A.wav").write_bytes(b"stem")
        staged.path(tmp_path / "mix.wav").write_bytes(b"new mix")
        assert (tmp_path / "mix.wav").read_bytes() == b"old mix"
        assert not (folder / "A.wav").exists()
        staged.commit()
    assert (tmp_path / "mix.wav").read_bytes() == b"new mix"
    assert (tmp_path / "new" / "stems" / "A.wav").read_bytes() == b"stem"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["A.wav", "mix.wav", "new", "stems"]


def test_a_failure_before_the_commit_leaves_what_was_there_and_nothing_new(tmp_path):
    (tmp_path / "mix.wav").write_bytes(b"old mix")
    (tmp_path / "kept").mkdir()
    with pytest.raises(RuntimeError), Staged() as staged:
        staged.path(staged.folder(tmp_path / "kept") / "B.wav").write_bytes(b"stem")
        staged.path(staged.folder(tmp_path / "a" / "b") / "A.wav").write_bytes(b"stem")
        staged.path(tmp_path / "mix.wav").write_bytes(b"half")
        raise RuntimeError("the project could not be saved")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["kept", "mix.wav"]
    assert (tmp_path / "mix.wav").read_bytes() == b"old mix"


def test_a_temporary_name_keeps_the_suffix_and_hides(tmp_path):
    with Staged() as staged:
        temp = staged.path(tmp_path / ("x" * 250 + ".flac"))
        assert temp.name.startswith(".") and temp.suffix == ".flac"
        assert len(temp.name) <= 255


def test_a_symlinked_target_is_written_through(tmp_path):
    (tmp_path / "real.wav").write_bytes(b"old")
    (tmp_path / "link.wav").symlink_to(tmp_path / "real.wav")
    with Staged() as staged:
        staged.path(tmp_path / "link.wav").write_bytes(b"new")
        staged.commit()
    assert (tmp_path / "link.wav").is_symlink()
    assert (tmp_path / "real.wav").read_bytes() == b"new"


def test_same_file_sees_links_spellings_and_files_not_yet_written(tmp_path):
    clip = tmp_path / "clip.wav"
    clip.write_bytes(b"x")
    os.link(clip, tmp_path / "hard.wav")
    (tmp_path / "soft.wav").symlink_to(clip)
    (tmp_path / "sub").mkdir()
    assert same_file(tmp_path / "hard.wav", clip)
    assert same_file(tmp_path / "soft.wav", clip)
    assert same_file(tmp_path / "sub" / ".." / "clip.wav", clip)
    assert same_file(tmp_path / "sub" / ".." / "new.wav", tmp_path / "new.wav")
    assert not same_file(tmp_path / "new.wav", clip)
    assert not same_file(tmp_path / "a\0b", clip)


def test_check_distinct_names_the_clash_in_one_sentence(tmp_path):
    clip = tmp_path / "clip.wav"
    clip.write_bytes(b"x")
    with pytest.raises(UserError, match="is the reference clip; writing it would destroy"):
        check_distinct([(None, "voice map"), (clip, "reference clip")],
                       [(tmp_path / "mix.wav", "mix"), (clip, "stem of Bob")])
    with pytest.raises(UserError, match="The mix and the stem of Bob are both"):
        check_distinct([(clip, "reference clip")],
                       [(tmp_path / "mix.wav", "mix"), (tmp_path / "mix.wav", "stem of Bob")])
    check_distinct([(clip, "reference clip")], [(tmp_path / "mix.wav", "mix"), (None, "srt")])
