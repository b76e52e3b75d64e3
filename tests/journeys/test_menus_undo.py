"""Journey: the menu bar and Ctrl+Z in the launched program (issue 25, findings 4 and 12).

A take is rendered, deleted, and brought back from another view with Edit ▸ Undo chosen
with the mouse; deleted again and brought back with Ctrl+Z; the take's settings are put
into the form and Ctrl+Z gives the typed text back; Help ▸ Keyboard shortcuts lists the
keys; File ▸ Quit ends the program cleanly."""

from __future__ import annotations

from studio_process import design_generate, take_count, wait_takes


def test_menus_and_ctrl_z_undo_destructive_edits(launch, screenshot):
    studio = launch()
    studio.wait_model_loaded()
    design_generate(studio, "A take to delete and bring back.")
    wait_takes(studio, 1)

    studio.key("takesList", "Delete")
    studio.wait_until(lambda: take_count(studio) == 0, 30, "the take to be deleted")
    assert studio.menu("View/Voices") == "Voices"
    studio.wait_until(lambda: studio.get("voicesView")["visible"], 10, "the Voices view")
    assert studio.menu("Edit/Undo") == "Undo Delete 1 take"
    studio.wait_until(lambda: take_count(studio) == 1, 30, "Edit ▸ Undo to bring the take back")

    studio.key("takesList", "Delete")
    studio.wait_until(lambda: take_count(studio) == 0, 30, "the second delete")
    studio.key("sidebar", "Z", ["ctrl"])
    studio.wait_until(lambda: take_count(studio) == 1, 30, "Ctrl+Z to bring the take back")

    studio.menu("View/Design")
    studio.type("designForm/textEdit", "Words I typed myself.")
    studio.click_row("takesList", 0)
    studio.click("takeDetail/copySettingsButton")
    studio.wait_until(lambda: studio.text("designForm/textEdit")
                      == "A take to delete and bring back.", 10, "the take's settings")
    assert "Edit ▸ Undo" in studio.status()
    studio.key("sidebar", "Z", ["ctrl"])
    studio.wait_until(lambda: studio.text("designForm/textEdit") == "Words I typed myself.", 10,
                      "Ctrl+Z to give the typed text back")

    studio.menu("Help/Keyboard shortcuts")
    table = studio.wait_until(lambda: studio.get("shortcutsTable"), 10, "the shortcuts sheet")
    assert table["visible"]
    screenshot(studio, "shortcuts", "shortcutsDialog")
    studio.key("shortcutsTable", "Escape")

    try:
        studio.menu("File/Quit")
    except AssertionError:
        pass  # the program may be gone before the driver answers
    assert studio.wait_exit(30) == 0
