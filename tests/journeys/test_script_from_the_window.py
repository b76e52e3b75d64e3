"""Journey (issue 25, finding 5): a script started from the window. File ▸ New script
opens a Save dialog; a new name makes the project (Browse's Open dialog said "File not
found"); lines are typed in place; a second speaker is added; the cast lists both with
their voices, the one with none yet marked; the lines table shows each line's voice."""

from __future__ import annotations

NEW_NAME = "radio play"


def _dialog(studio) -> dict | None:
    shown = studio.request("windows")["windows"]
    return next((w for w in shown if w["class"] == "QFileDialog"), None)


def _column(studio, target: str, column: int) -> list[str]:
    return [row[column] for row in studio.get(target)["cells"]]


def test_new_script_from_the_menu_lines_and_the_cast(launch, tmp_path, screenshot):
    studio = launch()
    studio.wait_model_loaded()
    studio.request("menu", path="File/New script", later=True)
    dialog = studio.wait_until(lambda: _dialog(studio), 20, "the New script dialog")
    assert dialog["title"] == "New script", dialog
    studio.request("file_dialog", path=str(tmp_path / NEW_NAME))  # a name typed, Enter
    studio.wait_until(lambda: _dialog(studio) is None, 10, "the dialog to close")
    studio.wait_until(lambda: studio.get("scriptLines")["count"] == 1, 10, "the first line")
    assert (tmp_path / f"{NEW_NAME}.ovproj").exists()
    assert studio.get("scriptView")["visible"]
    assert studio.status() == f"Made the project {NEW_NAME}.ovproj.", studio.status()

    # The first line is being edited: type it, Enter commits.
    studio.request("type_focused", text="Welcome to the show.", enter=True)
    studio.wait_until(lambda: _column(studio, "scriptLines", 3) == ["Welcome to the show."], 10,
                      "the first line's text")
    studio.type("newSpeakerEdit", "Bob")
    studio.key("newSpeakerEdit", "Return")
    studio.click_row("scriptLines", 0)
    studio.key("scriptLines", "Return")  # a new line after it, edited at once
    studio.request("type_focused", text="Thanks, glad to be here.", enter=True)
    studio.wait_until(lambda: studio.get("scriptLines")["count"] == 2, 10, "the second line")
    studio.click_row("scriptLines", 1)
    studio.key("scriptLines", "2", ["alt"])  # Alt+2: Bob says it
    studio.wait_until(lambda: _column(studio, "scriptLines", 1) == ["Narrator", "Bob"], 10,
                      "Bob's line")

    studio.choose("speakerCombo", "Narrator")
    studio.type("speakerInstructEdit", "female, low pitch")
    studio.key("speakerInstructEdit", "Return")
    studio.wait_until(lambda: _column(studio, "castTable", 1)[0]
                      == "Described: female, low pitch", 10, "the narrator's voice in the cast")

    cast = studio.get("castTable")
    assert cast["visible"]
    assert _column(studio, "castTable", 0) == ["Narrator", "Bob"]
    assert _column(studio, "castTable", 1) == ["Described: female, low pitch",
                                                "⚠ No voice yet"]
    assert _column(studio, "castTable", 2) == ["1", "1"]
    assert _column(studio, "scriptLines", 2) == ["Described: female, low pitch",
                                                  "⚠ No voice yet"]
    assert _column(studio, "scriptLines", 3) == ["Welcome to the show.",
                                                  "Thanks, glad to be here."]
    screenshot(studio, "cast")
    assert studio.close() == 0
