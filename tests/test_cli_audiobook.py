"""`script import book.epub` and `script render --out book.m4b` on the tiny random
checkpoint: the book's chapters become the .m4b's, with each chapter's ACX check in
--json (and as warnings when one fails)."""

from __future__ import annotations

import json

from studio.sound.m4b import chapters_read, tags_read
from tests.epub_fixture import png, write_epub

CHAPTERS = [("First", ["One line here."]), ("Second", ["Two words."]),
            ("Third", ["Three, and the end."])]


def test_an_epub_imports_and_renders_to_an_m4b_with_its_chapters(cli, tmp_path,
                                                                   tiny_checkpoint):
    epub = write_epub(tmp_path / "book.epub", CHAPTERS, cover=png())
    (tmp_path / "v.json").write_text('{"Narrator": {"instruct": "male", "seed": 4}}',
                                     encoding="utf-8")
    code, stdout, stderr = cli("script", "import", epub, "--out", tmp_path / "book.ovproj",
                               "--voices", tmp_path / "v.json", "--json")
    assert code == 0, stderr
    imported = json.loads(stdout[-1])
    assert imported["chapters"] == ["First", "Second", "Third"]
    out = tmp_path / "book.m4b"
    code, stdout, stderr = cli("script", "render", tmp_path / "book.ovproj", "--out", out,
                               "--author", "Ada Author", "--chapter-mp3s",
                               "--steps", "2", "--device", "cpu", "--model", tiny_checkpoint,
                               "--json")
    assert code == 0, stderr
    summary = json.loads(stdout[-1])
    assert [c["title"] for c in summary["chapters"]] == ["First", "Second", "Third"]
    read = chapters_read(out)
    assert [t for t, _ in read] == ["First", "Second", "Third"]
    assert [s for _, s in read] == [c["start"] for c in summary["chapters"]]
    # The book's title and cover came with the import; --author is given here.
    assert tags_read(out)["artist"] == "Ada Author"
    assert tags_read(out)["title"] == "A Test Book"
    assert imported["cover"] == str(tmp_path / "book cover.png")
    import av

    with av.open(str(out)) as container:
        assert [s.type for s in container.streams if s.type == "video"] == ["video"]
    assert len(summary["acx"]) == 3
    assert all({"rms_db", "peak_db", "noise_db", "sentence"} <= set(r) for r in summary["acx"])
    failing = [r["sentence"] for r in summary["acx"] if not r["passed"]]
    assert all(s in summary["warnings"] for s in failing)
    assert sorted(p.name for p in (tmp_path / "book chapters").iterdir()) == [
        "01 First.mp3", "02 Second.mp3", "03 Third.mp3"]


def test_audiobook_options_without_an_m4b_and_stems_with_one_are_one_sentence(cli, tmp_path):
    (tmp_path / "a.txt").write_text("Hello.\n", encoding="utf-8")
    (tmp_path / "v.json").write_text('{"Narrator": {"instruct": "male"}}', encoding="utf-8")
    code, _out, stderr = cli("script", "render", tmp_path / "a.txt", "--voices",
                             tmp_path / "v.json", "--out", tmp_path / "a.wav", "--author", "X")
    assert code != 0 and "--author is for an audiobook" in stderr[-1]
    code, _out, stderr = cli("script", "render", tmp_path / "a.txt", "--voices",
                             tmp_path / "v.json", "--out", tmp_path / "a.m4b", "--stems",
                             tmp_path / "stems")
    assert code != 0 and "has no stems" in stderr[-1]
