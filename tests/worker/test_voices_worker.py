"""Saved voices through the worker: it is their one writer, encodes a new voice once
through the prompt cache, and renders a saved voice from its stored prompt."""

from __future__ import annotations

import pytest
import soundfile as sf

from studio.engine.options import DecodeOptions, GenerationOptions
from studio.library.takes import TakeLibrary
from studio.library.voices import VoiceLibrary
from studio.service.requests import LoadRequest, RenderRequest, VoiceSaveRequest
from studio.worker.worker import InferenceWorker
from tests.job_log import job_for

SAME = GenerationOptions(decode=DecodeOptions(num_step=4, position_temperature=0.0,
                                              class_temperature=0.0))


class Run:
    """A worker on this thread (slots called directly), counting the engine's encodes."""

    def __init__(self, engine, folder, monkeypatch):
        self.worker = InferenceWorker(load_engine=lambda *a, **k: engine, data_dir=folder)
        self.folder = folder
        self.saved, self.failed, self.finished, self.changed, self.refused = [], [], [], [], []
        self.worker.voices_changed.connect(lambda: self.changed.append(1))
        self.worker.voices_failed.connect(self.refused.append)
        self.worker.load_model(LoadRequest(source="tiny", disk_cache=True))
        self.changed.clear()  # the load purges last session's deleted voices, and says so
        self.encodes = 0
        original = engine.create_prompt

        def counting(*args, **kwargs):
            self.encodes += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(engine, "create_prompt", counting)

    def reader(self) -> VoiceLibrary:
        return VoiceLibrary(self.folder, read_only=True)

    def saving(self, number: int):
        return job_for(number, done=self.saved, failed=self.failed)

    def rendering(self, number: int):
        return job_for(number, done=self.finished, failed=self.failed)


@pytest.fixture
def run(engine, tmp_path, qapp, monkeypatch):
    r = Run(engine, tmp_path / "data", monkeypatch)
    yield r
    r.worker.release()


@pytest.fixture
def clip(tmp_path, speech):
    path = tmp_path / "me.wav"
    sf.write(path, speech(3.0), 24000)
    return path


def test_save_encodes_once_and_a_render_reads_the_stored_prompt(run, clip):
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    assert run.failed == [] and len(run.saved) == 1 and run.changed == [1]
    assert run.encodes == 1
    with run.reader() as library:
        voice = library.get(run.saved[0])
        assert voice.name == "Me" and voice.transcript == "Some words here."
        assert voice.cache_key in library.cache_keys()  # pruning spares its cache entry

    request = RenderRequest("New words.", reference=clip, ref_text="Some words here.",
                            voice_id=voice.id, seeds=(3,), options=SAME)
    run.worker.render(run.rendering(2), request)
    assert run.failed == []
    [result] = run.finished
    assert result.prompt_source == "disk" and run.encodes == 1  # no second encode
    with TakeLibrary(run.folder, read_only=True) as takes:
        [(key, label)] = takes.voices()
        assert (key, label) == (voice.id, "Me")  # the take lists its voice by name


def test_a_deleted_voice_renders_from_its_clip(run, clip):
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    run.worker.delete_voice(run.saved[0])
    assert run.refused == [] and run.changed == [1, 1]
    request = RenderRequest("New words.", reference=clip, ref_text="Some words here.",
                            voice_id=run.saved[0], seeds=(3,), options=SAME)
    run.worker.render(run.rendering(2), request)
    assert run.failed == [] and run.finished[0].prompt_source in {"memory", "disk", "encoded"}


