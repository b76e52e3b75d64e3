"""Clone's reference cleanup and the form's Advanced switches say what each acts on
(issue 28's new-user review): "Clean up: Noise" beside Advanced "Denoise" and "Preprocess
reference" left a new user unable to tell which cleaned what."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QCheckBox, QLabel

from studio.views.cleanup_panel import CleanupPanel
from studio.views.generate_form import GenerateForm

SMALL = {"the", "a", "an", "of", "to", "in", "up", "its"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.replace("&", "").lower()) if w not in SMALL}


def controls(qtbot) -> dict[str, tuple[str, str]]:
    """(label, tooltip) of each control, by what it is."""
    panel = CleanupPanel()
    form = GenerateForm("clone")
    qtbot.addWidget(panel)
    qtbot.addWidget(form)
    group = next(label for label in panel.findChildren(QLabel)
                 if label.objectName() == "cleanupTitle")
    found = {"cleanup": (group.text(), group.toolTip())}
    for step, box in panel.checks.items():
        # A step whose package is missing carries that sentence as its tooltip instead.
        from studio.views.cleanup_panel import TIPS

        found[f"clean {step}"] = (box.text(), TIPS[step])
    for name in ("denoiseCheck", "preprocessCheck", "postprocessCheck"):
        box = form.findChild(QCheckBox, name)
        found[name] = (box.text(), box.toolTip())
    return found


def test_no_two_controls_claim_the_same_words(qtbot):
    found = controls(qtbot)
    for name, (label, _tip) in found.items():
        for other, (label2, _tip2) in found.items():
            if name == other:
                continue
            for word in words(label):
                for word2 in words(label2):  # "Denoise" claims "Noise" too
                    assert word not in word2, (f"{name} {label!r} and {other} {label2!r} "
                                               f"both say {word!r}")


def test_each_tooltip_says_what_it_acts_on(qtbot):
    found = controls(qtbot)
    for name, (label, tip) in found.items():
        if name.startswith("clean") or name == "preprocessCheck":
            assert tip.startswith("The reference clip"), (label, tip)
        else:
            assert tip.startswith("The generated speech"), (label, tip)
    # The two that sound alike point at each other.
    assert "Quiet background" in found["clean noise"][1]
    assert "Clean the clip" in found["denoiseCheck"][1]
