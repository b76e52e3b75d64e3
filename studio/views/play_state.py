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


def play_icon(widget, which=None):
    """The style's play (or ``which``) icon with a clearly faded disabled form: the
    style's own greyed triangle looked ready to click (review 2, Clone's clip ▶)."""
    from PySide6.QtCore import QSize, Qt
    from PySide6.QtGui import QIcon, QPainter, QPixmap
    from PySide6.QtWidgets import QStyle

    icon = widget.style().standardIcon(which or QStyle.StandardPixmap.SP_MediaPlay)
    faded = QIcon()
    for size in icon.availableSizes() or [QSize(16, 16)]:
        normal = icon.pixmap(size)
        dim = QPixmap(normal.size())
        dim.setDevicePixelRatio(normal.devicePixelRatio())
        dim.fill(Qt.GlobalColor.transparent)
        painter = QPainter(dim)
        painter.setOpacity(DISABLED_OPACITY)
        painter.drawPixmap(0, 0, normal)
        painter.end()
        faded.addPixmap(normal, QIcon.Mode.Normal)
        faded.addPixmap(dim, QIcon.Mode.Disabled)
    return faded


DISABLED_OPACITY = 0.3
