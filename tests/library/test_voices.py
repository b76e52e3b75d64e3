"""Saved voices: create, read, change, delete, search, and what a failure leaves."""

from __future__ import annotations

import time
from datetime import timezone

import pytest
import torch
from library_helpers import make_prompt, one_sentence, snapshot

from studio.engine.options import MAX_SEED
from studio.engine.prompt import VoicePrompt
from studio.errors import UserError
from studio.library.fields import MAX_NAME_CHARS
from studio.library.voices import Voice, VoiceLibrary, VoiceNotFound


def test_create_stores_the_clip_byte_for_byte_and_the_prompt(library, make_clip):
    clip = make_clip("Reference.FLAC")
    prompt = make_prompt(1)
    voice = library.create("  Narrator  ", clip, prompt, tags=["calm", " warm "], cache_key="k1")
    assert isinstance(voice, Voice) and len(voice.id) == 32
    assert voice.name == "Narrator"
    assert voice.transcript == "Hello."  # defaults to the prompt's text
    assert (voice.instruct, voice.seed, voice.language) == (None, None, None)
    assert voice.tags == ("calm", "warm")
    assert voice.clip == "clip.flac"
    assert voice.created.tzinfo is timezone.utc and voice.created == voice.updated
    folder = library.voices_dir / voice.id
    assert sorted(p.name for p in folder.iterdir()) == ["clip.flac", "prompt.pt"]
    assert library.clip_path(voice.id).read_bytes() == clip.read_bytes()
    loaded = library.load_prompt(voice.id, codebooks=8)
    assert torch.equal(loaded.tokens, prompt.tokens) and loaded.text == "Hello." and loaded.rms == 0.05
    assert library.get(voice.id) == voice


def test_with_clip_finds_the_voice_a_clip_was_saved_as(library, make_clip):
    clip = make_clip("take.wav", seed=1)
    voice = library.create("Narrator", clip, make_prompt())
    same_size = make_clip("other.wav", seed=2)  # same length, other samples
    assert same_size.stat().st_size == clip.stat().st_size
    assert library.with_clip(clip) == voice
    assert library.with_clip(same_size) is None
    assert library.with_clip(make_clip("longer.wav", seconds=0.7)) is None
    assert library.with_clip(clip.parent / "gone.wav") is None  # unreadable: nothing to say


def test_create_takes_all_fields(library, make_clip):
    voice = library.create(
        "Design", make_clip(), make_prompt(), transcript="Other words.", instruct="female, low pitch",
        seed=42, tags=("a",), language="en", cache_key="abc",
    )
    assert (voice.transcript, voice.instruct, voice.seed, voice.tags, voice.language, voice.cache_key) == (
        "Other words.", "female, low pitch", 42, ("a",), "en", "abc"
    )


def test_list_is_newest_first_and_get_finds_each(library, make_clip):
    made = [library.create(f"Voice {n}", make_clip(), make_prompt(n)) for n in range(3)]
    assert [v.id for v in library.list()] == [v.id for v in reversed(made)]
    for voice in made:
        assert library.get(voice.id) == voice


@pytest.mark.parametrize("bad_id", ["0" * 32, "../etc", "", None, "ABCDEF" * 6])
def test_get_of_an_unknown_id_is_one_sentence(library, bad_id):
    with pytest.raises(VoiceNotFound) as info:
        library.get(bad_id)
    assert isinstance(info.value, UserError) and one_sentence(str(info.value))


def test_rename(library, make_clip):
    voice = library.create("Old", make_clip(), make_prompt())
    time.sleep(0.001)
    renamed = library.rename(voice.id, " New name ")
    assert renamed.name == "New name" and renamed.updated > voice.updated
    assert renamed.created == voice.created
    assert library.rename(voice.id, "NEW NAME").name == "NEW NAME"  # its own name, another case


@pytest.mark.parametrize(
    "name, match",
    [
        ("", "empty"),
        ("   \t ", "empty"),
        ("x" * (MAX_NAME_CHARS + 1), "more than the 100 allowed"),
        (7, "not text"),
    ],
)
def test_name_rules(library, make_clip, name, match):
    with pytest.raises(UserError, match=match) as info:
        library.create(name, make_clip(), make_prompt())
    assert one_sentence(str(info.value))
    voice = library.create("Fine", make_clip(), make_prompt())
    with pytest.raises(UserError, match=match):
        library.rename(voice.id, name)
    assert library.get(voice.id).name == "Fine"


