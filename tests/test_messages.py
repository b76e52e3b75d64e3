"""Every message the app can show is listed in docs/troubleshooting.md.

The messages are collected from the source by tools/list_messages.py (an AST scan
of UserError arguments, failure signals, message boxes, warnings, fallback
reason tables, ...); placeholders are wildcards. Run
``python tools/list_messages.py`` to see which ones the doc still lacks.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tools.list_messages import DOC, HOLE, Source, collect, missing, normalise, pattern


@pytest.fixture(scope="module")
def messages():
    return collect()


def _templates(messages) -> set[str]:
    return {m.template for m in messages}


def test_the_collector_finds_each_kind_of_message(messages):
    from studio.audio.backend import PORTAUDIO_MISSING
    from studio.engine.accel.reasons import REASONS
    from studio.selftest import TORCHAUDIO_MISSING
    from studio.worker.sentences import INTERNAL_ERROR

    found = _templates(messages)
    assert INTERNAL_ERROR in found  # a constant sent through a failed signal
    assert PORTAUDIO_MISSING in found  # a constant chosen by a conditional, raised as AudioError
    assert TORCHAUDIO_MISSING.replace("{torch}", HOLE) in found  # a .format template
    assert f"The project {HOLE} does not exist." in found  # an f-string UserError
    assert REASONS["no_cuda"] in found  # the fallback reason table
    assert "an unexpected internal error stopped the command" + HOLE + "." in found  # CLI line
    assert len(messages) > 100


def test_every_message_is_in_troubleshooting(messages):
    absent = missing(messages)
    listing = "\n".join(f"  {m.where}: {m.display}" for m in absent)
    assert not absent, (f"{len(absent)} messages are not in {DOC.name} "
                        f"(python tools/list_messages.py):\n{listing}")


def _package(tmp_path: Path, code: str) -> Path:
    root = tmp_path / "studio"
    root.mkdir()
    (root / "errors.py").write_text("class UserError(Exception):\n    pass\n")
    (root / "new_feature.py").write_text(textwrap.dedent(code))
    return root


def test_a_message_added_in_a_new_module_is_caught(tmp_path):
    root = _package(tmp_path, """
        from studio.errors import UserError

        BROKEN = "The widget cache is broken; delete {folder} and restart."

        class WidgetError(UserError):
            pass

        class WorseError(WidgetError):
            pass

        def fail(path, folder):
            raise WorseError(f"The widget {path} cannot be read; choose another one.")

        def fail_later(folder):
            reason = BROKEN.format(folder=folder)
            raise WidgetError(reason)

        def ok_note(count):
            return f"{count} widgets were skipped: they are too old."

        class Worker:
            def run(self):
                self.render_failed.emit(1, "The renderer stopped; try again.")

        def resolve(value):
            return value, f"The value {value} is unknown, so it is ignored."

        def checked(value):
            return resolve(value)

        def use(value, warn):
            result, note = checked(value)
            if note:
                warn(note)
    """)
    found = {m.template for m in Source(root).messages()}
    assert f"The widget {HOLE} cannot be read; choose another one." in found
    assert f"The widget cache is broken; delete {HOLE} and restart." in found
    assert f"{HOLE} widgets were skipped: they are too old." in found
    assert "The renderer stopped; try again." in found
    assert f"The value {HOLE} is unknown, so it is ignored." in found  # through a returned tuple


def test_a_message_built_from_itself_is_read_without_end(tmp_path):
    root = _package(tmp_path, """
        def report(show_error, sentence, kept):
            if kept:
                sentence = f"{sentence} The part recorded before it was kept."
            show_error(sentence)
    """)
    found = {m.template for m in Source(root).messages()}
    assert f"{HOLE} The part recorded before it was kept." in found


def test_wording_free_templates_are_not_messages(tmp_path):
    root = _package(tmp_path, """
        from studio.errors import UserError

        def fail(exc):
            raise UserError(str(exc))

        def fail_again(exc):
            raise UserError(f"{exc}")
    """)
    assert Source(root).messages() == []


@pytest.mark.parametrize("line", [
    "`The reference clip <path> does not exist.`",
    "| `The reference clip {path} does not exist.` | Check the path. |",
    "- The reference clip …/voice.wav does not exist.",
    "the   reference clip X  DOES not exist.",
])
def test_a_doc_line_matches_with_any_placeholder_spelling(line):
    template = f"The reference clip {HOLE} does not exist."
    assert pattern(template).search(normalise(line.replace("`", "")))


@pytest.mark.parametrize("line", [
    "The reference clip <path> does not exists.",
    "The reference clip does",
    "The clip <path> does not exist.",
])
def test_a_changed_word_does_not_match(line):
    template = f"The reference clip {HOLE} does not exist."
    assert not pattern(template).search(normalise(line))


def test_typography_is_normalised():
    assert normalise("Loading …  it’s “here”") == normalise("loading ... it's \"here\"")


def test_missing_reports_only_unlisted_messages(tmp_path):
    root = _package(tmp_path, """
        from studio.errors import UserError

        def a():
            raise UserError("The first thing failed; retry.")

        def b(x):
            raise UserError(f"The second thing {x} failed; retry.")
    """)
    doc = tmp_path / "troubleshooting.md"
    doc.write_text("| `The second thing <name> failed; retry.` | ... |\n", encoding="utf-8")
    absent = missing(Source(root).messages(), doc)
    assert [m.template for m in absent] == ["The first thing failed; retry."]
