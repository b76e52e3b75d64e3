"""The conformance cases: requests the engine must render exactly as omnivoice 0.2.1
does (tests/engine/test_conformance.py) and that benchmarks/bench_precision.py
compares across precisions. Each is (SynthesisItem keyword arguments, DecodeOptions
overrides); ``num_step`` among the overrides replaces the caller's step count."""

from __future__ import annotations

GREEDY = {"position_temperature": 0.0, "class_temperature": 0.0}
LONG_EN = " ".join(
    f"Sentence number {word} tells a small story about the sea, the wind and the boats."
    for word in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
)
CASES = {
    "design_english": (dict(text="Hello world, this is a voice design test.",
                            instruct="female, low pitch, british accent"), {}),
    "design_chinese_dialect": (dict(text="你好，今天我们一起去吃火锅吧。", instruct="男，老年，四川话",
                                    language="zh"), {}),
    "auto_voice": (dict(text="Nobody told me which voice to use.", language="English"), {}),
    "nonverbal_tags": (dict(text="That was funny [laughter] but then [sigh] it ended.",
                            language="en"), {}),
    "speed": (dict(text="Speak this a little faster than usual, please.", speed=1.3), {}),
    "duration": (dict(text="This sentence must last exactly two seconds.", duration=2.0), {}),
    "guidance_zero": (dict(text="No guidance at all for this one."), dict(guidance_scale=0.0)),
    "steps_shift_penalty": (dict(text="Other decoding settings."),
                            dict(num_step=5, t_shift=0.5, layer_penalty=2.0)),
    "cjk_newlines": (dict(text="第一行文字\n第二行文字\r\n第三行。", instruct="female"), {}),
    "long_form_no_reference": (dict(text=LONG_EN, language="en"), {}),
}