def test_names_are_unique_ignoring_case(library, make_clip):
    library.create("Anna", make_clip(), make_prompt())
    other = library.create("Bob", make_clip(), make_prompt())
    before = snapshot(library)
    for attempt in ("anna", " ANNA ", "Ａｎｎａ"):  # the last one in full-width letters
        with pytest.raises(UserError, match="already exists") as info:
            library.create(attempt, make_clip(), make_prompt())
        assert one_sentence(str(info.value))
        with pytest.raises(UserError, match="already exists"):
            library.rename(other.id, attempt)
    assert snapshot(library) == before
    assert library.create("x" * MAX_NAME_CHARS, make_clip(), make_prompt()).name == "x" * 100


def test_update_fields(library, make_clip):
    voice = library.create("V", make_clip(), make_prompt(), tags=["one"])
    changed = library.update(voice.id, instruct=" male ", seed=MAX_SEED, tags=["b", "B", "", "c"],
                             language="de", cache_key="key2")
    assert (changed.instruct, changed.seed, changed.tags, changed.language, changed.cache_key) == (
        "male", MAX_SEED, ("b", "c"), "de", "key2"
    )
    assert changed.updated > voice.updated and changed.name == "V"
    cleared = library.update(voice.id, instruct=None, seed=None, tags=(), language="", cache_key=None)
    assert (cleared.instruct, cleared.seed, cleared.tags, cleared.language, cleared.cache_key) == (
        None, None, (), None, None
    )
    assert library.update(voice.id) == cleared


@pytest.mark.parametrize(
    "changes",
    [{"seed": -1}, {"seed": MAX_SEED + 1}, {"seed": 1.5}, {"seed": True}, {"tags": "one,two"},
     {"tags": ["x" * 51]}, {"tags": [str(n) for n in range(33)]}, {"instruct": "x" * 1001},
     {"language": 5}],
)
def test_update_refuses_bad_values_with_one_sentence(library, make_clip, changes):
    voice = library.create("V", make_clip(), make_prompt())
    with pytest.raises(UserError) as info:
        library.update(voice.id, **changes)
    assert one_sentence(str(info.value))
    assert library.get(voice.id) == voice


def test_update_of_other_fields_is_a_programming_error(library, make_clip):
    voice = library.create("V", make_clip(), make_prompt())
    with pytest.raises(TypeError):
        library.update(voice.id, name="W")


def test_delete_removes_row_and_folder(library, make_clip):
    keep = library.create("Keep", make_clip(), make_prompt())
    gone = library.create("Gone", make_clip(), make_prompt())
    library.delete(gone.id)
    assert [v.id for v in library.list()] == [keep.id]
    assert not (library.voices_dir / gone.id).exists()
    with pytest.raises(VoiceNotFound):
        library.delete(gone.id)
    assert library.create("Gone", make_clip(), make_prompt()).name == "Gone"  # the name is free again


def test_search_over_name_tags_and_transcript(library, make_clip):
    a = library.create("Deep Narrator", make_clip(), make_prompt(text="Once upon a time."), tags=["Story"])
    b = library.create("Cheerful", make_clip(), make_prompt(text="Good MORNING everyone."), tags=["ads"])
    c = library.create("Ünïcode Straße", make_clip(), make_prompt(text="Hi."))
    ids = lambda voices: [v.id for v in voices]  # noqa: E731
    assert ids(library.search("narrator")) == [a.id]
    assert ids(library.search("STORY")) == [a.id]
    assert ids(library.search("morning")) == [b.id]
    assert ids(library.search("strasse")) == [c.id]  # casefold: ß matches ss
    assert ids(library.search("deep upon")) == [a.id]  # every word must match somewhere
    assert ids(library.search("deep morning")) == []
    assert ids(library.search("  ")) == ids(library.list()) == [c.id, b.id, a.id]


