"""Unsaved takes of a session, and the shelf that reads them together with the library."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from studio.errors import UserError
from studio.library.session_takes import (
    UNSAVED,
    SessionTakes,
    TakeShelf,
    is_unsaved,
    new_unsaved_id,
)
from studio.library.take_record import TakeRun, TakeSettings
from studio.library.takes import TakeLibrary

RUN = TakeRun("tiny", "cpu", "fp32", "off", "off", None, "test", 0.5, 0.25)


def _settings(text: str, reference: str | None = None) -> TakeSettings:
    return TakeSettings(text, "en", None, "clone" if reference else "design", None, reference,
                        None, None, True, None, None, 1, {})


def _unsaved(text: str, created: str, reference: str | None = None):
    from studio.library.take_record import Take

    return Take(new_unsaved_id(), created, "", "", False, "u", _settings(text, reference), RUN,
                24000, 1.0, None, (), None, None, False)


@pytest.fixture
def session():
    store = SessionTakes()
    wave = np.linspace(-0.5, 0.5, 24000, dtype=np.float32)
    store.add(_unsaved("The older unsaved line.", "2026-12-01T10:00:00.000000+00:00"), wave, 24000)
    store.add(_unsaved("A newer one from a clip.", "2026-12-01T11:00:00.000000+00:00",
                       "/clips/my voice.wav"), wave * 0, 24000)
    return store


def test_unsaved_takes_are_badged_listed_newest_first_and_searchable(session):
    takes = session.list()
    assert [t.settings.text for t in takes] == ["A newer one from a clip.",
                                                "The older unsaved line."]
    assert all(is_unsaved(t.id) and UNSAVED in t.suspects for t in takes)
    assert [t.settings.text for t in session.list("older")] == ["The older unsaved line."]
    assert session.list(starred=True) == []
    assert session.voices() == [("ref:/clips/my voice.wav", "my voice.wav"),
                                ("design", "Voice design")]


def test_delete_keeps_them_for_undo(session):
    newest = session.list()[0]
    session.delete([newest.id])
    assert len(session) == 1 and newest.id not in {t.id for t in session.list()}
    assert newest.id in {t.id for t in session.list(include_deleted=True)}
    session.undelete([newest.id])
    assert len(session) == 2


def test_only_unsaved_ids_are_held(session):
    take = session.list()[0]
    with pytest.raises(ValueError):
        session.add(dataclasses.replace(take, id="0123abcd"), np.zeros(10, np.float32), 24000)
    with pytest.raises(UserError):
        session.get(new_unsaved_id())


def test_the_shelf_reads_unsaved_takes_beside_the_library_or_without_it(session, tmp_path):
    with TakeLibrary(tmp_path) as writer:
        saved = writer.add(_settings("Saved properly."), RUN,
                           np.full(2400, 0.1, np.float32), 24000, batch="s")
    with TakeLibrary(tmp_path, read_only=True) as reader:
        shelf = TakeShelf(reader, session)
        texts = [t.settings.text for t in shelf.list()]
        assert texts == ["A newer one from a clip.", "The older unsaved line.", "Saved properly."]
        assert shelf.get(saved.id).settings.text == "Saved properly."
        unsaved = session.list()[1]
        audio, rate = shelf.read_audio(unsaved.id)
        assert rate == 24000 and audio[0] == pytest.approx(-0.5)
        assert shelf.read_audio(saved.id)[0].size == 2400
        assert ("design", "Voice design") in shelf.voices()
    alone = TakeShelf(None, session)  # the library cannot be opened at all
    assert len(alone.list()) == 2
    with pytest.raises(UserError):
        alone.get(saved.id)
