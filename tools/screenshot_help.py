"""Render the Help menu's self-test report and About box offscreen to PNG.

    python tools/screenshot_help.py [OUT_DIR]      (default: docs/screenshots)

Runs the real self-test (a child process, tiny random model, nothing downloaded)
in a temporary data folder and grabs the dialog once it has finished
(studio-selftest.png), then the About box (studio-about.png).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout


def main(out: Path) -> int:
    from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox

    out.mkdir(parents=True, exist_ok=True)
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = tempfile.mkdtemp(prefix="omnivoice-shots-")
    app = QApplication.instance() or QApplication([])

    from studio.views.help_menu import about_text, install_help_menu

    window = QMainWindow()
    menu = install_help_menu(window)
    dialog = menu.run_selftest()
    deadline = time.monotonic() + 300
    while dialog.exit_code is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.05)
    dialog.grab().save(str(out / "studio-selftest.png"))
    # The About box names the data folder: show the one a user on Linux has, not this
    # run's temporary folder (the guide showed /tmp/omnivoice-shots-…).
    os.environ["OMNIVOICE_DESKTOP_DATA_DIR"] = "/home/you/.local/share/OmniVoice Desktop"
    box = QMessageBox(QMessageBox.Icon.NoIcon, "About OmniVoice Desktop", about_text(),
                      parent=window)
    box.show()
    app.processEvents()
    box.grab().save(str(out / "studio-about.png"))
    print(f"self-test exit {dialog.exit_code}; wrote {out}/studio-selftest.png, studio-about.png")
    return 0 if dialog.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else
                  Path(__file__).resolve().parents[1] / "docs" / "screenshots"))