def test_persists_across_instances(library, make_clip):
    voice = library.create("Kept", make_clip(), make_prompt(3), seed=9, tags=["t"], cache_key="ck")
    expected = library.update(voice.id, language="fr")
    library.close()
    with VoiceLibrary(library.root) as again:
        assert again.list() == [expected]
        assert (expected.name, expected.seed, expected.tags, expected.language) == ("Kept", 9, ("t",), "fr")
        assert torch.equal(again.load_prompt(voice.id).tokens, make_prompt(3).tokens)
        assert again.cache_keys() == {"ck"}


def test_cache_keys(library, make_clip):
    assert library.cache_keys() == set()
    a = library.create("A", make_clip(), make_prompt(), cache_key="k1")
    library.create("B", make_clip(), make_prompt(), cache_key="k2")
    library.create("C", make_clip(), make_prompt())
    library.create("D", make_clip(), make_prompt(), cache_key="k1")
    assert library.cache_keys() == {"k1", "k2"}
    library.update(a.id, cache_key="k3")
    assert library.cache_keys() == {"k1", "k2", "k3"}


# -- failures leave nothing behind ---------------------------------------------


def test_create_with_a_missing_clip_leaves_nothing(library, tmp_path):
    before = snapshot(library)
    with pytest.raises(UserError, match="does not exist") as info:
        library.create("V", tmp_path / "nope.wav", make_prompt())
    assert one_sentence(str(info.value))
    assert snapshot(library) == before


