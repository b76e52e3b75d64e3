"""The .ovoice bundle: a round trip, and every kind of bad bundle refused with one
sentence while the library stays exactly as it was."""

from __future__ import annotations

import hashlib
import io
import json
import pickle
import struct
import warnings
import zipfile
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from library_helpers import make_prompt, one_sentence, snapshot

from studio.errors import UserError
from studio.library import bundle
from studio.library.bundle import export_voice, import_voice, read_bundle
from studio.library.fields import MAX_TAG_CHARS, MAX_TAGS, MAX_TRANSCRIPT_CHARS


@pytest.fixture
def voice(library, make_clip):
    return library.create(
        "Storyteller", make_clip("ref.flac"), make_prompt(7, text="Once upon a time."),
        transcript="Once upon a time.", instruct="male, low pitch", seed=1234,
        tags=["calm", "story"], language="en", cache_key="cache-1",
    )


@pytest.fixture
def good(library, voice, tmp_path) -> Path:
    """A valid bundle of ``voice``."""
    out = tmp_path / "out"
    out.mkdir()
    return export_voice(library, voice.id, out / "storyteller.ovoice")


def members_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def rebuild(good: Path, dest: Path, members: dict[str, bytes | None] | None = None,
            manifest=None, restamp: bool = True) -> Path:
    """A copy of ``good`` with members replaced (None deletes), the manifest edited by
    ``manifest(dict)``, and (``restamp``) the sizes and checksums made to match again."""
    files = members_of(good)
    for name, data in (members or {}).items():
        if data is None:
            files.pop(name, None)
        else:
            files[name] = data
    data = json.loads(members_of(good)["manifest.json"])
    if restamp:
        for entry in data["files"].values():
            if entry["name"] in files:
                entry["sha256"] = hashlib.sha256(files[entry["name"]]).hexdigest()
                entry["size"] = len(files[entry["name"]])
    if manifest is not None:
        manifest(data)
    if "manifest.json" in files:
        files["manifest.json"] = json.dumps(data).encode()
    write_zip(dest, list(files.items()))
    return dest


