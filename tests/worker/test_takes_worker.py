"""The worker saves every take (N at once, re-rendered exactly), edits the library on
its thread, prunes on start-up, and never fails a render because saving or ASR did."""

from __future__ import annotations

import hashlib
import sqlite3

import numpy as np
import pytest
import soundfile as sf

from studio.engine.options import DecodeOptions, GenerationOptions
from studio.library.db import DB_FILE
from studio.library.take_record import TakeRun, TakeSettings
from studio.library.takes import TakeLibrary
from studio.service.requests import LoadRequest, RenderRequest
from studio.service.snapshot import request_from_take
from studio.worker.controller import WorkerController
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for
from tests.qt_waits import after_worker

FAST = GenerationOptions(decode=DecodeOptions(num_step=4))


def one_sentence(message: str) -> bool:
    return "\n" not in message and message.endswith(".")


class Run:
    """A worker on this thread (slots called directly) and what it emitted."""

    def __init__(self, engine, folder, **load):
        self.worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=folder)
        self.folder = folder
        self.finished, self.failed, self.changed, self.refused = [], [], [], []
        self.chunks = []  # the streamed chunks of every render
        self.worker.takes_changed.connect(lambda: self.changed.append(1))
        self.worker.takes_failed.connect(self.refused.append)
        self.worker.load_model(LoadRequest(source="tiny-checkpoint", disk_cache=False, **load))
        self.changed.clear()  # loading opens the library and applies retention

    def render(self, request: RenderRequest):
        self.worker.render(job_for(len(self.finished) + 1, done=self.finished,
                                   failed=self.failed, chunks=self.chunks), request)
        assert not self.failed, self.failed
        return self.finished[-1]

    def reader(self) -> TakeLibrary:
        return TakeLibrary(self.folder, read_only=True)


@pytest.fixture
def run(engine, tmp_path, qapp):
    r = Run(engine, tmp_path / "data")
    yield r
    r.worker.release()


def test_n_takes_at_once_give_n_seeds_n_distinct_audios_and_n_saved_takes(run):
    result = run.render(RenderRequest("Four takes at once.", seeds=(None,) * 4, options=FAST, mode="design"))
    seeds = [t.seed for t in result.takes]
    assert len(set(seeds)) == 4
    audios = [t.audio for t in result.takes]
    assert all(not np.array_equal(a, b) for i, a in enumerate(audios) for b in audios[i + 1:])
    ids = [t.take_id for t in result.takes]
    assert None not in ids and len(set(ids)) == 4 and run.changed == [1]
    with run.reader() as lib:
        takes = {t.id: t for t in lib.list()}
        assert set(takes) == set(ids) and {t.batch for t in takes.values()} == {result.batch}
        for take_audio in result.takes:
            take = takes[take_audio.take_id]
            assert take.settings.seed == take_audio.seed and take.settings.mode == "design"
            assert take.settings.options["decode"]["num_step"] == 4
            assert take.run.model_source == "tiny-checkpoint" and take.run.device == "cpu"
            assert take.run.seconds == result.seconds and take.run.rtf > 0
            stored, rate = lib.read_audio(take.id)
            assert rate == take_audio.sample_rate
            assert np.abs(stored - take_audio.audio).max() < 1e-6
        assert lib.check_integrity() == []


def test_the_same_seed_re_renders_identical_samples_and_another_seed_varies(run):
    first = run.render(RenderRequest("Render me again.", seeds=(11, 12), options=FAST, mode="design"))
    with run.reader() as lib:
        take = lib.get(first.takes[1].take_id)
    again = run.render(request_from_take(take))
    assert again.takes[0].seed == 12
    assert np.array_equal(again.takes[0].audio, first.takes[1].audio)
    other = run.render(request_from_take(take, seed=99))
    assert other.takes[0].seed == 99 and not np.array_equal(other.takes[0].audio, first.takes[1].audio)
    with run.reader() as lib:
        assert len(lib.list()) == 4  # the re-renders are takes too
        assert np.array_equal(lib.read_audio(again.takes[0].take_id)[0], lib.read_audio(take.id)[0])


def test_a_clone_take_records_its_voice_and_reference_hash(run, tmp_path, speech):
    clip = tmp_path / "ref.wav"
    sf.write(clip, speech(2.0), 24000)
    request = RenderRequest("Cloned words.", reference=clip, ref_text="Some words here.",
                            seeds=(5,), options=FAST, voice_id="a" * 32)
    result = run.render(request)
    with run.reader() as lib:
        take = lib.get(result.takes[0].take_id)
    assert take.settings.reference_sha256 == hashlib.sha256(clip.read_bytes()).hexdigest()
    assert take.settings.reference_path == str(clip.absolute()) and take.settings.voice_id == "a" * 32
    assert take.settings.ref_text == "Some words here." and take.settings.mode == "clone"
    assert request_from_take(take) == RenderRequest(**{**request.__dict__, "reference": clip.absolute()})


