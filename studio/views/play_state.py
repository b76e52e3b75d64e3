"""Whether a Play button can work: the one answer every play button in the window shows
(review 2: the take's Play was greyed with a reason while Voices' "Play clip" and the
cast's previews looked ready and failed with PortAudio's words)."""

from __future__ import annotations

NO_PLAYER = "Playback is off: no player."


def play_off(player, audio_status) -> str | None:
    """Why Play is greyed, as its tooltip says it; None when it can play. ``audio_status``
    is the window's one :class:`studio.audio.backend.AudioStatus` (None: not probed)."""
    if player is None:
        return NO_PLAYER
    if audio_status is not None and not audio_status.available:
        return audio_status.reason or "Playback is off."
    return None
