"""How many audio frames a text needs, estimated from per-character weights.

Each character gets a weight relative to one Latin letter (a CJK ideograph
is a whole syllable, a combining mark is silent, a digit is read as a word).
The reference clip's weight per frame gives the speaking rate, which scales
the target text's weight into frames. Weights, script ranges and the
short-output boost are the reference implementation's, so estimates agree
with it to the last bit.
"""

from __future__ import annotations

import bisect
import unicodedata
from types import MappingProxyType

_WEIGHTS = MappingProxyType({
    "cjk": 3.0, "hangul": 2.5, "kana": 2.2, "ethiopic": 3.0, "yi": 3.0,
    "indic": 1.8, "thai_lao": 1.5, "khmer_myanmar": 1.8, "arabic": 1.5, "hebrew": 1.5,
    "latin": 1.0, "cyrillic": 1.0, "greek": 1.0, "armenian": 1.0, "georgian": 1.0,
    "punctuation": 0.5, "space": 0.2, "digit": 3.5, "mark": 0.0, "default": 1.0,
})

# (last code point, script) for contiguous blocks from U+0000 to U+FFEF.
# Coarse on purpose and kept as the reference has it, e.g. U+1F00-U+2FFF
# (Greek Extended, symbols, radicals) counts as kana.
_BLOCKS: tuple[tuple[int, str], ...] = (
    (0x02AF, "latin"), (0x03FF, "greek"), (0x052F, "cyrillic"), (0x058F, "armenian"),
    (0x05FF, "hebrew"), (0x08FF, "arabic"), (0x0DFF, "indic"), (0x0EFF, "thai_lao"),
    (0x0FFF, "indic"), (0x109F, "khmer_myanmar"), (0x10FF, "georgian"),
    (0x11FF, "hangul"), (0x139F, "ethiopic"), (0x177F, "default"),
    (0x17FF, "khmer_myanmar"), (0x18FF, "default"), (0x19DF, "indic"),
    (0x19FF, "khmer_myanmar"), (0x1C7F, "indic"), (0x1C8F, "cyrillic"),
    (0x1CBF, "georgian"), (0x1CFF, "indic"), (0x1DBF, "latin"), (0x1DFF, "default"),
    (0x1EFF, "latin"), (0x30FF, "kana"), (0x312F, "cjk"), (0x318F, "hangul"),
    (0x9FFF, "cjk"), (0xA4CF, "yi"), (0xA63F, "default"), (0xA69F, "cyrillic"),
    (0xA6FF, "default"), (0xA7FF, "latin"), (0xA82F, "indic"), (0xA87F, "default"),
    (0xA95F, "indic"), (0xA97F, "hangul"), (0xA9DF, "indic"), (0xA9FF, "khmer_myanmar"),
    (0xAA5F, "indic"), (0xAA7F, "khmer_myanmar"), (0xAAFF, "indic"),
    (0xAB2F, "ethiopic"), (0xAB6F, "latin"), (0xABBF, "default"), (0xABFF, "indic"),
    (0xD7AF, "hangul"), (0xFAFF, "cjk"), (0xFDFF, "arabic"), (0xFE6F, "default"),
    (0xFEFF, "arabic"), (0xFFEF, "latin"),
)
_BLOCK_ENDS = tuple(end for end, _ in _BLOCKS)

# Used when there is no reference clip: about how long this takes to say, in frames.
FALLBACK_REF_TEXT = "Nice to meet you."
FALLBACK_REF_FRAMES = 25


def char_weight(ch: str) -> float:
    """Speaking time of one character, in Latin letters."""
    code = ord(ch)
    if 0x41 <= code <= 0x5A or 0x61 <= code <= 0x7A:
        return _WEIGHTS["latin"]
    if code == 0x20:
        return _WEIGHTS["space"]
    if code == 0x0640:  # Arabic tatweel only stretches the line.
        return _WEIGHTS["mark"]
    # General category before script, so punctuation inside a block is not a letter.
    cat = unicodedata.category(ch)[0]
    if cat == "M":
        return _WEIGHTS["mark"]
    if cat in "PS":
        return _WEIGHTS["punctuation"]
    if cat == "Z":
        return _WEIGHTS["space"]
    if cat == "N":
        return _WEIGHTS["digit"]
    idx = bisect.bisect_left(_BLOCK_ENDS, code)
    if idx < len(_BLOCKS):
        return _WEIGHTS[_BLOCKS[idx][1]]
    # Supplementary ideographs (CJK extensions) are syllables too; U+20000 itself
    # falls through to the default, as in the reference.
    return _WEIGHTS["cjk"] if code > 0x20000 else _WEIGHTS["default"]


def text_weight(text: str) -> float:
    # Plain sum() in text order keeps the float result identical to the reference.
    return sum(char_weight(ch) for ch in text)


class DurationEstimator:
    """Estimates output length from text, calibrated on a reference clip."""

    def estimate(
        self,
        target_text: str,
        ref_text: str,
        ref_frames: float,
        low_threshold: float | None = 50,
        boost_strength: float = 3,
    ) -> float:
        """Frames (or whatever unit ``ref_frames`` is in) to speak ``target_text``.

        Returns 0.0 when the reference is unusable (no text, no weight, or no
        duration). Estimates under ``low_threshold`` are lifted along the curve
        ``low * (est / low) ** (1 / boost_strength)``: short texts need
        proportionally more time than the raw rate suggests.
        """
        if ref_frames <= 0 or not ref_text:
            return 0.0
        ref_weight = text_weight(ref_text)
        if ref_weight == 0:
            return 0.0
        rate = ref_weight / ref_frames
        est = text_weight(target_text) / rate
        if low_threshold is not None and est < low_threshold:
            return low_threshold * (est / low_threshold) ** (1.0 / boost_strength)
        return est

    def target_frames(
        self,
        text: str,
        ref_text: str | None,
        ref_frames: int | None,
        speed: float = 1.0,
    ) -> int:
        """Whole frames to generate for ``text`` at ``speed`` (at least one).

        Without a reference clip (no frames or no transcript) the rate of a
        typical speaker saying :data:`FALLBACK_REF_TEXT` is assumed.
        A non-positive speed is ignored.
        """
        if ref_frames is None or not ref_text:
            ref_text, ref_frames = FALLBACK_REF_TEXT, FALLBACK_REF_FRAMES
        est = self.estimate(text, ref_text, ref_frames)
        if speed > 0 and speed != 1.0:
            est = est / speed
        return max(1, int(est))