def test_a_take_that_cannot_be_saved_is_still_delivered_with_a_warning(engine, tmp_path, qapp):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    run = Run(engine, blocker)
    result = run.render(RenderRequest("Still here.", seeds=(1, 2), options=FAST, mode="design"))
    assert [t.take_id for t in result.takes] == [None, None] and result.takes[0].audio.size
    [warning] = [w for w in result.warnings if "take library" in w]
    assert warning.startswith("2 of 2 takes were not saved") and one_sentence(warning)
    assert run.changed == []


def test_take_edits_go_through_the_worker_and_refusals_are_one_sentence(run):
    result = run.render(RenderRequest("Edit me.", seeds=(1, 2), options=FAST, mode="design"))
    a, b = (t.take_id for t in result.takes)
    run.changed.clear()
    run.worker.star_take(a, True)
    run.worker.rename_take(a, "Best")
    run.worker.note_take(b, "too fast")
    run.worker.delete_takes((b,))
    assert len(run.changed) == 4 and not run.refused
    with run.reader() as lib:
        assert [(t.id, t.name, t.starred) for t in lib.list()] == [(a, "Best", True)]
        assert lib.get(b).notes == "too fast"
    run.worker.undelete_takes([b])
    run.worker.rename_take(a, "  ")
    run.worker.star_take("0" * 32, True)
    assert len(run.refused) == 2 and all(one_sentence(s) for s in run.refused)
    run.worker.delete_takes([b])
    run.worker.purge_takes()
    with run.reader() as lib:
        assert [t.id for t in lib.list(include_deleted=True)] == [a]


def test_deleted_takes_stay_restorable_this_session_and_are_purged_at_the_next_start(engine, tmp_path, qapp):
    first = Run(engine, tmp_path / "data")
    result = first.render(RenderRequest("Delete me.", seeds=(1, 2), options=FAST, mode="design"))
    kept, gone = (t.take_id for t in result.takes)
    first.worker.delete_takes((gone,))
    first.worker.load_model(LoadRequest(source="tiny-checkpoint", disk_cache=False))  # a model switch
    with first.reader() as lib:
        assert lib.get(gone).deleted  # still restorable: undo lasts the session
    first.worker.release()
    Run(engine, tmp_path / "data").worker.release()
    with TakeLibrary(tmp_path / "data", read_only=True) as lib:
        assert [t.id for t in lib.list(include_deleted=True)] == [kept]
    assert sorted(p.stem for p in (tmp_path / "data" / "takes").glob("*.flac")) == [kept]


def test_start_up_prunes_old_unstarred_takes_when_retention_is_set(engine, tmp_path, qapp):
    first = Run(engine, tmp_path / "data")
    result = first.render(RenderRequest("Old takes.", seeds=(1, 2, 3), options=FAST, mode="design"))
    first.worker.star_take(result.takes[0].take_id, True)
    first.worker.release()
    with sqlite3.connect(tmp_path / "data" / DB_FILE) as conn:  # make them a year old
        conn.execute("UPDATE takes SET created = '2025-01-01T00:00:00.000000+00:00'")
    partial = tmp_path / "data" / "takes" / ".crashed.flac.0123456789ab.tmp"
    partial.write_bytes(b"left by a crash")
    Run(engine, tmp_path / "data", retention_days=0.0).worker.release()
    with TakeLibrary(tmp_path / "data", read_only=True) as lib:
        assert len(lib.list()) == 3  # 0 keeps takes forever
    assert not partial.exists()  # start-up opened the writer, whose sweep recovers from a crash
    Run(engine, tmp_path / "data", retention_days=30.0).worker.release()
    with TakeLibrary(tmp_path / "data", read_only=True) as lib:
        assert [t.id for t in lib.list()] == [result.takes[0].take_id]


def test_a_reload_in_the_same_session_never_prunes(engine, tmp_path, qapp):
    run = Run(engine, tmp_path / "data", retention_days=0.0)  # the session's start
    try:
        result = run.render(RenderRequest("Old takes.", seeds=(1, 2), options=FAST, mode="design"))
        with sqlite3.connect(tmp_path / "data" / DB_FILE) as conn:
            conn.execute("UPDATE takes SET created = '2025-01-01T00:00:00.000000+00:00'")
        # Retention set to a day, then the model reloaded (a precision change): nothing goes.
        run.worker.load_model(LoadRequest(source="tiny-checkpoint", disk_cache=False,
                                          retention_days=1.0))
        with run.reader() as lib:
            assert {t.id for t in lib.list()} == {t.take_id for t in result.takes}
    finally:
        run.worker.release()