@pytest.mark.parametrize("make, says", [
    (lambda clip, tmp: VoiceSaveRequest("me", clip, "x"), "A voice named 'me' already exists"),
    (lambda clip, tmp: VoiceSaveRequest("Short", _clip(tmp, 0.5), "x"), "too short for a voice"),
    (lambda clip, tmp: VoiceSaveRequest("Text", _text(tmp), "x"), "is not audio"),
    (lambda clip, tmp: VoiceSaveRequest("  ", clip, "x"), "The voice name is empty"),
])
def test_a_refused_save_is_one_sentence_and_writes_nothing(run, clip, tmp_path, make, says):
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    encodes, before = run.encodes, sorted(p.name for p in (run.folder / "voices").iterdir())
    run.worker.save_voice(run.saving(2), make(clip, tmp_path))
    [sentence] = run.failed
    assert says in sentence and "\n" not in sentence and sentence.endswith(".")
    assert run.encodes == encodes and len(run.saved) == 1
    assert sorted(p.name for p in (run.folder / "voices").iterdir()) == before
    with run.reader() as library:
        assert [v.name for v in library.list()] == ["Me"]


def test_a_save_that_replaces_takes_the_name_and_keeps_the_attributes(run, clip, tmp_path):
    """A take's Save as voice… may replace a voice of that name (the dialog asks)."""
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Margaret", clip, "Old words."))
    other = _clip(tmp_path, 2.0)
    run.worker.save_voice(run.saving(2), VoiceSaveRequest(
        "margaret", other, "New words.", replace=True, instruct="female, elderly"))
    assert run.failed == [] and len(run.saved) == 2
    with run.reader() as library:
        [voice] = library.list()
        assert voice.id == run.saved[1] and voice.name == "margaret"
        assert (voice.transcript, voice.instruct) == ("New words.", "female, elderly")
    run.worker.undelete_voice(run.saved[0])  # the one replaced: refused while the name is taken
    assert "another voice has its name now" in run.refused[0]


def test_a_replacing_save_that_fails_keeps_the_old_voice(run, clip, tmp_path, monkeypatch):
    from studio.library.voices import VoiceLibrary

    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Margaret", clip, "Old words."))

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(VoiceLibrary, "create", full_disk)
    run.worker.save_voice(run.saving(2), VoiceSaveRequest(
        "Margaret", _clip(tmp_path, 2.0), "New words.", replace=True))
    assert len(run.failed) == 1 and len(run.saved) == 1
    with run.reader() as library:
        [voice] = library.list()
        assert (voice.id, voice.transcript) == (run.saved[0], "Old words.")


def test_rename_clash_is_refused_through_voices_failed(run, clip):
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Words."))
    run.worker.save_voice(run.saving(2), VoiceSaveRequest("You", clip, "Words."))
    run.worker.rename_voice(run.saved[1], "ME")
    [sentence] = run.refused
    assert "already exists" in sentence
    with run.reader() as library:
        assert sorted(v.name for v in library.list()) == ["Me", "You"]


def _clip(folder, seconds):
    import numpy as np

    path = folder / f"clip-{seconds}.wav"
    sf.write(path, np.sin(np.arange(int(seconds * 24000)) / 10).astype("float32") * 0.3, 24000)
    return path


def _text(folder):
    path = folder / "notes.wav"
    path.write_text("not audio")
    return path


def test_a_take_names_its_voice_as_it_is_called_now(run, clip):
    from studio.views.takes_model import voice_text

    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    voice_id = run.saved[0]
    run.worker.render(run.rendering(2), RenderRequest("New words.", reference=clip, ref_text="Some words here.",
                                       voice_id=voice_id, seeds=(3,), options=SAME))
    take_id = run.finished[0].takes[0].take_id

    def shown() -> str:
        with TakeLibrary(run.folder, read_only=True) as takes:
            return voice_text(takes.get(take_id))

    assert shown() == "Me"
    run.worker.rename_voice(voice_id, "Myself")
    assert shown() == "Myself"
    run.worker.delete_voice(voice_id)
    assert shown() == "Me"  # the name it had when the take was rendered