def write_zip(dest: Path, items: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names
        with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in items:
                archive.writestr(name, data)
    return dest


def patch_headers(path: Path, name: str, patch) -> None:
    """Rewrite the local and central headers of member ``name``: ``patch(raw, kind)`` gets
    the header bytes (kind "local" or "central") and returns new ones of the same length."""
    raw = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, kind, name_at in ((b"PK\x03\x04", "local", 30), (b"PK\x01\x02", "central", 46)):
        start = raw.find(signature)
        while start != -1:
            if raw[start + name_at:start + name_at + len(encoded)] == encoded:
                raw[start:start + name_at] = patch(bytes(raw[start:start + name_at]), kind)
            start = raw.find(signature, start + 1)
    path.write_bytes(bytes(raw))


class CodePayload:
    """Unpickling this runs code: it creates ``marker``."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def evil_prompt(marker: Path, torch_format: bool) -> bytes:
    data = {"format_version": 1, "ref_audio_tokens": make_prompt().tokens,
            "ref_text": CodePayload(marker), "ref_rms": 0.05}
    if not torch_format:
        return pickle.dumps(data, protocol=2)
    buffer = io.BytesIO()
    torch.save(data, buffer)
    return buffer.getvalue()


def prompt_bytes(data: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(data, buffer)
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# Export and round trip
# ---------------------------------------------------------------------------


def test_export_writes_one_zip_with_the_manifest_schema(library, voice, good):
    assert good.name == "storyteller.ovoice"
    files = members_of(good)
    assert sorted(files) == ["clip.flac", "manifest.json", "prompt.pt"]
    manifest = json.loads(files["manifest.json"])
    assert manifest == {
        "format": "omnivoice-desktop-voice",
        "version": 1,
        "name": "Storyteller",
        "transcript": "Once upon a time.",
        "instruct": "male, low pitch",
        "seed": 1234,
        "tags": ["calm", "story"],
        "language": "en",
        "created": manifest["created"],
        "files": {
            "clip": {"name": "clip.flac", "sha256": hashlib.sha256(files["clip.flac"]).hexdigest(),
                     "size": len(files["clip.flac"])},
            "prompt": {"name": "prompt.pt", "sha256": hashlib.sha256(files["prompt.pt"]).hexdigest(),
                       "size": len(files["prompt.pt"])},
        },
    }
    assert files["clip.flac"] == library.clip_path(voice.id).read_bytes()
    assert not [p for p in good.parent.iterdir() if p != good]  # no temp file left


def test_the_clip_is_stored_not_deflated(good):
    """Deflating audio saved a few per cent and was most of a bundle's write time (issue 27:
    a 10 s WAV's bundle took 144 ms, 13 ms stored), which a drag out of the list waits for."""
    with zipfile.ZipFile(good) as archive:
        methods = {info.filename: info.compress_type for info in archive.infolist()}
    assert methods["clip.flac"] == zipfile.ZIP_STORED
    assert methods["manifest.json"] == zipfile.ZIP_DEFLATED


def test_export_appends_the_suffix(library, voice, tmp_path):
    assert export_voice(library, voice.id, tmp_path / "plain").name == "plain.ovoice"
    assert export_voice(library, voice.id, tmp_path / "x.OVOICE").name == "x.OVOICE"


def test_export_to_a_missing_folder_is_one_sentence(library, voice, tmp_path):
    with pytest.raises(UserError, match="does not exist") as info:
        export_voice(library, voice.id, tmp_path / "nope" / "v.ovoice")
    assert one_sentence(str(info.value))


def test_round_trip_export_delete_import(library, voice, good):
    clip_bytes = library.clip_path(voice.id).read_bytes()
    tokens = library.load_prompt(voice.id).tokens
    library.delete(voice.id)
    assert library.list() == []

    imported = import_voice(library, good, codebooks=8, codebook_size=1024)
    assert imported.id != voice.id
    for field in ("name", "transcript", "instruct", "seed", "tags", "language", "created", "clip"):
        assert getattr(imported, field) == getattr(voice, field), field
    assert imported.cache_key is None  # cache keys are local to one machine
    assert library.clip_path(imported.id).read_bytes() == clip_bytes
    prompt = library.load_prompt(imported.id)
    assert torch.equal(prompt.tokens, tokens) and prompt.text == "Once upon a time." and prompt.rms == 0.05
    assert library.list() == [imported]


def test_a_name_clash_on_import_gets_a_suffix(library, voice, good):
    second = import_voice(library, good)
    third = import_voice(library, good)
    assert (second.name, third.name) == ("Storyteller (2)", "Storyteller (3)")
    assert len(library.list()) == 3


def test_the_suffix_keeps_long_names_within_the_limit(library, make_clip, tmp_path):
    long = library.create("n" * 100, make_clip(), make_prompt())
    copy = import_voice(library, export_voice(library, long.id, tmp_path / "long"))
    assert copy.name == "n" * 96 + " (2)"


def test_longest_fields_fit_the_manifest_limit(library, make_clip, tmp_path):
    wide = "\U0001f600"  # four bytes in UTF-8
    voice = library.create(
        wide * 100, make_clip(), make_prompt(), transcript=wide * MAX_TRANSCRIPT_CHARS,
        instruct=wide * 1000, tags=[f"{n:02d}" + wide * (MAX_TAG_CHARS - 2) for n in range(MAX_TAGS)],
        language=wide * 64,
    )
    path = export_voice(library, voice.id, tmp_path / "wide")
    assert len(members_of(path)["manifest.json"]) < bundle.MAX_MANIFEST_BYTES
    library.delete(voice.id)
    assert import_voice(library, path).transcript == voice.transcript


def test_read_bundle_changes_nothing(library, good):
    before = snapshot(library)
    contents = read_bundle(good)
    assert contents.name == "Storyteller" and contents.clip_name == "clip.flac"
    assert snapshot(library) == before


# ---------------------------------------------------------------------------
# Refusals: one sentence each, and the library unchanged
# ---------------------------------------------------------------------------


def refuse(library, path: Path, match: str, **kwargs) -> str:
    before = snapshot(library)
    with pytest.raises(UserError, match=match) as info:
        import_voice(library, path, **kwargs)
    message = str(info.value)
    assert one_sentence(message), message
    assert snapshot(library) == before
    return message


def test_missing_file(library, voice, tmp_path):
    refuse(library, tmp_path / "nope.ovoice", "does not exist")


def test_not_a_zip(library, voice, tmp_path):
    path = tmp_path / "text.ovoice"
    path.write_text("just some text\n" * 50)
    refuse(library, path, "not a voice file or it is damaged")


def test_a_truncated_zip(library, voice, good, tmp_path):
    path = tmp_path / "cut.ovoice"
    path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    refuse(library, path, "not a voice file or it is damaged")


def test_corrupt_member_data(library, voice, good, tmp_path):
    raw = bytearray(good.read_bytes())
    start = raw.find(b"PK\x03\x04", raw.find(b"clip.flac") - 40)
    middle = start + 30 + len("clip.flac") + 200
    raw[middle:middle + 64] = bytes(64)  # zeros over compressed data: CRC or inflate fails
    path = tmp_path / "corrupt.ovoice"
    path.write_bytes(bytes(raw))
    refuse(library, path, "damaged")


def test_an_encrypted_member(library, voice, good):
    def set_encrypted(header: bytes, kind: str) -> bytes:
        at = 6 if kind == "local" else 8
        flags = struct.unpack_from("<H", header, at)[0] | 0x1
        return header[:at] + struct.pack("<H", flags) + header[at + 2:]

    patch_headers(good, "prompt.pt", set_encrypted)
    refuse(library, good, "password-protected")


@pytest.mark.parametrize("missing", ["manifest.json", "clip.flac", "prompt.pt"])
def test_a_missing_member(library, voice, good, tmp_path, missing):
    path = rebuild(good, tmp_path / "missing.ovoice", {missing: None})
    refuse(library, path, f"'{missing}' is missing")


def test_an_unexpected_member(library, voice, good, tmp_path):
    path = rebuild(good, tmp_path / "extra.ovoice", {"notes.txt": b"hello"})
    refuse(library, path, "a file the format does not have")


def test_a_duplicate_member(library, voice, good, tmp_path):
    items = list(members_of(good).items()) + [("clip.flac", b"other bytes")]
    refuse(library, write_zip(tmp_path / "dup.ovoice", items), "twice")


def test_too_many_members(library, voice, good, tmp_path):
    items = list(members_of(good).items()) + [(f"x{n}", b"") for n in range(bundle.MAX_MEMBERS)]
    refuse(library, write_zip(tmp_path / "many.ovoice", items), "more files")


def test_a_huge_central_directory_is_refused_before_parsing(library, voice, good, tmp_path):
    items = list(members_of(good).items()) + [("n" * 40_000, b""), ("m" * 40_000, b"")]
    refuse(library, write_zip(tmp_path / "names.ovoice", items), "longer file names")


def test_zip64_is_refused(library, voice, good, tmp_path, monkeypatch):
    monkeypatch.setattr(zipfile, "ZIP_FILECOUNT_LIMIT", 1)  # makes zipfile write ZIP64 records
    path = write_zip(tmp_path / "z64.ovoice", list(members_of(good).items()))
    monkeypatch.undo()
    assert b"PK\x06\x07" in path.read_bytes()
    refuse(library, path, "more files, or longer file names")


@pytest.mark.parametrize(
    "member", ["../evil.txt", "/etc/evil.txt", "C:\\evil.txt", "C:/evil.txt", "sub\\evil.txt",
               "sub/../../evil.txt", "..", "clip.flac/.."],
)
def test_path_traversal_member_names(library, voice, good, tmp_path, member):
    path = rebuild(good, tmp_path / "trav.ovoice", {member: b"owned"})
    refuse(library, path, "unsafe file path")
    assert not (tmp_path / "evil.txt").exists()


def test_a_manifest_naming_a_path_for_the_clip(library, voice, good, tmp_path):
    files = members_of(good)

    def point_outside(m):
        m["files"]["clip"]["name"] = "sub/clip.flac"

    path = rebuild(good, tmp_path / "named.ovoice", {"clip.flac": None, "sub/clip.flac": files["clip.flac"]},
                   manifest=point_outside)
    refuse(library, path, "unexpected name")


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda m: m.update(format="something-else"), "not an OmniVoice Desktop voice"),
        (lambda m: m.pop("format"), "not an OmniVoice Desktop voice"),
        (lambda m: m.update(version=2), "version 2"),
        (lambda m: m.update(version="1"), "version as '1', not a whole number"),
        (lambda m: m.update(version=1.0), "version as 1.0, not a whole number"),
        (lambda m: m.update(version=True), "version as True, not a whole number"),
        (lambda m: m.update(version=None), "version as None, not a whole number"),
        (lambda m: m.update(name="  "), "name is empty"),
        (lambda m: m.update(name=None), "name is not text"),
        (lambda m: m.update(name="x" * 101), "more than the 100 allowed"),
        (lambda m: m.update(transcript=5), "transcript is not text"),
        (lambda m: m.update(seed=-3), "seed"),
        (lambda m: m.update(seed="12"), "seed"),
        (lambda m: m.update(tags="calm"), "tags"),
        (lambda m: m.update(tags=[1]), "tag"),
        (lambda m: m.update(created="yesterday"), "creation time"),
        (lambda m: m.update(files=[]), "does not list the files"),
        (lambda m: m["files"].pop("prompt"), "does not list the prompt file"),
        (lambda m: m["files"]["prompt"].update(name="other.pt"), "unexpected name"),
        (lambda m: m["files"]["clip"].update(sha256="ABC"), "no valid checksum"),
        (lambda m: m["files"]["clip"].update(size=-1), "no valid size"),
        (lambda m: m["files"]["clip"].update(size="12"), "no valid size"),
    ],
)
def test_a_bad_manifest(library, voice, good, tmp_path, edit, match):
    refuse(library, rebuild(good, tmp_path / "bad.ovoice", manifest=edit), match)


