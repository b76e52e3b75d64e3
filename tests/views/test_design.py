"""Design view: the pickers allow exactly what the engine accepts, the description maps
words onto attributes and highlights the rest, and the view emits design requests."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from studio_fakes import SILENT, make_settings

from studio.engine.describe import CATEGORY_KEYS, build_instruct, item_key, map_description
from studio.engine.instruct import CATEGORIES, normalize_instruct
from studio.errors import UserError
from studio.service.requests import RenderRequest
from studio.sound.files import write_audio_atomic
from studio.views.design_attributes import DesignAttributes
from studio.views.design_view import REFERENCE_NOTE, DesignView

CHOICES = {c.key: [None, *(item_key(i) for i in c.items)] for c in CATEGORIES}
ALL_KEYS = {item_key(i) for c in CATEGORIES for i in c.items}


def engine_accepts(selection: dict, use_zh: bool = False) -> bool:
    try:
        normalize_instruct(build_instruct(selection), use_zh)
    except UserError:
        return False
    return True


def pick(widget: DesignAttributes, wanted: dict) -> bool:
    """Choose ``wanted`` the way a user can: clear what must go, then pick in order,
    only from enabled pickers and items. False as soon as the UI refuses one."""
    current = widget.selection()
    for key in CATEGORY_KEYS:
        if wanted[key] is None and current[key] is not None:
            if not widget.item_enabled(key, None):
                return False
            widget.combos[key].setCurrentIndex(0)
    for key in CATEGORY_KEYS:
        value = wanted[key]
        if value is not None and widget.selection()[key] != value:
            if not widget.item_enabled(key, value):
                return False
            widget.combos[key].setCurrentIndex(CHOICES[key].index(value))
    return True


@pytest.fixture
def attributes(qtbot) -> DesignAttributes:
    widget = DesignAttributes()
    qtbot.addWidget(widget)
    return widget


def test_every_combination_the_ui_allows_is_accepted_and_every_rejected_one_is_impossible(
        attributes):
    allowed = rejected = 0
    for values in itertools.product(*(CHOICES[k] for k in CATEGORY_KEYS)):
        wanted = dict(zip(CATEGORY_KEYS, values))
        accepted = engine_accepts(wanted)
        if pick(attributes, wanted):
            assert attributes.selection() == wanted
            assert accepted, f"the UI allowed {wanted}, which the engine rejects"
            assert attributes.instruct() == normalize_instruct(build_instruct(wanted), False)
            allowed += 1
        else:
            assert not accepted, f"the UI refused {wanted}, which the engine accepts"
            rejected += 1
    total = 1
    for values in CHOICES.values():
        total *= len(values)
    assert allowed + rejected == total
    assert rejected == 3 * 6 * 6 * 2 * 10 * 12  # exactly the accent-with-dialect ones


def test_a_dialect_blocks_accents_too_and_says_why(attributes):
    attributes.combos["dialect"].setCurrentIndex(CHOICES["dialect"].index("四川话"))
    accent = attributes.combos["accent"]
    assert not accent.isEnabled()
    assert "dialect" in accent.toolTip() and "accent" in accent.toolTip()
    assert not attributes.item_enabled("accent", "british accent")
    attributes.combos["dialect"].setCurrentIndex(0)
    assert accent.isEnabled() and attributes.item_enabled("accent", "british accent")


def test_an_accent_disables_the_dialect_picker_with_a_tooltip(attributes):
    attributes.combos["accent"].setCurrentIndex(CHOICES["accent"].index("british accent"))
    dialect = attributes.combos["dialect"]
    assert not dialect.isEnabled()
    assert "accent" in dialect.toolTip() and "one or the other" in dialect.toolTip()
    assert attributes.set_selection({"accent": "british accent", "dialect": "四川话"}) is False


def test_a_blocked_dialect_box_says_why_in_the_box_and_the_language_tag_in_words(attributes):
    """Review 5, item 12: the greyed dialect box had no text, the tag said only "EN"."""
    dialect = attributes.combos["dialect"]
    attributes.combos["accent"].setCurrentIndex(CHOICES["accent"].index("british accent"))
    assert dialect.currentText() == "Accent chosen"
    assert dialect.toolTip().startswith(
        "Dialects are for Chinese voices; an English accent is chosen.")
    assert attributes.languageTag.text() == "In English"
    assert "border" not in attributes.languageTag.styleSheet()  # a pill beside Clear read as a button
    assert attributes.languageTag.toolTip() == (
        "The model gets this voice description in English, because an English accent is "
        "chosen.")
    attributes.combos["accent"].setCurrentIndex(0)
    assert dialect.isEnabled() and dialect.currentText() == "—"
    assert attributes.selection()["dialect"] is None


def test_chinese_target_text_writes_the_instruct_in_chinese(attributes):
    preview = attributes.findChild(QLabel, "instructPreview")
    assert preview is attributes.preview
    attributes.set_selection({"gender": "female", "pitch": "low pitch"})
    assert preview.text() == "female, low pitch"
    attributes.set_target_text("今天天气很好。")
    assert preview.text() == "女，低音调" == attributes.instruct()
    assert attributes.languageTag.text() == "In Chinese (中文)"
    for gender, accent, dialect in itertools.product(
            CHOICES["gender"], CHOICES["accent"][:3], CHOICES["dialect"][:3]):
        wanted = dict.fromkeys(CATEGORY_KEYS) | {"gender": gender, "accent": accent,
                                                 "dialect": dialect}
        if attributes.set_selection(wanted):
            assert attributes.instruct() == normalize_instruct(build_instruct(wanted), True)
    attributes.set_selection({"gender": "male", "accent": "british accent"})
    assert attributes.instruct() == "male, british accent"  # an accent keeps English


def test_preview_without_attributes_says_the_model_chooses(attributes):
    assert attributes.instruct() is None
    assert "model chooses" in attributes.preview.text()


def test_description_sets_pickers_and_highlights_unmapped_words(attributes):
    attributes.set_description("an old man with a deep voice, slightly raspy")
    assert attributes.selection() | {} == dict.fromkeys(CATEGORY_KEYS) | {
        "gender": "male", "age": "elderly", "pitch": "low pitch"}
    assert attributes.instruct() == "male, elderly, low pitch"
    text = attributes.description()
    highlighted = [text[s.cursor.selectionStart():s.cursor.selectionEnd()]
                   for s in attributes.describeEdit.extraSelections()]
    assert highlighted == ["slightly", "raspy"]
    feedback = attributes.findChild(QLabel, "descriptionFeedback").text()
    assert "slightly" in feedback and "raspy" in feedback and "Not understood" in feedback


def test_feedback_tooltip_is_the_sentence_the_cli_and_server_answer(attributes):
    feedback = attributes.findChild(QLabel, "descriptionFeedback")
    attributes.set_description("an old man, slightly raspy")
    assert feedback.toolTip() == map_description("an old man, slightly raspy").problem
    assert "'slightly', 'raspy' are no voice attributes" in feedback.toolTip()
    attributes.set_description("an old man")
    assert feedback.toolTip() == ""


def test_description_owns_only_what_it_set(attributes):
    attributes.combos["style"].setCurrentIndex(1)  # whisper, by hand
    attributes.set_description("old man")
    assert attributes.selection()["age"] == "elderly"
    attributes.set_description("man")
    assert attributes.selection()["age"] is None  # the word that set it is gone
    assert attributes.selection()["style"] == "whisper"  # the hand-picked value stays
    attributes.combos["gender"].setCurrentIndex(2)  # female by hand: now the user's
    attributes.set_description("")
    assert attributes.selection()["gender"] == "female"


def test_a_pick_the_description_did_not_set_is_named_as_kept(attributes):
    """Review 6: "a young boy with a squeaky voice" kept an earlier British accent silently
    (and set no age)."""
    feedback = attributes.findChild(QLabel, "descriptionFeedback")
    kept = attributes.findChild(QLabel, "keptPicksNote")  # under the pickers
    attributes.set_selection({"accent": "british accent"})
    attributes.set_description("a young boy with a squeaky voice")
    assert attributes.selection()["age"] == "child"
    assert attributes.selection()["accent"] == "british accent"
    assert "Also kept from your picks: <b>british accent</b>" in kept.text()
    assert not kept.isHidden() and "Understood" in feedback.text()
    attributes.combos["accent"].setCurrentIndex(0)  # —: dropped, and no longer named
    assert "Also kept" not in kept.text() and kept.isHidden()
    assert "Understood" in feedback.text()


def test_a_pick_over_the_words_is_named_as_replacing_them(attributes):
    """Review 9: "an old man with a deep voice", then Female by hand: the instruct said
    female while the feedback still said "Understood: male"."""
    feedback = attributes.findChild(QLabel, "descriptionFeedback")
    attributes.set_description("an old man with a deep voice")
    assert "Understood: <b>male</b> · <b>elderly</b> · <b>low pitch</b>" in feedback.text()
    gender = attributes.combos["gender"]
    gender.setCurrentIndex(gender.findText("Female"))
    assert attributes.instruct() == "female, elderly, low pitch"
    assert "Understood: <b>elderly</b> · <b>low pitch</b>" in feedback.text()
    assert "Your pick replaces: <b>male</b> → <b>female</b>" in feedback.text()
    attributes.combos["pitch"].setCurrentIndex(0)  # —: the words' low pitch dropped too
    assert "Your picks replace: <b>male</b> → <b>female</b> · <b>low pitch</b> → <b>—</b>" \
        in feedback.text()
    assert "Understood: <b>elderly</b>" in feedback.text() and "Also kept" not in feedback.text()
    attributes.set_selection({"gender": "male", "age": "elderly", "pitch": "low pitch"})
    assert "replace" not in feedback.text()  # the picks agree with the words again
    assert "Understood: <b>male</b> · <b>elderly</b> · <b>low pitch</b>" in feedback.text()


def test_description_accent_replaces_a_hand_picked_dialect(attributes):
    attributes.set_selection({"dialect": "四川话"})
    attributes.set_description("british accent")
    assert attributes.selection()["accent"] == "british accent"
    assert attributes.selection()["dialect"] is None


def test_changed_fires_and_clear_resets(qtbot, attributes):
    with qtbot.waitSignal(attributes.changed):
        attributes.combos["gender"].setCurrentIndex(1)
    attributes.set_description("whispering")
    attributes.clear()
    assert attributes.instruct() is None and attributes.description() == ""


def test_controls_have_accessible_names_and_tooltips(attributes):
    for combo in attributes.combos.values():
        assert combo.accessibleName() and combo.toolTip()
    for widget in (attributes.describeEdit, attributes.preview, attributes.clearButton):
        assert widget.accessibleName() and widget.toolTip()


# ---------------------------------------------------------------- the view

@pytest.fixture
def view(qtbot) -> DesignView:
    widget = DesignView(None, audio_status=SILENT)
    qtbot.addWidget(widget)
    return widget


def test_view_names_and_note(view):
    assert view.objectName() == "designView"
    for name in ("textEdit", "instructPreview", "generateButton", "cancelButton", "progressBar",
                 "refPathEdit", "refTextEdit"):
        assert view.findChild(QWidget, name) is not None, name
    assert view.note.text() == REFERENCE_NOTE


def test_generate_emits_a_design_request(qtbot, view):
    view.attributes.set_description("elderly woman, british accent")
    view.form.set_text("Good evening.")
    with qtbot.waitSignal(view.render_requested) as emitted:
        view.form.generateButton.click()
    request = emitted.args[0]
    assert isinstance(request, RenderRequest)
    assert request.mode == "design" and request.reference is None and request.ref_text is None
    assert request.instruct == "female, elderly, british accent"
    assert request.text == "Good evening."


def test_generate_with_a_reference_clip(qtbot, view, tmp_path, speech):
    clip = tmp_path / "voice.wav"
    write_audio_atomic(clip, speech(1.0), 24000)
    view.reference.set_reference(clip)
    view.reference.set_transcript("What it says.")
    assert view.referenceSection.is_expanded()
    view.attributes.set_selection({"gender": "male"})
    view.form.set_text("你好。")
    with qtbot.waitSignal(view.render_requested) as emitted:
        view.form.generateButton.click()
    request = emitted.args[0]
    assert request.reference == clip and request.ref_text == "What it says."
    assert request.instruct == "男"  # Chinese text: Chinese instruct


def test_refuses_without_text(qtbot, view):
    with qtbot.assertNotEmitted(view.render_requested):
        view.form.generateButton.click()
    assert "text" in view.form.message_text()


def test_slots_drive_the_form(view):
    view.set_busy(True)
    assert not view.form.generateButton.isEnabled()
    view.on_progress(4, 16, 1, 1)
    assert "step 4/16" in view.form.progress_text()
    view.on_failed("The model is not loaded yet.")
    assert view.form.message_text() == "The model is not loaded yet."
    view.set_busy(True)
    view.on_finished()
    view.set_busy(False)  # the main window's call, after the view's last job
    assert view.form.generateButton.isEnabled()
    view.set_busy(True)
    view.on_cancelled()
    assert view.form.message_text() == "Cancelled."


def test_state_round_trip(qtbot, tmp_path):
    settings = make_settings(tmp_path / "s.ini")
    first = DesignView(None, audio_status=SILENT)
    qtbot.addWidget(first)
    first.attributes.set_description("an old man")
    first.attributes.combos["style"].setCurrentIndex(1)
    first.form.set_text("Again.")
    first.save_state(settings)
    second = DesignView(None, audio_status=SILENT)
    qtbot.addWidget(second)
    second.restore_state(settings)
    assert second.attributes.selection() == first.attributes.selection()
    assert second.attributes.description() == "an old man"
    assert second.form.text() == "Again."


def test_the_missing_text_error_goes_once_the_person_leaves_the_view(view):
    """As in Clone (review 6, item 3): a stale "type the text" read as a new problem."""
    from studio.views.generate_form import NO_TEXT

    view.show()
    assert view.build_request() is None
    assert view.form.message_text() == NO_TEXT
    view.hide()
    view.show()
    assert view.form.message_text() == ""