def test_asr_check_stores_the_cer_or_warns_once_per_render_without_failing(engine, tmp_path, qapp):
    run = Run(engine, tmp_path / "data", asr_check=True, asr_model="")
    result = run.render(RenderRequest("Check me.", seeds=(1,), options=FAST, mode="design"))
    assert result.takes[0].take_id is not None
    assert "The ASR check of the takes was skipped: no transcription model is set up." in result.warnings
    heard = []
    run.worker.keeper.asr_problem = None
    run.worker.prompts.transcriber_factory = lambda: lambda wave, rate: heard.append(rate) or "check ME"
    result = run.render(RenderRequest("Check me.", seeds=(1, 2), options=FAST, mode="design"))
    assert heard == [24000, 24000] and not [w for w in result.warnings if "ASR" in w]
    with run.reader() as lib:
        assert [lib.get(t.take_id).asr_cer for t in result.takes] == [0.0, 0.0]
    run.worker.set_asr_check(False)
    run.render(RenderRequest("Check me.", seeds=(3,), options=FAST, mode="design"))
    assert len(heard) == 2
    run.worker.release()


def test_the_controller_edits_takes_on_the_worker_thread_and_re_emits_takes_changed(qtbot, tmp_path):
    settings = TakeSettings("Hi.", None, None, "design", None, None, None, None, True, None, None, 1, {})
    run = TakeRun("tiny", "cpu", "fp32", "off", "off", None, "0.1.0", 1.0, 0.5)
    with TakeLibrary(tmp_path / "data") as lib:
        take = lib.add(settings, run, np.full(2400, 0.1, np.float32), 24000, batch="b")
    controller = WorkerController(InferenceWorker(data_dir=tmp_path / "data"))
    try:
        with qtbot.waitSignal(controller.takes_changed, timeout=10_000):
            controller.star_take(take.id, True)
        with after_worker(qtbot, controller.worker.takes_failed, timeout=10_000) as refused:
            controller.rename_take(take.id, "")
        assert one_sentence(refused.args[0])
    finally:
        assert controller.shutdown()
    with TakeLibrary(tmp_path / "data", read_only=True) as lib:
        assert lib.get(take.id).starred


def test_a_library_that_fails_to_open_with_an_os_error_still_delivers_the_takes(engine, tmp_path, qapp,
                                                                                  monkeypatch):
    def failing_open(folder):
        raise OSError(5, "Input/output error")  # e.g. the lock or the folder scan failing

    monkeypatch.setattr("studio.service.takes.TakeLibrary", failing_open)
    run = Run(engine, tmp_path / "data")
    try:
        result = run.render(RenderRequest("Still delivered.", seeds=(1, 2), options=FAST, mode="design"))
    finally:
        run.worker.release()
    assert [t.take_id for t in result.takes] == [None, None] and result.takes[0].audio.size
    [warning] = [w for w in result.warnings if "take library" in w]
    assert warning.startswith("2 of 2 takes were not saved") and "unexpected error" in warning
    assert run.changed == [] and run.failed == []


PARAGRAPH = ("The storm rolled in over the hills just after noon. Farmers hurried to bring "
             "their animals inside before the rain. By evening the river had risen past the "
             "old stone bridge. Nobody in the village could remember a flood like it.")


def test_a_streamed_batch_hands_over_the_first_takes_chunks_and_saves_every_take(run):
    got = run.chunks
    request = RenderRequest(PARAGRAPH, seeds=(3, 4), options=FAST, mode="design", stream=True)
    result = run.render(request)
    assert len(got) >= 3 and {c.item for c in got} == {0}  # the first take streams
    assert [c.index for c in got] == list(range(got[0].chunks))
    np.testing.assert_array_equal(np.concatenate([c.audio for c in got]), result.takes[0].audio)
    assert None not in [t.take_id for t in result.takes]
    assert 0 < result.first_audio_seconds < result.seconds
    got.clear()
    plain = run.render(RenderRequest(PARAGRAPH, seeds=(3, 4), options=FAST, mode="design"))
    assert got == [] and plain.first_audio_seconds is None
    for a, b in zip(plain.takes, result.takes):  # streaming changes nothing in the takes
        np.testing.assert_array_equal(a.audio, b.audio)


def test_a_take_stored_before_quick_start_chunking_re_renders_as_it_was(run):
    """Takes saved by earlier versions have no chunking in their settings: they were
    rendered with the reference's chunking, and their re-render keeps it (identical)."""
    from dataclasses import asdict

    from studio.service.snapshot import options_of

    old = asdict(FAST)
    del old["chunking"], old["first_chunk_duration"]
    assert options_of(old).chunking == "reference"
    assert options_of(asdict(FAST)).chunking == "quick-start"
    then = run.render(RenderRequest(PARAGRAPH, seeds=(9,), mode="design",
                                    options=GenerationOptions(decode=FAST.decode,
                                                              chunking="reference")))
    with run.reader() as lib:
        take = next(t for t in lib.list() if t.id == then.takes[0].take_id)
    take.settings.options.pop("chunking")  # as an earlier version stored it
    again = run.render(request_from_take(take))
    np.testing.assert_array_equal(again.takes[0].audio, then.takes[0].audio)