@pytest.mark.parametrize(
    "data, match",
    [(b"{not json", "not valid JSON"), (b"\xff\xfe{}", "not valid JSON"), (b"[1, 2]", "not a JSON object"),
     (b"[" * 100_000 + b"]" * 100_000, "larger than the 64 KB")],
)
def test_a_manifest_that_is_not_a_json_object(library, voice, good, tmp_path, data, match):
    items = [(n, d) for n, d in members_of(good).items() if n != "manifest.json"]
    refuse(library, write_zip(tmp_path / "json.ovoice", [("manifest.json", data), *items]), match)


def test_a_deeply_nested_manifest_within_the_size_limit(library, voice, good, tmp_path):
    data = b"[" * 30_000 + b"]" * 30_000
    items = [(n, d) for n, d in members_of(good).items() if n != "manifest.json"]
    refuse(library, write_zip(tmp_path / "deep.ovoice", [("manifest.json", data), *items]), "not valid JSON|not a JSON object")


def test_a_checksum_mismatch(library, voice, good, tmp_path):
    clip = bytearray(members_of(good)["clip.flac"])
    clip[-1] ^= 0xFF
    path = rebuild(good, tmp_path / "sha.ovoice", {"clip.flac": bytes(clip)}, restamp=False)
    refuse(library, path, "does not match the size and checksum")


