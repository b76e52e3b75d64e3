"""A take kept as a voice: the name it is offered under and the request it becomes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from studio.service.take_voice import designed_voice_name, take_voice_name, take_voice_request


@pytest.mark.parametrize("instruct, name", [
    # Review 5, item 2: the raw instruct, cut at its start, was the name offered.
    ("female, elderly, low pitch, british accent", "Elderly British woman, low pitch"),
    ("male", "Man"),
    ("young adult, whisper", "Whispering young voice"),
    ("女，老年，四川话", "Elderly woman, Sichuan dialect"),
    ("child, male, very high pitch", "Boy, very high pitch"),
    ("American accent, teenager, female", "Teenage American girl"),
])
def test_a_designed_voice_is_named_as_a_person_would_say_it(instruct, name):
    assert designed_voice_name(instruct) == name


@pytest.mark.parametrize("instruct", [None, "", "a voice like thunder"])
def test_no_known_attribute_gives_no_name(instruct):
    assert designed_voice_name(instruct) is None


def _take(mode="design", instruct="female, low pitch", name="", language="en"):
    settings = SimpleNamespace(mode=mode, instruct=instruct, text="A line I liked.",
                               language=language)
    return SimpleNamespace(name=name, settings=settings, audio_path="/takes/a.wav")


def test_a_take_is_offered_under_its_own_name_its_attributes_or_its_place():
    assert take_voice_name(_take(name="Keeper"), "Take 2/3") == "Keeper"
    assert take_voice_name(_take(), "Take 2/3") == "Woman, low pitch"
    assert take_voice_name(_take(mode="clone", instruct=None), "Take 2/3") == \
        "Voice from take 2/3"
    assert take_voice_name(_take(instruct="thunder"), "Take 14") == "Voice from take 14"


def test_the_request_holds_the_takes_audio_text_and_attributes():
    request = take_voice_request(_take(), "Low woman", replace=True)
    assert (request.name, str(request.clip), request.transcript) == (
        "Low woman", "/takes/a.wav", "A line I liked.")
    assert (request.language, request.instruct, request.replace) == (
        "en", "female, low pitch", True)
    assert take_voice_request(_take(mode="clone"), "Mine").instruct is None