def test_edits_import_and_export_through_the_worker(run, clip, tmp_path):
    notes = []
    run.worker.voices_note.connect(notes.append)
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    voice_id = run.saved[0]
    run.worker.update_voice(voice_id, {"tags": ("calm",), "notes": "Night reads."})
    run.worker.set_voice_transcript(voice_id, "Some other words.")
    run.worker.duplicate_voice(voice_id)
    bundle = tmp_path / "me.ovoice"
    run.worker.export_voice(voice_id, bundle)
    run.worker.delete_voice(voice_id)
    run.worker.import_voice(bundle)  # the name is free again: it keeps it
    run.worker.undelete_voice(voice_id)  # now "Me" is taken by the import
    assert run.refused == ["The voice 'Me' cannot be restored because another voice has its "
                           "name now; rename that one first."]
    assert notes == ["Saved a copy as 'Me copy'.", f"Exported the voice to {bundle}.",
                     "Imported the voice 'Me'."]
    with run.reader() as library:
        me = library.find("me")
        assert (me.tags, me.transcript) == (("calm",), "Some other words.")
        assert sorted(v.name for v in library.list()) == ["Me", "Me copy"]


def test_a_render_in_a_voice_counts_as_its_use(run, clip):
    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Some words here."))
    for job in (2, 3):
        run.worker.render(run.rendering(job), RenderRequest("New words.", reference=clip, voice_id=run.saved[0],
                                             ref_text="Some words here.", seeds=(3,),
                                             options=SAME))
    with run.reader() as library:
        assert library.get(run.saved[0]).use_count == 2
    # Review 6: a card said "2 takes" beside three listed; a batch counts each take.
    run.worker.render(run.rendering(4), RenderRequest("New words.", reference=clip, voice_id=run.saved[0],
                                         ref_text="Some words here.", seeds=(3, 4, 5),
                                         options=SAME))
    with run.reader() as library:
        assert library.get(run.saved[0]).use_count == 5


def test_undo_lasts_the_session(engine, tmp_path, qapp, monkeypatch, clip):
    first = Run(engine, tmp_path / "data", monkeypatch)
    first.worker.save_voice(first.saving(1), VoiceSaveRequest("Me", clip, "Words."))
    first.worker.delete_voice(first.saved[0])
    first.worker.release()
    second = Run(engine, tmp_path / "data", monkeypatch)  # the next start purges it
    second.worker.undelete_voice(first.saved[0])
    assert second.refused == ["The deleted voice cannot be restored any more; save it again "
                              "from its clip."]
    assert not (tmp_path / "data" / "voices" / first.saved[0]).exists()
    second.worker.release()


def test_a_trimmed_clip_is_its_own_prompt_cache_entry(run, clip, tmp_path):
    """The cache keys on the audio: the trimmed file encodes once, then hits."""
    import soundfile as sf

    audio, rate = sf.read(clip, dtype="float32")
    trimmed = tmp_path / "me 0.5-2.5s.wav"
    sf.write(trimmed, audio[rate // 2: rate * 5 // 2], rate)

    def render(job, reference):
        run.worker.render(run.rendering(job), RenderRequest("New words.", reference=reference, ref_text="Words.",
                                             seeds=(3,), options=SAME))
        return run.finished[-1].prompt_source

    assert render(1, clip) == "encoded"
    assert render(2, trimmed) == "encoded" and run.encodes == 2
    assert render(3, trimmed) == "memory" and run.encodes == 2


@pytest.mark.parametrize("damage", ["truncated", "tampered"])
def test_a_damaged_bundle_is_refused_in_one_sentence(run, clip, tmp_path, damage):
    from tests.library.library_helpers import tampered_copy

    run.worker.save_voice(run.saving(1), VoiceSaveRequest("Me", clip, "Words."))
    bundle = tmp_path / "me.ovoice"
    run.worker.export_voice(run.saved[0], bundle)
    bad = tmp_path / "bad.ovoice"
    if damage == "truncated":
        bad.write_bytes(bundle.read_bytes()[:400])
    else:
        tampered_copy(bundle, bad)
    before = sorted(p.name for p in (run.folder / "voices").iterdir())
    run.worker.import_voice(bad)
    [sentence] = run.refused
    assert sentence.startswith("The voice file bad.ovoice cannot be imported because ")
    assert "\n" not in sentence and sentence.endswith(".")
    assert sorted(p.name for p in (run.folder / "voices").iterdir()) == before
    with run.reader() as library:
        assert [v.name for v in library.list()] == ["Me"]
