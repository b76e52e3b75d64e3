"""One portable file per voice: ``.ovoice``, a zip holding exactly

- ``manifest.json``: ``{"format": "omnivoice-desktop-voice", "version": 1, "name",
  "transcript", "instruct", "seed", "tags", "language", "created", "files": {"clip":
  {"name", "sha256", "size"}, "prompt": {"name", "sha256", "size"}}}``
- the reference clip, ``clip.<ext>``, byte for byte as saved
- ``prompt.pt``, the voice prompt in format v1

A bundle comes from anywhere, so :func:`read_bundle` trusts nothing in it and
checks everything before :func:`import_voice` changes anything. Members are read
into memory by the names we expect, through bounded reads, and never extracted
by their own names; the prompt loads weights-only, so a pickle carrying code is
refused without running it. Every refusal is one :class:`UserError` sentence.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import torch

from studio.engine.prompt import VoicePrompt
from studio.errors import UserError
from studio.library import fields
from studio.library.bundle_file import (
    FORMAT,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    SUFFIX,
    VERSION,
    write_bundle,
)
from studio.library.voices import PROMPT_FILE, Voice, VoiceLibrary
from studio.sound.files import is_readable_audio

MAX_CLIP_BYTES = fields.MAX_CLIP_BYTES  # 50 MB, the same limit as saving a voice
MAX_PROMPT_BYTES = 20 * fields.MB  # a minute of 8-codebook tokens is ~100 KB
MAX_TOTAL_BYTES = MAX_CLIP_BYTES + MAX_PROMPT_BYTES + MAX_MANIFEST_BYTES  # all members, unpacked
MAX_BUNDLE_BYTES = MAX_TOTAL_BYTES + fields.MB  # the file itself: members plus zip headers
MAX_PROMPT_RECORDS = 64  # records inside prompt.pt; torch.save writes about five
MAX_MEMBERS = 16  # we write three; a few more still get a precise message
MAX_DIRECTORY_BYTES = 64 * 1024  # the zip's central directory (ours is about 200 bytes)

_EOCD_SIGNATURE = b"PK\x05\x06"  # zip's end of central directory record
_EOCD_SIZE = 22
_ZIP64_LOCATOR_SIGNATURE = b"PK\x06\x07"  # voice files never need ZIP64

_SHA256 = re.compile(r"[0-9a-f]{64}")
_MANIFEST_KEYS = ("name", "transcript", "instruct", "seed", "tags", "language", "created")

# What a damaged zip can raise while its directory or a member is read.
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    lzma.LZMAError,
    struct.error,
    EOFError,
    OSError,
    ValueError,
    RuntimeError,  # an encrypted member
    NotImplementedError,  # an unknown compression method
)


@dataclass(frozen=True)
class BundleContents:
    """Everything in a bundle, checked: what :func:`import_voice` saves."""

    name: str
    transcript: str
    instruct: str | None
    seed: int | None
    tags: tuple[str, ...]
    language: str | None
    created: datetime
    clip_name: str  # "clip.wav"
    clip_data: bytes
    prompt: VoicePrompt


class _Refusal(Exception):
    """Why a bundle is refused: a clause that completes '<file> cannot be imported because'."""

    def __init__(self, reason: str, fix: str = "export the voice again and import the new file"):
        super().__init__(reason)
        self.reason = reason
        self.fix = fix


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------


def export_voice(library: VoiceLibrary, voice_id: str, dest: str | Path) -> Path:
    """Write the voice to ``dest`` (``.ovoice`` is appended if missing), atomically.

    The files are checked as an import would check them, so every bundle written
    here imports again. Returns the path written.
    """
    voice = library.get(voice_id)
    target = Path(dest)
    if target.suffix.lower() != SUFFIX:
        target = target.with_name(target.name + SUFFIX)
    if not target.parent.is_dir():
        raise UserError(f"Cannot export the voice: the folder {target.parent} does not exist.")

    clip_path, prompt_path = library.clip_path(voice.id), library.prompt_path(voice.id)
    from studio.outputs import check_distinct

    check_distinct([(clip_path, "voice's reference clip"), (prompt_path, "voice's prompt")],
                   [(target, "voice file")])
    try:
        clip_data, prompt_data = clip_path.read_bytes(), prompt_path.read_bytes()
    except OSError as exc:
        raise UserError(
            f"The voice '{voice.name}' cannot be exported because its files cannot be read "
            f"({exc.strerror or exc}); create the voice again from its reference clip."
        ) from None
    try:
        if len(clip_data) > MAX_CLIP_BYTES or len(prompt_data) > MAX_PROMPT_BYTES:
            raise _Refusal("its files are larger than a voice file allows")
        _parse_prompt(prompt_data)
        if not is_readable_audio(clip_data):
            raise _Refusal("its reference clip cannot be read as audio")
    except _Refusal as refusal:
        raise UserError(
            f"The voice '{voice.name}' cannot be exported because {refusal.reason}; "
            "create the voice again from its reference clip."
        ) from None

    return write_bundle(voice, clip_data, prompt_data, target)


# ---------------------------------------------------------------------------
# Import
# ---------------------------------------------------------------------------


def import_voice(
    library: VoiceLibrary,
    bundle: str | Path,
    codebooks: int | None = None,
    codebook_size: int | None = None,
) -> Voice:
    """Check the bundle completely, then save it as a new voice (a taken name gets
    " (2)", " (3)"...). A refused bundle leaves the library unchanged.

    ``codebooks`` and ``codebook_size`` (when given) are the model's codec: the
    prompt must have that many codebooks and every token must be below the size.
    """
    contents = read_bundle(bundle, codebooks=codebooks, codebook_size=codebook_size)
    return library.create_from_data(
        library.unique_name(contents.name),
        contents.clip_data,
        Path(contents.clip_name).suffix,
        contents.prompt,
        transcript=contents.transcript,
        instruct=contents.instruct,
        seed=contents.seed,
        tags=contents.tags,
        language=contents.language,
        created=contents.created,
    )


def read_bundle(
    bundle: str | Path, codebooks: int | None = None, codebook_size: int | None = None
) -> BundleContents:
    """Read and check every part of a bundle without touching the library."""
    source = Path(bundle)
    try:
        return _read_checked(source, codebooks, codebook_size)
    except _Refusal as refusal:
        raise UserError(
            f"The voice file {source.name} cannot be imported because {refusal.reason}; "
            f"{refusal.fix}."
        ) from None


def _read_checked(source: Path, codebooks: int | None, codebook_size: int | None) -> BundleContents:
    try:
        if not source.is_file():
            raise _Refusal("it does not exist or is not a file", "choose the file again")
        if source.stat().st_size > MAX_BUNDLE_BYTES:
            raise _Refusal(
                f"it is larger than {MAX_BUNDLE_BYTES // fields.MB} MB, more than a voice file "
                "can be", "check that you chose an .ovoice file"
            )
        _check_directory(source)
        archive = zipfile.ZipFile(source)
    except _ZIP_ERRORS:
        raise _Refusal(
            "it is not a voice file or it is damaged",
            "choose an .ovoice file exported by OmniVoice Desktop",
        ) from None
    with archive:
        try:
            members = _members(archive)
            manifest = _parse_manifest(_read_member(archive, members, MANIFEST, MAX_MANIFEST_BYTES))
            clip_entry, prompt_entry = manifest["files"]["clip"], manifest["files"]["prompt"]
            expected = {MANIFEST, clip_entry["name"], prompt_entry["name"]}
            extra = sorted(set(members) - expected)
            if extra:
                raise _Refusal(f"it holds a file the format does not have ({extra[0]!r})")
            clip_data = _read_listed(archive, members, clip_entry, MAX_CLIP_BYTES)
            prompt_data = _read_listed(archive, members, prompt_entry, MAX_PROMPT_BYTES)
        except _ZIP_ERRORS:
            raise _Refusal("it is damaged (a part of it cannot be unpacked)") from None

    prompt = _parse_prompt(prompt_data, codebooks, codebook_size)
    if not is_readable_audio(clip_data):
        raise _Refusal("its reference clip is empty, damaged or not audio that can be read")
    return BundleContents(
        **{key: manifest[key] for key in _MANIFEST_KEYS},
        clip_name=clip_entry["name"],
        clip_data=clip_data,
        prompt=prompt,
    )


def _check_directory(source: Path) -> None:
    """Bound the zip's central directory before zipfile parses all of it: zipfile reads
    every entry into memory, and a 70 MB file can declare a million of them."""
    with open(source, "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        tail_start = max(0, size - _EOCD_SIZE - 0xFFFF)  # the record, then a comment up to 64 KB
        handle.seek(tail_start)
        tail = handle.read()
    at = tail.rfind(_EOCD_SIGNATURE)
    if at < 0 or len(tail) - at < _EOCD_SIZE:
        return  # not a zip: zipfile says so
    entries, directory_size = struct.unpack_from("<HL", tail, at + 10)
    zip64 = at >= 20 and tail[at - 20 : at - 16] == _ZIP64_LOCATOR_SIGNATURE
    if zip64 or entries > MAX_MEMBERS or directory_size > MAX_DIRECTORY_BYTES:
        raise _Refusal("it holds more files, or longer file names, than a voice file can have")


def _unsafe_member_name(name: str) -> bool:
    """Absolute, upward, drive or backslash paths (or a NUL): the zip path traversal forms."""
    return (
        not name
        or name.startswith("/")
        or "\\" in name
        or ":" in name  # C:..., and NTFS alternate data streams
        or ".." in name
        or "\x00" in name
    )


def _members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    """The members by name, after the checks that need no reading."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _Refusal(f"it holds {len(infos)} files, more than a voice file can have")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        if info.flag_bits & 0x1:
            raise _Refusal(
                "it is password-protected", "export the voice again without a password"
            )
        for name in (info.orig_filename, info.filename):
            if _unsafe_member_name(name):
                raise _Refusal(
                    f"it contains an unsafe file path ({name[:80]!r})",
                    "use a voice file exported by OmniVoice Desktop",
                )
        if info.filename in members:
            raise _Refusal(f"it holds the file {info.filename!r} twice")
        members[info.filename] = info
    total = sum(info.file_size for info in infos)
    if total > MAX_TOTAL_BYTES:
        raise _Refusal(
            f"its contents would unpack to {total / fields.MB:.1f} MB, more than the "
            f"{MAX_TOTAL_BYTES / fields.MB:.1f} MB a voice file can hold"
        )
    return members


