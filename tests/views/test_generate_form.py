"""GenerateForm: request fields from presets and advanced values, shortcuts, tags,
the language search, progress with time left, and saved state."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt

from studio.engine.text import NONVERBAL_TAGS, PAUSE_TAGS
from studio.settings import Settings
from studio.views.generate_form import GenerateForm, seeds_for
from studio.views.progress_text import format_eta
from studio.views.widgets.language_picker import AUTO_LABEL


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def form(qtbot, clock):
    widget = GenerateForm("clone", clock=clock)
    qtbot.addWidget(widget)
    return widget


@pytest.fixture
def settings(tmp_path):
    return Settings(QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat), environ={})


def test_defaults_make_a_standard_request(form):
    form.set_text("Hello there.")
    fields = form.request_fields()
    assert set(fields) == {"text", "language", "options", "speed", "duration", "seeds",
                           "preprocess", "until_pass"}
    assert fields["text"] == "Hello there." and fields["until_pass"] is False
    assert fields["language"] is None
    decode = fields["options"].decode
    assert (decode.num_step, decode.guidance_scale, decode.t_shift) == (16, 2.0, 0.1)
    assert fields["options"].denoise and fields["options"].postprocess
    assert fields["speed"] is None and fields["duration"] is None
    assert fields["seeds"] == (None,)
    assert fields["preprocess"] is True
    assert form.stepsLabel.text() == "16 steps"


@pytest.mark.parametrize(("preset", "steps"), [("Draft", 12), ("Standard", 16), ("Final", 32)])
def test_presets_set_the_step_count(form, preset, steps):
    form.presetButtons[preset].click()
    assert form.request_fields()["options"].decode.num_step == steps
    assert form.stepsLabel.text() == f"{steps} steps"


def test_advanced_values_reach_the_request(form):
    form.presetButtons["Final"].click()
    form.guidanceSpin.setValue(3.5)
    form.tShiftSpin.setValue(0.3)
    form.takesSpin.setValue(3)
    form.seedLock.setChecked(True)
    form.seedSpin.setValue(7)
    form.denoiseCheck.setChecked(False)
    form.preprocessCheck.setChecked(False)
    form.postprocessCheck.setChecked(False)
    fields = form.request_fields()
    options = fields["options"]
    assert options.decode.num_step == 32
    assert options.decode.guidance_scale == pytest.approx(3.5)
    assert options.decode.t_shift == pytest.approx(0.3)
    assert options.denoise is False and options.postprocess is False
    assert fields["preprocess"] is False
    assert fields["seeds"] == (7, 8, 9)


def test_random_seed_gives_one_none_per_take(form):
    form.takesSpin.setValue(4)
    assert form.request_fields()["seeds"] == (None, None, None, None)
    form.seedLock.setChecked(True)
    assert form.seedSpin.isEnabled()
    form.seedLock.setChecked(False)
    assert not form.seedSpin.isEnabled()
    assert seeds_for(2, 2**31 - 1) == (2**31 - 1, 0)


def test_speed_and_duration_modes_are_exclusive(form):
    form.set_length_mode("speed")
    form.speedSpin.setValue(1.25)
    form.durationSpin.setValue(6.5)
    fields = form.request_fields()
    assert fields["speed"] == pytest.approx(1.25) and fields["duration"] is None
    assert form.lengthStack.currentWidget() is form.speedSpin

    form.set_length_mode("duration")
    fields = form.request_fields()
    assert fields["duration"] == pytest.approx(6.5) and fields["speed"] is None
    assert form.lengthStack.currentWidget() is form.durationSpin

    form.set_length_mode("natural")
    fields = form.request_fields()
    assert fields["speed"] is None and fields["duration"] is None


def _show_active(qtbot, widget):
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    qtbot.waitUntil(widget.isActiveWindow)


def test_ctrl_enter_generates_and_esc_cancels_only_while_busy(qtbot, form):
    _show_active(qtbot, form)
    form.textEdit.setFocus()
    with qtbot.waitSignal(form.generate_requested, timeout=1000):
        qtbot.keyClick(form.textEdit, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert form.text() == ""  # the shortcut did not type a newline

    with qtbot.assertNotEmitted(form.cancel_requested, wait=50):
        qtbot.keyClick(form.textEdit, Qt.Key.Key_Escape)

    form.set_busy(True)
    assert not form.generateButton.isEnabled() and form.cancelButton.isEnabled()
    with qtbot.waitSignal(form.cancel_requested, timeout=1000):
        qtbot.keyClick(form.textEdit, Qt.Key.Key_Escape)
    with qtbot.assertNotEmitted(form.generate_requested, wait=50):
        qtbot.keyClick(form.textEdit, Qt.Key.Key_Enter,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier)

    form.set_busy(False)
    assert form.generateButton.isEnabled() and not form.cancelButton.isEnabled()
    with qtbot.waitSignal(form.generate_requested, timeout=1000):
        form.generateButton.click()


def test_tag_menu_lists_the_tags_and_inserts_at_the_cursor(form):
    listed = [a.data() for a in form.tagMenu.actions() if not a.isSeparator()]
    assert listed == list(NONVERBAL_TAGS) + list(PAUSE_TAGS)
    # Issue 25 (9): each says what it sounds like, the tag beside it.
    texts = {a.data(): a.text() for a in form.tagMenu.actions() if not a.isSeparator()}
    assert texts["[question-ei]"] == "A questioning “eh?”\t[question-ei]"
    assert all(text.split("\t")[0] != tag for tag, text in texts.items())
    assert len(NONVERBAL_TAGS) == 13
    form.set_text("Hello world")
    cursor = form.textEdit.textCursor()
    cursor.setPosition(5)
    form.textEdit.setTextCursor(cursor)
    form.tagMenu.actions()[0].trigger()  # [laughter]
    assert form.text() == "Hello [laughter] world"
    assert form.textEdit.textCursor().position() == len("Hello [laughter]")

    form.set_text("Well")
    cursor = form.textEdit.textCursor()
    cursor.setPosition(4)
    form.textEdit.setTextCursor(cursor)
    form.insert_tag("[sigh]")
    assert form.text() == "Well [sigh]"


def test_language_picker_searches_by_name_and_id(qtbot, form):
    picker = form.languagePicker
    assert picker.count() == 647  # Auto + the 646 languages
    assert picker.itemText(0) == AUTO_LABEL and picker.language() is None

    picker.lineEdit().clear()
    qtbot.keyClicks(picker.lineEdit(), "jap")
    assert picker.matches()[0] == "Japanese (ja)"

    picker.lineEdit().clear()
    qtbot.keyClicks(picker.lineEdit(), "ja")
    assert picker.matches()[0] == "Japanese (ja)"  # the exact id ranks first
    with qtbot.waitSignal(picker.language_changed) as changed:
        picker.lineEdit().editingFinished.emit()
    assert changed.args == ["ja"]
    assert picker.language() == "ja"
    assert form.request_fields()["language"] == "ja"

    picker.set_language("fr")
    assert picker.language() == "fr" and picker.label() == "French (fr)"
    picker.set_language("not-a-language")
    assert picker.language() is None


def test_language_picker_keeps_the_choice_on_nonsense(qtbot, form):
    picker = form.languagePicker
    picker.set_language("de")
    picker.lineEdit().clear()
    qtbot.keyClicks(picker.lineEdit(), "qqqqzz")
    assert picker.matches() == []
    picker.lineEdit().editingFinished.emit()
    assert picker.language() == "de" and picker.lineEdit().text() == "German (de)"


def test_progress_shows_steps_chunks_and_time_left(form, clock):
    form.set_busy(True)
    assert form.progressBar.maximum() == 0  # indeterminate until the first step
    form.set_progress(1, 16, 1, 1)
    assert form.progress_text() == "step 1/16 · estimating time left"
    clock.now += 4.0  # 4 more steps at 1 s each
    form.set_progress(5, 16, 1, 1)
    assert form.progress_text() == "step 5/16 · about 11 s left"
    assert (form.progressBar.value(), form.progressBar.maximum()) == (5, 16)

    form.set_busy(True)  # a new render starts timing afresh
    form.set_progress(2, 16, 1, 2)
    clock.now += 18.0  # 18 steps in 18 s; 12 left
    form.set_progress(4, 16, 2, 2)
    assert form.progress_text() == "step 4/16 · chunk 2/2 · about 12 s left"
    assert (form.progressBar.value(), form.progressBar.maximum()) == (20, 32)

    form.set_busy(False)
    form.reset_progress()
    assert form.progress_text() == "Ready" and form.progressBar.value() == 0


def test_progress_fits_a_narrow_bar_on_one_line_with_the_whole_in_its_tooltip(qtbot, form,
                                                                              clock):
    """Seen at 1024x640: "step 3/16 · chunk 1/2 · about 1 min 33 s left" wrapped onto two
    lines in the bar and was clipped. The least needed parts give way; the tooltip and
    the accessible description keep the whole line."""
    form.resize(520, 700)
    form.show()
    qtbot.waitExposed(form)
    bar = form.progressBar
    bar.setFixedWidth(240)  # as wide as the bar is at 1024x640
    form.set_busy(True)
    form.set_progress(1, 16, 1, 2)
    clock.now += 6.4  # 3.2 s a step, 29 steps left
    form.set_progress(3, 16, 1, 2)
    whole = bar.toolTip()
    assert whole.startswith("step 3/16 · chunk 1/2 · about 1 min 3") and whole.endswith(" s left")
    assert bar.accessibleDescription() == whole
    shown = form.progress_text()
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.contentsRect().width() - 8
    assert shown == whole.replace("chunk 1/2 · ", ""), shown  # the chunk gave way
    bar.setMinimumWidth(0)
    bar.setMaximumWidth(16777215)


def test_eta_wording():
    assert format_eta(0.4) == "about 0 s left"
    assert format_eta(59) == "about 59 s left"
    assert format_eta(125) == "about 2 min 5 s left"
    assert format_eta(120) == "about 2 min left"
    assert format_eta(1300) == "about 21 min left"


def test_state_round_trip_keeps_each_prefix_apart(qtbot, form, settings):
    form.set_text("Saved text [sigh]")
    form.languagePicker.set_language("ja")
    form.presetButtons["Draft"].click()
    form.guidanceSpin.setValue(2.7)
    form.tShiftSpin.setValue(0.25)
    form.set_length_mode("duration")
    form.durationSpin.setValue(4.5)
    form.seedLock.setChecked(True)
    form.seedSpin.setValue(1234)
    form.takesSpin.setValue(3)
    form.denoiseCheck.setChecked(False)
    form.advanced.set_expanded(True)
    form.save_state(settings)

    # A fresh Settings over the same file: values come back as INI strings.
    reread = Settings(QSettings(settings._store.fileName(), QSettings.Format.IniFormat),
                      environ={})
    again = GenerateForm("clone")
    qtbot.addWidget(again)
    again.restore_state(reread)
    assert again.request_fields() == form.request_fields()
    assert again.preset() == "Draft" and again.advanced.is_expanded()
    assert again.length_mode() == "duration"

    other = GenerateForm("design")
    qtbot.addWidget(other)
    other.restore_state(reread)
    assert other.text() == "" and other.preset() == "Standard"
    assert other.request_fields()["seeds"] == (None,)


def test_messages_show_inline(form):
    form.show_message("The text is empty; type what the voice should say.")
    assert form.message_text().startswith("The text is empty")
    assert form.message.is_error()
    form.set_busy(True)  # a new render clears an old complaint
    assert form.message_text() == ""


def test_done_goes_after_a_few_seconds_or_at_the_next_edit(qtbot, form):
    """Issue 25: a blue "Done" bar stayed under Clone for minutes."""
    form.set_model_state("Ready", "")
    form.set_busy(True)
    form.set_busy(False)
    form.finish_progress()
    assert form.progress_text() == "Done" and form.doneTimer.isActive()
    assert form.doneTimer.interval() <= 6000
    form.set_text("The next line.")  # an edit: the bar is the model's state again
    assert form.progress_text() == "Ready" and form.progressBar.value() == 0
    form.doneTimer.setInterval(50)
    form.finish_progress()
    qtbot.waitUntil(lambda: form.progress_text() == "Ready", timeout=2000)
