"""Journey 6: a reference that is not audio and an empty text each get one sentence on
screen, and the studio keeps working (the studio started as ``python -m studio``)."""

from __future__ import annotations

from studio_process import pick_reference, python_module, wait_takes


def _one_sentence(text: str) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text and text.endswith(".")


def test_bad_reference_and_empty_text_are_one_sentence_each(launch, reference_clip, tmp_path):
    studio = launch(command=python_module())  # started as `python -m studio` this time
    studio.wait_model_loaded()
    notes = tmp_path / "notes.wav"
    notes.write_text("These are my notes, not a recording.\n")
    studio.type("referencePanel/refPathEdit", str(notes))
    studio.key("referencePanel/refPathEdit", "Return")
    message = studio.wait_until(lambda: studio.text("referencePanel/referenceMessage"), 10,
                                "the reference's sentence")
    assert _one_sentence(message) and "notes.wav" in message, message
    assert not studio.get("referencePanel/transcribeButton")["enabled"]

    pick_reference(studio, reference_clip, "A short sentence in my own voice.")
    assert studio.text("referencePanel/referenceMessage") == ""
    studio.type("cloneForm/textEdit", "")
    studio.click("cloneForm/generateButton")
    message = studio.text("cloneForm/formMessage")
    assert _one_sentence(message) and "text" in message.lower(), message
    assert studio.get("cloneForm/generateButton")["enabled"]

    studio.type("cloneForm/textEdit", "Now with something to say.")
    studio.click("cloneForm/generateButton")
    assert wait_takes(studio, 1)["count"] == 1
    assert studio.text("cloneForm/formMessage") == ""
    assert studio.close() == 0