def _read_member(
    archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], name: str, limit: int
) -> bytes:
    """Read one member we expect, by our own name for it, never more than ``limit`` bytes."""
    info = members.get(name)
    if info is None:
        raise _Refusal(f"the file {name!r} is missing from it")
    if info.file_size > limit:
        raise _Refusal(f"its file {name!r} is larger than the {_size(limit)} allowed")
    with archive.open(info) as member:
        data = member.read(limit + 1)
    if len(data) > limit:
        raise _Refusal(f"its file {name!r} is larger than the {_size(limit)} allowed")
    if len(data) != info.file_size:
        raise _Refusal(f"its file {name!r} is shorter than its zip entry says")
    return data


def _read_listed(
    archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo], entry: dict, limit: int
) -> bytes:
    """Read a file the manifest lists and check its size and checksum."""
    name = entry["name"]
    if entry["size"] > limit:
        raise _Refusal(f"its manifest lists {name!r} as larger than the {_size(limit)} allowed")
    data = _read_member(archive, members, name, limit)
    if len(data) != entry["size"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise _Refusal(
            f"its file {name!r} does not match the size and checksum in its manifest, so it "
            "was changed or damaged"
        )
    return data


def _size(limit: int) -> str:
    return f"{limit // fields.MB} MB" if limit >= fields.MB else f"{limit // 1024} KB"


def _parse_manifest(data: bytes) -> dict:
    """The manifest as a dict with every field checked and cleaned."""
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise _Refusal("its manifest is not valid JSON") from None
    if not isinstance(manifest, dict):
        raise _Refusal("its manifest is not a JSON object")
    if manifest.get("format") != FORMAT:
        raise _Refusal(
            f"it is not an OmniVoice Desktop voice (its format is {str(manifest.get('format'))[:40]!r})",
            "choose an .ovoice file exported by OmniVoice Desktop",
        )
    version = manifest.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _Refusal(f"its manifest gives the version as {repr(version)[:20]}, not a whole number")
    if version != VERSION:
        raise _Refusal(
            f"it is voice file version {version}, and this version of OmniVoice Desktop "
            f"reads version {VERSION} only",
            "update OmniVoice Desktop, or export the voice again with this version",
        )
    try:
        cleaned = {
            "name": fields.clean_name(manifest.get("name")),
            "transcript": fields.clean_transcript(manifest.get("transcript")),
            "instruct": fields.clean_instruct(manifest.get("instruct")),
            "seed": fields.clean_seed(manifest.get("seed")),
            "tags": fields.clean_tags(manifest.get("tags", ())),
            "language": fields.clean_language(manifest.get("language")),
            "created": fields.parse_time(manifest.get("created")),
        }
    except fields.InvalidField as exc:
        raise _Refusal(f"its manifest is not valid ({exc.problem})") from None
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise _Refusal("its manifest does not list the files")
    cleaned["files"] = {
        "clip": _file_listing(files.get("clip"), "clip", fields.is_clip_file_name),
        "prompt": _file_listing(files.get("prompt"), "prompt", lambda name: name == PROMPT_FILE),
    }
    return cleaned


def _file_listing(entry: object, role: str, name_ok) -> dict:
    if not isinstance(entry, dict):
        raise _Refusal(f"its manifest does not list the {role} file")
    name, sha256, size = entry.get("name"), entry.get("sha256"), entry.get("size")
    if not name_ok(name):
        raise _Refusal(f"its manifest gives the {role} file an unexpected name ({str(name)[:80]!r})")
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise _Refusal(f"its manifest has no valid checksum for the {role} file")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise _Refusal(f"its manifest has no valid size for the {role} file")
    return {"name": name, "sha256": sha256, "size": size}


def _parse_prompt(
    data: bytes, codebooks: int | None = None, codebook_size: int | None = None
) -> VoicePrompt:
    """A prompt from untrusted bytes, with :meth:`VoicePrompt.load`'s semantics
    (weights-only: a pickle carrying code is refused without running it); raises
    :class:`_Refusal`."""
    _check_prompt_container(data)
    try:
        raw = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # untrusted bytes: every failure to load is a refusal
        # torch words every weights-only failure "Weights only load failed"; a global
        # (a class or function to call) is what marks a pickle that carries code.
        if "Unsupported global" in str(exc):
            raise _Refusal(
                "its voice prompt holds objects other than plain data, which are refused for safety",
                "use a voice file from a source you trust",
            ) from None
        raise _Refusal("its voice prompt is damaged or not a voice prompt") from None
    name = "The voice prompt"
    try:  # the one check of a prompt, as for a prompt file; its reason, in the bundle's words
        return VoicePrompt.from_dict(raw, name, codebooks, codebook_size)
    except UserError as exc:
        reason = str(exc).removeprefix(name).split("; ", 1)[0].strip()
        if "incomplete" in reason or "format version" in reason:
            raise _Refusal(f"its voice prompt is not a complete format-{VERSION} voice prompt") \
                from None
        fix = ("create the voice again with this model from its reference clip"
               if "codebooks" in reason else "export the voice again and import the new file")
        raise _Refusal(f"its voice prompt {reason}", fix) from None


def _check_prompt_container(data: bytes) -> None:
    """A prompt file is torch's zip format (what ``torch.save`` writes). torch's reader
    inflates a record to the size it declares, so bound those sizes first; and refuse
    the legacy format, which allocates what its pickle declares before reading."""
    buffer = io.BytesIO(data)
    try:
        if not zipfile.is_zipfile(buffer):
            raise _Refusal("its voice prompt is damaged or not a voice prompt")
        with zipfile.ZipFile(buffer) as container:
            records = container.infolist()
    except _ZIP_ERRORS:
        raise _Refusal("its voice prompt is damaged or not a voice prompt") from None
    if len(records) > MAX_PROMPT_RECORDS or sum(r.file_size for r in records) > MAX_PROMPT_BYTES:
        raise _Refusal(f"its voice prompt would unpack to more than {_size(MAX_PROMPT_BYTES)}")
