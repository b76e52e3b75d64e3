"""Signal work that needs no device and no Qt: audio files, loudness, peaks, the growing
buffer of a streamed clip, stream writing, the checks on a reference clip and the
bounded reading of one someone sent.

numpy and libsndfile only, so the engine, the library, ``serve`` and the GUI thread can
all use it. Reading and writing audio files happens in :mod:`studio.sound.files` alone.
"""
