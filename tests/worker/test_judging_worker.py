"""The worker judges a Generate click's takes after the render and before ``done``: the
judgement reaches TakeAudio and the take library; judging off costs nothing; render
until one passes stops at the first passing take; a judge that fails never costs a take.

A random checkpoint renders noise, so these check that a judgement is there and well
formed, not its value (tests/judges shows the judges on real speech)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from studio.engine.options import DecodeOptions, GenerationOptions
from studio.judges.scores import BAD, NOT_JUDGED, OK, Judgement
from studio.library.takes import TakeLibrary
from studio.service.judging import Judges, TakeJudgement
from studio.service.requests import (
    JudgingSettings,
    LinesRequest,
    LoadRequest,
    RenderRequest,
)
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for

FAST = GenerationOptions(decode=DecodeOptions(num_step=3), pad_duration=0.0)
JUDGING_ON = JudgingSettings()
pytestmark = pytest.mark.usefixtures("one_torch_thread")


class Run:
    """A worker on this thread (slots called directly) and what its jobs reported."""

    def __init__(self, engine, folder, judging: JudgingSettings | None, **load):
        self.worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=folder)
        self.folder = folder
        self.done, self.failed, self.stages, self.lines = [], [], [], []
        self.changed = []
        self.worker.takes_changed.connect(lambda: self.changed.append(1))
        self.worker.load_model(LoadRequest(source="tiny-checkpoint", disk_cache=False,
                                           judging=judging, **load))
        self.changed.clear()

    def render(self, request):
        job = job_for(len(self.done) + 1, done=self.done, failed=self.failed,
                      stages=self.stages, lines=self.lines)
        if isinstance(request, LinesRequest):
            self.worker.render_lines(job, request)
        else:
            self.worker.render(job, request)
        assert not self.failed, self.failed
        return self.done[-1]

    def stored(self, take_id: str):
        with TakeLibrary(self.folder, read_only=True) as library:
            return library.get(take_id).judgements


@pytest.fixture
def make_run(engine, tmp_path, qapp):
    made = []

    def make(judging=JUDGING_ON, **load):
        run = Run(engine, tmp_path / f"data{len(made)}", judging, **load)
        made.append(run)
        return run

    yield make
    for run in made:
        run.worker.release()


def well_formed(judgement: dict) -> TakeJudgement:
    result = TakeJudgement.from_dict(judgement)
    assert [j.judge for j in result.judgements] == ["voice", "words", "sound"]
    for j in result.judgements:
        assert j.explanation.endswith(".") and "\n" not in j.explanation
        assert j.score is None or 0.0 <= j.score <= 1.0
    return result


def test_the_takes_of_a_render_are_judged_together_and_stored_with_each_take(make_run):
    run = make_run()
    result = run.render(RenderRequest("Two takes to judge.", seeds=(1, 2), options=FAST,
                                      mode="design"))
    assert len(result.takes) == 2
    for take in result.takes:
        judged = well_formed(take.judgement)
        assert judged.get("sound").verdict != NOT_JUDGED  # DNSMOS ran on the take
        # a design has no reference clip: the voice is compared with the other take
        assert judged.get("voice").details["against"] == "the other takes"
        assert judged.get("words").verdict == NOT_JUDGED  # no Whisper on this computer
        assert run.stored(take.take_id) == take.judgement
    assert run.stages[-2:] == ["Judging take 1 of 2 …", "Judging take 2 of 2 …"]
    assert run.changed == [1], "the takes are listed once, judged"


def test_judging_off_judges_nothing_and_loads_no_judge(make_run):
    run = make_run(JudgingSettings(enabled=False))
    result = run.render(RenderRequest("Not judged.", seeds=(1,), options=FAST, mode="design"))
    assert result.takes[0].judgement is None and run.stored(result.takes[0].take_id) is None
    assert run.worker._judges is None and run.stages == [] and run.changed == [1]


def test_a_clone_is_judged_against_its_reference_clip(make_run, tmp_path, speech):
    import soundfile as sf

    clip = tmp_path / "ref.wav"
    sf.write(clip, speech(2.0), 24000)
    run = make_run()
    result = run.render(RenderRequest("Cloned and judged.", reference=clip,
                                      ref_text="Some words here.", seeds=(3,), options=FAST))
    voice = well_formed(result.takes[0].judgement).get("voice")
    assert voice.details["against"] == "the reference clip"


class Verdicts:
    """A Judges double: the combined score of each take judged, in the order given."""

    def __init__(self, scores):
        self.scores, self.seen, self.weights, self.recognise = list(scores), [], None, None

    def judge_takes(self, takes, text, language=None, reference=None, heard=None,
                    on_take=None):
        out = []
        for _take in takes:
            score = self.scores[len(self.seen)]
            self.seen.append(score)
            verdict = OK if score >= 0.5 else BAD
            found = (Judgement("sound", score, verdict, f"Score {score}."),)
            out.append(TakeJudgement(found, score))
        return out


def test_render_until_one_passes_stops_at_the_first_passing_take(make_run):
    run = make_run(JudgingSettings(pass_at=0.6))
    run.worker._judges = Verdicts([0.3, 0.9, 0.95, 0.99])
    result = run.render(RenderRequest("Until one passes.", seeds=(10, 11, 12, 13),
                                      options=FAST, mode="design", until_pass=True))
    assert run.worker._judges.seen == [0.3, 0.9], "stopped at the first take that passed"
    assert [t.seed for t in result.takes] == [10, 11]
    assert [t.judgement["combined"] for t in result.takes] == [0.3, 0.9]
    assert result.judging_note.startswith("Take 2/2 passed")
    assert "Rendering take 2 of at most 4 …" in run.stages
    with TakeLibrary(run.folder, read_only=True) as library:
        takes = library.list()
        assert len(takes) == 2 and {t.batch for t in takes} == {result.batch}
        assert sorted(t.judgements["combined"] for t in takes) == [0.3, 0.9]


def test_render_until_one_passes_says_so_when_none_did(make_run):
    run = make_run(JudgingSettings(pass_at=0.6))
    run.worker._judges = Verdicts([0.3, 0.5, 0.2])
    result = run.render(RenderRequest("None pass.", seeds=(1, 2, 3), options=FAST,
                                      mode="design", until_pass=True))
    assert len(result.takes) == 3
    assert result.judging_note.startswith("None of the 3 takes passed: the best, 2/3, scored "
                                          "50; a pass needs 60")


def test_a_judge_that_raises_leaves_the_take_saved_and_says_not_judged(make_run, monkeypatch):
    def broken(self, audio, rate):
        raise RuntimeError("the sound judge broke")

    monkeypatch.setattr(Judges, "sound", broken)
    run = make_run()
    result = run.render(RenderRequest("Judge broke.", seeds=(1,), options=FAST, mode="design"))
    take = result.takes[0]
    sound = well_formed(take.judgement).get("sound")
    assert sound.verdict == NOT_JUDGED and sound.explanation.startswith("Sound not judged")
    with TakeLibrary(run.folder, read_only=True) as library:
        assert library.get(take.take_id).judgements == take.judgement
        assert np.abs(library.read_audio(take.take_id)[0] - take.audio).max() < 1e-6


def test_judging_that_fails_outright_still_delivers_the_saved_take(make_run, monkeypatch):
    run = make_run()
    monkeypatch.setattr("studio.service.judging.judge_request",
                        lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
    result = run.render(RenderRequest("Still here.", seeds=(1,), options=FAST, mode="design"))
    assert result.takes[0].take_id is not None and result.takes[0].judgement is None
    assert run.changed == [1], "listed all the same"


class Heard:
    """A transcriber with word times that counts its passes."""

    def __init__(self):
        self.calls = 0

    def __call__(self, wave, rate):
        raise AssertionError("the ASR check must use the pass with word times")

    def words(self, wave, rate, language=None):
        self.calls += 1
        return [("words", 0.1, 0.4), ("heard", 0.5, 0.9)]


def test_the_words_judge_reuses_the_asr_check_transcript(make_run):
    run = make_run(asr_check=True)
    heard = Heard()
    run.worker.prompts.transcriber_factory = lambda: heard
    result = run.render(RenderRequest("Words heard.", seeds=(1, 2), options=FAST,
                                      mode="design"))
    assert heard.calls == 2, "one recogniser pass per take, shared by the check and the judge"
    for take in result.takes:
        words = well_formed(take.judgement).get("words")
        assert words.verdict == OK and words.score == 1.0
    with TakeLibrary(run.folder, read_only=True) as library:
        assert all(library.get(t.take_id).asr_cer == 0.0 for t in result.takes)


def test_each_script_line_take_is_judged_and_stored(make_run):
    run = make_run()
    lines = tuple(RenderRequest(f"Line {n}.", instruct="female", seeds=(n,), options=FAST,
                                mode="design") for n in (1, 2))
    result = run.render(LinesRequest(lines, keys=(7, 8)))
    assert result.rendered == 2 and len(run.lines) == 2
    for done in run.lines:
        judged = well_formed(done.take.judgement)
        assert judged.get("sound").verdict != NOT_JUDGED
        assert run.stored(done.take.take_id) == done.take.judgement


class TextOnly:
    """A transcriber without word times (a plain callable) that counts its passes."""

    def __init__(self):
        self.calls = 0

    def __call__(self, wave, rate):
        self.calls += 1
        return "words heard"


def test_a_transcriber_without_word_times_still_feeds_the_words_judge_once(make_run):
    run = make_run(asr_check=True)
    heard = TextOnly()
    run.worker.prompts.transcriber_factory = lambda: heard
    result = run.render(RenderRequest("Words heard.", seeds=(1, 2), options=FAST,
                                      mode="design"))
    assert heard.calls == 2, "one pass per take"
    for take in result.takes:
        words = well_formed(take.judgement).get("words")
        assert words.verdict == OK and words.details["changes"] == []


def test_new_weights_apply_to_the_loaded_judges_at_once(make_run):
    run = make_run()
    run.render(RenderRequest("Weighed.", seeds=(1,), options=FAST, mode="design"))
    judges = run.worker._judges
    run.worker.set_judging(JudgingSettings(weights=(("voice", 1.0), ("words", 0.0),
                                                    ("sound", 0.0))))
    assert run.worker._judges is judges, "the loaded judges are kept"
    assert judges.weights == {"voice": 1.0, "words": 0.0, "sound": 0.0}


def test_new_weights_score_the_takes_judged_already(make_run):
    """The review raised Sound's weight and saw old takes keep their scores while new ones
    were weighed anew, and "Best score first" ranked the two together."""
    run = make_run()
    result = run.render(RenderRequest("Weighed again.", seeds=(1, 2), options=FAST,
                                      mode="design"))
    listed = []
    run.worker.takes_changed.connect(lambda: listed.append(True))
    run.worker.set_judging(JudgingSettings(weights=(("voice", 0.0), ("words", 0.0),
                                                    ("sound", 1.0))))
    with TakeLibrary(run.folder, read_only=True) as library:
        for take in result.takes:
            stored = library.get(take.take_id).judgements
            sound = next(j for j in stored["judgements"] if j["judge"] == "sound")
            assert stored["combined"] == round(sound["score"], 4)  # sound alone counts now
    assert listed, "the takes list hears of the new scores"


def test_a_cancel_between_takes_keeps_the_takes_rendered(make_run):
    run = make_run(JudgingSettings(pass_at=0.6))
    stop = threading.Event()

    class CancelAfterFirst(Verdicts):
        def judge_takes(self, *args, **kwargs):
            stop.set()  # the user presses Cancel while the first take is judged
            return super().judge_takes(*args, **kwargs)

    run.worker._judges = CancelAfterFirst([0.3, 0.9])
    job = job_for(1, stop=stop, done=run.done, failed=run.failed)
    run.worker.render(job, RenderRequest("Cancel me.", seeds=(1, 2, 3), options=FAST,
                                         mode="design", until_pass=True))
    [result] = run.done
    assert len(result.takes) == 1 and result.takes[0].take_id is not None
    assert "Cancelled after take 1 of at most 3; the takes rendered are kept." in result.warnings
