"""One-off rewrite (issue 27): signal work that needs no device lives in studio/sound/.

Loudness, peaks, stream writing, the growing buffer and the clip checks moved from
studio/audio/ to studio/sound/ (studio/audio/ keeps the devices), and the bounded reader
of a clip someone sent from studio/engine/clip_bounds.py; reading and writing
audio files moved to studio/sound/files.py from studio/engine/audio.py (``read_audio``,
``write_audio_atomic``, ``AudioFileWriter``) and studio/library/clips.py
(``is_readable_audio``, ``clip_seconds``). And, to bring studio/engine/prompt_cache.py
under 500 lines, ``FileHasher`` and ``HASHES_FILE`` moved to studio/engine/file_hashes.py,
and from studio/library/takes.py what a take is (``TakeSettings``, ``TakeRun``, ``Take``,
``voice_key``, the name and notes checks) to studio/library/take_record.py.
Rewrites every import of them in studio/,
tests/, benchmarks/ and tools/, those inside functions too: a ``from`` import that names
moved and staying things is split in two, and ``alias.read_audio`` through a module
imported as ``from studio.engine import audio [as alias]`` becomes
``sound_files.read_audio`` with ``from studio.sound import files as sound_files`` added.
Safe to run again (after merging code written before the move); prints what it changed.

    python tools/move_sound.py
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("studio", "tests", "benchmarks", "tools")
# old module -> new module (their tests moved too, and other tests import helpers from them)
MOVED_MODULES = {
    **{f"studio.audio.{name}": f"studio.sound.{name}"
       for name in ("loudness", "peaks", "stream_out", "growing", "clip_check")},
    "studio.engine.clip_bounds": "studio.sound.clip_bounds",
    **{f"tests.audio.test_{name}": f"tests.sound.test_{name}"
       for name in ("loudness", "peaks", "clip_check")},
    "tests.engine.test_clip_bounds": "tests.sound.test_clip_bounds",
}
FILES = "studio.sound.files"
# module -> (names that left it, where they went)
MOVED_NAMES = {
    "studio.engine.audio": (("read_audio", "write_audio_atomic", "AudioFileWriter"), FILES),
    "studio.library.clips": (("is_readable_audio", "clip_seconds"), FILES),
    "studio.engine.prompt_cache": (("FileHasher", "HASHES_FILE"), "studio.engine.file_hashes"),
    "studio.library.takes": (("TakeSettings", "TakeRun", "Take", "voice_key", "clean_take_name",
                              "clean_notes", "MAX_TAKE_NAME_CHARS", "DESIGN_KEY"),
                             "studio.library.take_record"),
}
SELF = ("move_sound.py", "test_move_sound.py")  # the rule and its test hold the old names
WIDTH = 100  # pyproject's ruff line-length

MODULE_PATH = re.compile(r"\b(" + "|".join(map(re.escape, MOVED_MODULES)) + r")\b")
# "from X import a, b" on one line, or "from X import (\n a,\n b,\n)" over several.
FROM_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)from[ \t]+(?P<module>[\w.]+)[ \t]+import[ \t]+"
    r"(?:\((?P<group>[^)]*)\)|(?P<line>[^\n(]*?))[ \t]*(?P<comment>#[^\n]*)?$",
    re.MULTILINE,
)
MODULE_ALIAS = re.compile(
    r"^(?P<indent>[ \t]*)(?:from[ \t]+studio\.engine[ \t]+import[ \t]+audio"
    r"|import[ \t]+studio\.engine\.audio)(?:[ \t]+as[ \t]+(?P<alias>\w+))?[ \t]*$",
    re.MULTILINE,
)


def _names(text: str) -> list[str]:
    """The imported names of a from-import's list, each as written ("a as b")."""
    text = re.sub(r"#[^\n]*", "", text).replace("\\\n", " ")
    return [" ".join(part.split()) for part in text.split(",") if part.strip()]


def _statement(indent: str, module: str, names: list[str], comment: str = "") -> str:
    line = f"{indent}from {module} import {', '.join(names)}"
    if comment:
        line += f"  {comment}"
    if len(line) <= WIDTH or len(names) == 1:
        return line
    body = "".join(f"{indent}    {name},\n" for name in names)
    return f"{indent}from {module} import ({'  ' + comment if comment else ''}\n{body}{indent})"


def _split_from_imports(text: str) -> str:
    """Moves the names that left a module to the module they went to."""

    def rewrite(match: re.Match) -> str:
        module, indent = match["module"], match["indent"]
        names = _names(match["group"] if match["group"] is not None else match["line"])
        comment = match["comment"] or ""
        submodules = {f"{module}.{n.split()[0]}": n for n in names}
        if submodules.keys() & MOVED_MODULES.keys():  # "from studio.audio import peaks, backend"
            moved = [n for full, n in submodules.items() if full in MOVED_MODULES]
            target = MOVED_MODULES[next(f for f in submodules if f in MOVED_MODULES)]
            target = target.rpartition(".")[0]  # each group moved to one package
        elif module in MOVED_NAMES:
            gone, target = MOVED_NAMES[module]
            moved = [n for n in names if n.split()[0] in gone]
        else:
            return match[0]
        if not moved:
            return match[0]
        kept = [n for n in names if n not in moved]
        lines = [_statement(indent, module, kept)] if kept else []
        lines.append(_statement(indent, target, moved, comment))
        return "\n".join(lines)

    return FROM_IMPORT.sub(rewrite, text)


def _module_attributes(text: str) -> str:
    """``audio.read_audio`` through ``from studio.engine import audio`` -> ``sound_files.``"""
    moved = MOVED_NAMES["studio.engine.audio"][0]
    for match in list(MODULE_ALIAS.finditer(text)):
        alias = match["alias"] or ("audio" if "from" in match[0] else None)
        if alias is None:  # "import studio.engine.audio": uses are spelled out in full
            pattern = re.compile(r"\bstudio\.engine\.audio\.(" + "|".join(moved) + r")\b")
        else:
            pattern = re.compile(r"(?<![\w.])" + re.escape(alias) + r"\.(" + "|".join(moved)
                                 + r")\b")
        if not pattern.search(text):
            continue
        text = pattern.sub(r"sound_files.\1", text)
        if "from studio.sound import files as sound_files" not in text:
            added = f"{match[0]}\n{match['indent']}from studio.sound import files as sound_files"
            text = text.replace(match[0], added, 1)
    return text


def rewrite(text: str) -> str:
    text = MODULE_PATH.sub(lambda match: MOVED_MODULES[match[1]], text)
    text = _split_from_imports(text)
    return _module_attributes(text)


def main() -> int:
    changed: list[Path] = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name in SELF:
                continue
            text = path.read_text(encoding="utf-8")
            new = rewrite(text)
            if new != text:
                path.write_text(new, encoding="utf-8")
                changed.append(path)
                print(path.relative_to(ROOT))
    print(f"{len(changed)} files rewritten", file=sys.stderr)
    ruff = shutil.which("ruff")
    if changed and ruff:  # a moved import now sorts elsewhere among its neighbours
        subprocess.run([ruff, "check", "--quiet", "--select", "I", "--fix", *map(str, changed)],
                       cwd=ROOT, check=False)
    elif changed:
        print("ruff not found: run `ruff check --select I --fix` on those files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
