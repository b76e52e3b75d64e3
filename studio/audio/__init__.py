"""Audio devices: the sounddevice backend, the player and the recorder (QObjects).

Qt without widgets (QtCore only). sounddevice is imported lazily, inside functions,
so the studio runs on a machine without PortAudio and says why playback is off. Signal
work that needs no device (loudness, peaks, files) is in :mod:`studio.sound`.
"""