def test_a_size_mismatch(library, voice, good, tmp_path):
    path = rebuild(good, tmp_path / "size.ovoice", manifest=lambda m: m["files"]["prompt"].update(size=10))
    refuse(library, path, "does not match the size and checksum")


def test_an_oversize_declared_in_the_manifest(library, voice, good, tmp_path):
    big = bundle.MAX_CLIP_BYTES + 1
    path = rebuild(good, tmp_path / "decl.ovoice", manifest=lambda m: m["files"]["clip"].update(size=big))
    refuse(library, path, "larger than the 50 MB allowed")


def test_an_oversize_member(library, voice, good, tmp_path):
    big = bytes(bundle.MAX_PROMPT_BYTES + 1)  # zeros: a small zip, a large member
    path = rebuild(good, tmp_path / "big.ovoice", {"prompt.pt": big}, restamp=False)
    assert path.stat().st_size < 100_000
    refuse(library, path, "'prompt.pt' is larger than the 20 MB allowed")


def test_a_zip_bomb(library, voice, good, tmp_path):
    half = bytes(bundle.MAX_TOTAL_BYTES // 2 + 1)
    items = list(members_of(good).items()) + [("a", half), ("b", half)]
    path = write_zip(tmp_path / "bomb.ovoice", items)
    assert path.stat().st_size < 300_000
    refuse(library, path, "would unpack to")


def test_a_member_longer_than_its_declared_size(library, voice, good):
    # Declare a smaller size than the data: the bounded reader stops at the declared
    # size and the CRC no longer matches.
    def shrink(header: bytes, kind: str) -> bytes:
        at = 22 if kind == "local" else 24
        size = struct.unpack_from("<I", header, at)[0]
        return header[:at] + struct.pack("<I", size // 2) + header[at + 4:]

    patch_headers(good, "clip.flac", shrink)
    refuse(library, good, "damaged|checksum|shorter")


def test_a_bundle_file_too_large(library, voice, tmp_path):
    path = tmp_path / "huge.ovoice"
    with open(path, "wb") as handle:
        handle.truncate(bundle.MAX_BUNDLE_BYTES + 1)  # sparse: no disk used
    refuse(library, path, "larger than")


@pytest.mark.parametrize("torch_format", [True, False], ids=["torch-zip", "raw-pickle"])
def test_a_prompt_carrying_code_is_refused_without_running_it(library, voice, good, tmp_path, torch_format):
    # The payload is real: loaded without weights_only it creates its marker.
    proof = tmp_path / "proof-marker"
    payload = evil_prompt(proof, torch_format)
    torch.load(io.BytesIO(payload), weights_only=False) if torch_format else pickle.loads(payload)
    assert proof.exists()

    marker = tmp_path / "marker"
    path = rebuild(good, tmp_path / "evil.ovoice", {"prompt.pt": evil_prompt(marker, torch_format)})
    # A raw pickle is refused as not being torch's format at all, before any unpickling.
    refuse(library, path, "objects other than plain data" if torch_format else "not a voice prompt")
    assert not marker.exists()


@pytest.mark.parametrize(
    "data, match",
    [
        (b"garbage" * 10, "damaged or not a voice prompt"),
        (prompt_bytes({"format_version": 2, "ref_audio_tokens": torch.zeros(8, 5, dtype=torch.long),
                       "ref_text": "x", "ref_rms": 0.1}), "not a complete format-1"),
        (prompt_bytes({"format_version": 1, "ref_audio_tokens": torch.zeros(8, 5),
                       "ref_text": "x", "ref_rms": 0.1}), "not a complete format-1"),
        (prompt_bytes({"format_version": 1, "ref_audio_tokens": torch.zeros(8, 5, dtype=torch.bool),
                       "ref_text": "x", "ref_rms": 0.1}), "not whole numbers"),
        (prompt_bytes({"format_version": 1, "ref_audio_tokens": torch.full((8, 5), -1),
                       "ref_text": "x", "ref_rms": 0.1}), "outside the codec's range"),
        (prompt_bytes({"format_version": 1, "ref_audio_tokens": torch.zeros(8, 5, dtype=torch.long),
                       "ref_text": "x", "ref_rms": float("nan")}), "loudness"),
        (prompt_bytes([1, 2, 3]), "not a complete format-1"),
    ],
)
def test_a_prompt_that_is_not_a_v1_prompt(library, voice, good, tmp_path, data, match):
    refuse(library, rebuild(good, tmp_path / "p.ovoice", {"prompt.pt": data}), match)


def test_a_prompt_that_would_inflate_beyond_the_limit(library, voice, good, tmp_path):
    big = {"format_version": 1, "ref_audio_tokens": torch.zeros(8, bundle.MAX_PROMPT_BYTES // 64 + 1,
                                                                 dtype=torch.long),
           "ref_text": "x", "ref_rms": 0.1}
    raw = io.BytesIO(prompt_bytes(big))
    deflated = io.BytesIO()  # torch's reader inflates deflated records too
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    assert len(deflated.getvalue()) < bundle.MAX_PROMPT_BYTES
    refuse(library, rebuild(good, tmp_path / "p.ovoice", {"prompt.pt": deflated.getvalue()}),
           "would unpack to more than 20 MB")


def test_a_prompt_for_another_codec(library, voice, good):
    refuse(library, good, "codec with 8 codebooks, but this model uses 4", codebooks=4)
    refuse(library, good, "outside the codec's range", codebook_size=10)


@pytest.mark.parametrize("clip", [b"not audio at all", b""])
def test_a_clip_soundfile_cannot_read(library, voice, good, tmp_path, clip):
    refuse(library, rebuild(good, tmp_path / "c.ovoice", {"clip.flac": clip}), "reference clip")


@pytest.mark.parametrize("created", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"])
def test_a_creation_time_outside_utc_years_is_refused(library, voice, tmp_path, created):
    """Issue 16: these raised OverflowError from the import."""
    import json
    import zipfile

    bundle = export_voice(library, voice.id, tmp_path / "v.ovoice")
    bad = tmp_path / "bad.ovoice"
    with zipfile.ZipFile(bundle) as source, zipfile.ZipFile(bad, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["created"] = created
                data = json.dumps(manifest).encode()
            target.writestr(info, data)
    with pytest.raises(UserError) as refused:
        read_bundle(bad)
    assert "outside the years 1-9999 in UTC" in str(refused.value)


def test_a_name_with_undecodable_bytes_is_refused(library, voice):
    """Issue 16: a lone surrogate raised UnicodeEncodeError from SQLite."""
    with pytest.raises(UserError) as refused:
        library.rename(voice.id, "Nar\udcffrator")
    assert "holds bytes that are not valid text" in str(refused.value)
    assert library.get(voice.id).name == voice.name


@pytest.mark.parametrize("version", [torch.tensor([]), torch.zeros(7), True, 1.0, "1", None])
def test_a_prompt_whose_version_is_not_the_number_1_is_one_sentence(version):
    """Found by tests/test_fuzz.py: a tensor version raised RuntimeError, and its repr split
    the sentence over lines."""
    from studio.engine.prompt import VoicePrompt

    data = {"format_version": version, "ref_audio_tokens": torch.zeros(8, 5, dtype=torch.long),
            "ref_text": "Hi.", "ref_rms": 0.1}
    with pytest.raises(UserError) as refused:
        VoicePrompt.from_dict(data, "The prompt")
    assert "\n" not in str(refused.value) and "format version 1" in str(refused.value)


# ---------------------------------------------------------------------------
# Names and tags: what reaches a terminal is neutralised, in one place
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw, cleaned", [
    ("Evil\x1b[2JName", "Evil [2JName"),
    ("Nul\x00Name", "Nul Name"),
    ("C1\x9b31mName", "C1 31mName"),
    ("\u202eReversed\u2066", "Reversed"),
    ("Zero\u200bWidth\ufeff", "ZeroWidth"),
    ("Line\u2028Break\x7f", "Line Break"),
    ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"),  # ZWNJ kept
])
def test_control_and_format_characters_in_a_bundle_are_neutralised(library, voice, good, tmp_path,
                                                                   raw, cleaned):
    def edit(manifest):
        manifest.update(name=raw, tags=[raw, "plain"], language=f"en{raw[:3]}")

    imported = import_voice(library, rebuild(good, tmp_path / "n.ovoice", manifest=edit))
    assert imported.name == cleaned and imported.tags == (cleaned, "plain")
    assert "\x1b" not in imported.language and "\x00" not in imported.language
    assert library.find(cleaned).id == imported.id
    assert library.find(raw).id == imported.id  # the raw spelling finds it too


def test_a_name_of_only_control_characters_is_refused(library, voice, good, tmp_path):
    path = rebuild(good, tmp_path / "c.ovoice", manifest=lambda m: m.update(name="\x1b\x00\u202e"))
    refuse(library, path, "name is empty")


def test_rename_and_update_clean_the_same_way(library, voice):
    assert library.rename(voice.id, "New\x1b]0;x\x07Name").name == "New ]0;x Name"
    assert library.update(voice.id, tags=["a\x00b", "\u202e"]).tags == ("a b",)


@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.characters(codec=None, categories=None), max_size=30),
       tag=st.text(st.characters(codec=None, categories=None), max_size=12))
def test_any_bundle_name_imports_clean_and_findable_or_is_one_sentence(library, voice, good,
                                                                       tmp_path, name, tag):
    import unicodedata

    path = rebuild(good, tmp_path / "any.ovoice",
                   manifest=lambda m: m.update(name=name, tags=[tag]))
    try:
        imported = import_voice(library, path)
    except UserError as exc:
        assert one_sentence(str(exc)), str(exc)
        return
    for text in (imported.name, *imported.tags):
        assert all(unicodedata.category(c) != "Cc" for c in text), text
        assert all(unicodedata.category(c) != "Cf" or c in "\u200c\u200d" for c in text), text
        assert text == text.strip() and "  " not in text
    assert library.find(imported.name).id == imported.id
    library.delete(imported.id)
