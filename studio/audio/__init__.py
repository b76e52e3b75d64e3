"""Playback, recording and waveform peaks.

Qt without widgets (QtCore only). sounddevice is imported lazily, inside functions,
so the studio runs on a machine without PortAudio and says why playback is off.
"""
