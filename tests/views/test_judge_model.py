"""Settings → Judging names the Whisper the words judge hears with and, when it is not on
this computer, offers to download it, asking first with its size (the review found only a
command line to type in the takes' explanation)."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QPushButton

from studio.views.judge_model import JudgeModelRow


def test_the_words_judges_model_is_downloaded_from_settings_after_asking(qtbot, tmp_path):
    here: set[str] = set()
    fetched = []

    def downloader(repo, on_progress=None, cancel=None):
        fetched.append(repo)
        here.add(repo)
        return tmp_path / "whisper"

    row = JudgeModelRow(lambda: "openai/whisper-base", downloader=downloader,
                        on_disk=lambda model: "/somewhere" if model in here else None)
    qtbot.addWidget(row)
    row.show()
    assert row.button.isVisible() and row.button.text() == "Download (about 290 MB)"
    assert row.label.text() == ("Words are judged once openai/whisper-base (about 290 MB) is "
                                "on this computer.")
    row.button.click()
    boxes = [w for w in QApplication.topLevelWidgets()
             if w.objectName() == "asrDownloadQuestion" and w.isVisible()]
    assert len(boxes) == 1
    box = boxes[0]
    assert box.text().startswith("Judging the words of a take needs the speech recognition "
                                 "model openai/whisper-base (about 290 MB).")
    box.findChild(QPushButton, "asrDownloadButton").click()
    qtbot.waitUntil(lambda: not row.button.isVisible(), timeout=10_000)
    assert fetched == ["openai/whisper-base"]
    assert row.label.text() == "Words are heard by openai/whisper-base."