def test_create_with_an_unreadable_clip_leaves_nothing(library, tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF not really a wave file")
    with pytest.raises(UserError, match="cannot be read") as info:
        library.create("V", bad, make_prompt())
    assert one_sentence(str(info.value))
    assert snapshot(library) == ([], [])


def test_create_with_an_odd_extension_is_refused(library, make_clip):
    odd = make_clip().rename(make_clip().parent / "ref.w av")
    with pytest.raises(UserError, match="extension"):
        library.create("V", odd, make_prompt())
    assert snapshot(library) == ([], [])


def test_prompt_save_failure_leaves_no_row_and_no_folder(library, make_clip, monkeypatch):
    library.create("Before", make_clip(), make_prompt())
    before = snapshot(library)

    def broken_save(self, path):
        path.write_bytes(b"half a prompt")  # something was written before the failure
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(VoicePrompt, "save", broken_save)
    with pytest.raises(UserError, match="No space left on device") as info:
        library.create("V", make_clip(), make_prompt())
    assert one_sentence(str(info.value))
    assert snapshot(library) == before


def test_database_failure_after_the_rename_removes_the_folder(library, make_clip, monkeypatch):
    before = snapshot(library)

    def failing_transaction():
        raise RuntimeError("database is locked")

    monkeypatch.setattr(library._db, "transaction", failing_transaction)
    with pytest.raises(RuntimeError):
        library.create("V", make_clip(), make_prompt())
    monkeypatch.undo()
    assert snapshot(library) == before


def test_sweep_removes_old_orphans_only(library, make_clip):
    import os

    kept = library.create("Kept", make_clip(), make_prompt())
    orphan = library.voices_dir / ("ab" * 16)
    staging = library.voices_dir / ".new-something"
    fresh = library.voices_dir / ("cd" * 16)
    for folder in (orphan, staging, fresh):
        folder.mkdir()
        (folder / "prompt.pt").write_bytes(b"x")
    old = time.time() - 7200
    for folder in (orphan, staging, library.voices_dir / kept.id):
        os.utime(folder, (old, old))
    assert library.sweep_orphans() == 2
    assert sorted(p.name for p in library.voices_dir.iterdir()) == sorted(
        [kept.id, fresh.name, "recovered"])
    assert [p.name for p in (library.voices_dir / "recovered").iterdir()] == [orphan.name]


def test_a_database_moved_aside_never_costs_a_voice(tmp_path, make_clip):
    """The damaged-library sentence says to move library.sqlite aside; the voices whose
    rows it holds are kept, and come back with it."""
    import os

    root = tmp_path / "data"
    with VoiceLibrary(root) as library:
        voice = library.create("Narrator", make_clip(seconds=1.0), make_prompt())
        clip = library.clip_path(voice.id).read_bytes()
    old = time.time() - 7200  # older than any create in progress
    os.utime(root / "voices" / voice.id, (old, old))
    aside = tmp_path / "aside"
    aside.mkdir()
    for name in os.listdir(root):
        if name.startswith("library.sqlite"):
            os.replace(root / name, aside / name)

    with VoiceLibrary(root) as fresh:  # a new, empty library
        assert fresh.list() == []
    assert (root / "voices" / "recovered" / voice.id / "clip.wav").read_bytes() == clip

    for name in os.listdir(root):
        if name.startswith("library.sqlite"):
            os.remove(root / name)
    for name in os.listdir(aside):
        os.replace(aside / name, root / name)
    with VoiceLibrary(root) as restored:
        [back] = restored.list()
        assert back.id == voice.id and restored.clip_path(voice.id).read_bytes() == clip


def test_an_undoable_delete_hides_the_voice_frees_its_name_and_comes_back(library, make_clip):
    voice = library.create("Narrator", make_clip(), make_prompt())
    library.delete(voice.id, undoable=True)
    assert library.list() == [] and not library.name_taken("narrator")
    assert (library.voices_dir / voice.id).is_dir()  # the files stay until purged
    with pytest.raises(VoiceNotFound):
        library.get(voice.id)
    restored = library.undelete(voice.id)
    assert restored.name == "Narrator" and [v.id for v in library.list()] == [voice.id]


def test_undo_after_the_name_was_taken_is_one_sentence(library, make_clip):
    voice = library.create("Narrator", make_clip(), make_prompt())
    library.delete(voice.id, undoable=True)
    library.create("NARRATOR", make_clip(seed=2), make_prompt())
    with pytest.raises(UserError) as refused:
        library.undelete(voice.id)
    assert one_sentence(str(refused.value)) and "another voice has its name" in str(refused.value)


def test_purge_removes_undoable_deletes_for_good(library, make_clip):
    keep = library.create("Keep", make_clip(), make_prompt())
    gone = library.create("Gone", make_clip(), make_prompt())
    library.delete(gone.id, undoable=True)
    assert library.purge_deleted() == 1
    assert not (library.voices_dir / gone.id).exists() and [v.id for v in library.list()] == [keep.id]
    with pytest.raises(VoiceNotFound):
        library.undelete(gone.id)


def test_a_corrected_transcript_rewrites_the_prompt_text_only(library, make_clip):
    prompt = make_prompt(3, text="Helo.")
    voice = library.create("Me", make_clip(), prompt, cache_key="k" * 64)
    changed = library.set_transcript(voice.id, "Hello.")
    assert changed.transcript == "Hello." and changed.cache_key is None
    stored = library.load_prompt(voice.id)
    assert stored.text == "Hello." and torch.equal(stored.tokens, prompt.tokens)
    with pytest.raises(UserError):
        library.set_transcript(voice.id, "  ")


def test_duplicate_and_use(library, make_clip):
    voice = library.create("Me", make_clip(), make_prompt(), tags=["calm"])
    library.update(voice.id, notes="Best at night.")
    copy = library.duplicate(voice.id)
    assert (copy.name, copy.tags, copy.notes) == ("Me copy", ("calm",), "Best at night.")
    assert library.duplicate(voice.id).name == "Me copy (2)"
    assert library.clip_path(copy.id).read_bytes() == library.clip_path(voice.id).read_bytes()
    library.record_use(voice.id)
    library.record_use(voice.id)
    used = library.get(voice.id)
    assert used.use_count == 2 and used.last_used is not None
    assert library.get(copy.id).use_count == 0


def test_a_read_only_library_refuses_writes(library, make_clip):
    from studio.library.voices import ReadOnlyVoices

    voice = library.create("Me", make_clip(), make_prompt())
    with VoiceLibrary(library.root, read_only=True) as reader:
        assert [v.name for v in reader.list()] == ["Me"]
        with pytest.raises(ReadOnlyVoices):
            reader.delete(voice.id)


def test_the_default_root_is_the_data_folder():
    from studio.library.db import DB_FILE
    from studio.paths import data_dir

    with VoiceLibrary() as library:
        assert library.root == data_dir()
        assert (data_dir() / DB_FILE).is_file() and (data_dir() / "voices").is_dir()
