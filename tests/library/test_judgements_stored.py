"""Judgements stored with a take: schema version 4 adds the column, older takes keep theirs."""

from __future__ import annotations

import sqlite3

from takes_helpers import add

from studio.library.db import DB_FILE, MIGRATIONS, Database
from studio.library.takes import TakeLibrary

VERDICTS = {"version": 1, "combined": 0.8,
            "judgements": [{"judge": "voice", "score": 0.9, "verdict": "ok",
                            "explanation": "Voice similarity 0.90.", "details": {}}]}


def test_judgements_persist_across_a_reopen(tmp_path):
    with TakeLibrary(tmp_path) as lib:
        take = add(lib, seed=1)
        assert take.judgements is None
        assert lib.set_judgements(take.id, VERDICTS).judgements == VERDICTS
    with TakeLibrary(tmp_path) as lib:
        assert lib.get(take.id).judgements == VERDICTS
        assert lib.get(take.id).settings == take.settings  # nothing else changed


def test_a_version_3_library_is_migrated_and_its_takes_kept(tmp_path):
    with TakeLibrary(tmp_path) as lib:
        take = add(lib, seed=2)
    raw = sqlite3.connect(tmp_path / DB_FILE)  # turn it back into the library version 3 wrote
    raw.execute("ALTER TABLE takes DROP COLUMN judgements")
    raw.execute("PRAGMA user_version = 3")
    raw.commit()
    raw.close()
    assert len(MIGRATIONS) == 4
    with TakeLibrary(tmp_path) as lib:
        old = lib.get(take.id)
        assert old.judgements is None and old.settings == take.settings
        lib.set_judgements(take.id, VERDICTS)
    with Database(tmp_path / DB_FILE) as db:
        assert db.schema_version == 4
