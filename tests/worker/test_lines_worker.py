"""The worker's lines job (the Script view's renders): lines batched by voice and
settings in script order, each saved as a take and sent as its batch ends, the
project's pronunciations applied, and a cancel or a failure keeping the lines before it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import studio.engine.engine as engine_module
from studio.engine.lexicon import Entry, Lexicon
from studio.engine.options import DecodeOptions, GenerationOptions
from studio.library.takes import TakeLibrary
from studio.service.lines import BATCH, batches
from studio.service.requests import LinesRequest, LoadRequest, RenderRequest
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for

FAST = GenerationOptions(decode=DecodeOptions(num_step=3), pad_duration=0.0)


def design(text: str, instruct: str, seed: int, **kw) -> RenderRequest:
    return RenderRequest(text, instruct=instruct, seeds=(seed,), options=FAST, mode="design", **kw)


class Run:
    def __init__(self, engine, folder):
        self.worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=folder)
        self.folder = folder
        self.lines, self.finished, self.failed, self.cancelled = [], [], [], []
        self.worker.load_model(LoadRequest(source="tiny-checkpoint", disk_cache=False))

    def render(self, request: LinesRequest, cancel: threading.Event | None = None) -> None:
        self.worker.render_lines(job_for(1, stop=cancel, lines=self.lines, done=self.finished,
                                         failed=self.failed, cancelled=self.cancelled), request)


@pytest.fixture
def run(engine, tmp_path, qapp):
    r = Run(engine, tmp_path / "data")
    yield r
    r.worker.release()


def test_lines_are_batched_by_voice_and_settings_in_script_order():
    alice = [design(f"Alice line {n}.", "female", n) for n in range(BATCH + 2)]
    bob = design("Bob speaks.", "male", 1)
    slow = RenderRequest("Bob, slowly.", instruct="male", seeds=(2,), mode="design",
                         options=GenerationOptions(decode=DecodeOptions(num_step=32)))
    cue = design("Bob, to a cue.", "male", 3, duration=2.0)
    lines = [bob, *alice[:3], slow, *alice[3:], cue]
    groups = batches(lines)
    assert groups[0] == [0]  # Bob's first line comes first: it is the script's first
    assert groups[1] == [1, 2, 3, 5, 6, 7, 8, 9] and groups[2] == [10, 11], "at most BATCH"
    assert groups[3] == [4], "other decoding settings: another engine call"
    assert groups[4] == [12], "a line filling a cue is never batched with free ones"
    assert sorted(i for g in groups for i in g) == list(range(len(lines)))


def test_each_line_is_saved_as_a_take_and_sent_with_its_key(run):
    request = LinesRequest((design("Good morning.", "female", 5), design("Morning.", "male", 6),
                            design("Did you sleep?", "female", 5)), (21, 22, 23))
    run.render(request)
    assert not run.failed and not run.cancelled
    assert [d.key for d in run.lines] == [21, 23, 22], "Alice's two lines in one call, first"
    [result] = run.finished
    assert result.rendered == 3 and result.audio_seconds > 0
    with TakeLibrary(run.folder, read_only=True) as library:
        for done, line in zip(run.lines, (request.lines[0], request.lines[2], request.lines[1])):
            take = library.get(done.take.take_id)
            assert take.settings.text == line.text and take.settings.seed == line.seeds[0]
            assert take.settings.instruct == line.instruct and take.settings.mode == "design"
            stored, rate = library.read_audio(take.id)
            assert rate == done.take.sample_rate
            assert np.abs(stored - done.take.audio).max() < 1e-4


def test_a_renders_takes_are_one_batch_and_the_next_render_another(run):
    """The takes list shows a render's lines together in line order (review 5, item 11):
    they were kept one batch a line, grouped by voice, and listed line 2 above line 3."""
    request = LinesRequest((design("Good morning.", "female", 5), design("Morning.", "male", 6),
                            design("Did you sleep?", "female", 5)), (21, 22, 23))
    run.render(request)
    run.render(LinesRequest(request.lines[:1], (21,)))  # New variation of line 1
    with TakeLibrary(run.folder, read_only=True) as library:
        batches_kept = [library.get(done.take.take_id).batch for done in run.lines]
    assert len(set(batches_kept[:3])) == 1, "one render, one batch"
    assert batches_kept[3] != batches_kept[0], "another render, another batch"


def test_a_line_renders_as_it_does_alone(run, engine):
    """Batched with another line of its voice, a line is the audio it is rendered alone."""
    from studio.engine.engine import SynthesisItem

    run.render(LinesRequest((design("Good morning.", "female", 5),
                             design("A longer second line for the batch.", "female", 9)),
                            (1, 2)))
    [alone] = engine.synthesize([SynthesisItem("Good morning.", instruct="female", seed=5)], FAST)
    assert np.abs(run.lines[0].take.audio - alone.audio).max() < 1e-4


def test_the_projects_pronunciations_reach_the_token_ids(run, monkeypatch):
    built = []
    original = engine_module.build_item

    def spy(tokenizer, text, *args, **kwargs):
        item = original(tokenizer, text, *args, **kwargs)
        built.append(item.cond_ids[0, : item.audio_start].tolist())
        return item

    monkeypatch.setattr(engine_module, "build_item", spy)
    tokenizer = run.worker.engine.tokenizer
    said = tokenizer("Zorblax", add_special_tokens=False).input_ids
    kept = tokenizer("Kowalczyk", add_special_tokens=False).input_ids

    def contains(haystack, needle):
        return any(haystack[i:i + len(needle)] == needle for i in range(len(haystack)))

    lexicon = Lexicon([Entry("Kowalczyk", "Zorblax")])
    run.render(LinesRequest((design("Ask Kowalczyk now.", "male", 1),), (1,), lexicon))
    assert contains(built[-1], said) and not contains(built[-1], kept)
    with TakeLibrary(run.folder, read_only=True) as library:
        assert library.get(run.lines[-1].take.take_id).settings.text == "Ask Kowalczyk now.", \
            "the take keeps the line's own text"
    run.render(LinesRequest((design("Ask Kowalczyk now.", "male", 1),), (1,)))
    assert contains(built[-1], kept)


def test_a_cancel_keeps_the_lines_rendered_before_it(run):
    cancel = threading.Event()

    class CancelAtFirst(list):  # the first line kept, after the first batch: cancel
        def append(self, done) -> None:
            super().append(done)
            cancel.set()

    run.lines = CancelAtFirst()
    run.render(LinesRequest((design("First voice.", "female", 1), design("Second voice.", "male", 2)),
                            (1, 2)), cancel)
    assert run.cancelled == [1] and not run.finished and not run.failed
    assert [d.key for d in run.lines] == [1]
    with TakeLibrary(run.folder, read_only=True) as library:
        assert [t.settings.text for t in library.list()] == ["First voice."]


def test_a_bad_pronunciations_file_is_one_sentence_and_nothing_renders(run):
    (run.folder / "pronunciations.json").write_text("{not json", encoding="utf-8")
    run.render(LinesRequest((design("Hello.", "female", 1),), (1,)))
    [sentence] = run.failed
    assert "not valid JSON" in sentence and "\n" not in sentence and not run.lines


def test_a_lines_takes_are_filed_under_its_project_and_line(run, tmp_path):
    project = str(tmp_path / "radio.ovproj")
    request = LinesRequest((design("One.", "female", 5, project=project, project_line=1),
                            design("Two.", "female", 5, project=project, project_line=2)),
                           (1, 2))
    assert batches(request.lines) == [[0, 1]], "the line number does not split a batch"
    run.render(request)
    assert not run.failed
    with TakeLibrary(run.folder, read_only=True) as library:
        takes = [library.get(done.take.take_id) for done in run.lines]
        assert [(t.settings.project, t.settings.project_line) for t in takes] == \
            [(project, 1), (project, 2)]
        assert {t.id for t in library.list(project=project)} == {t.id for t in takes}
