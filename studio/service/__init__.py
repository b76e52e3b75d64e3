"""The use cases every front end shares (the window's worker, the command line, ``serve``
and scripts), so that none of them keeps its own copy to drift. No Qt.

``voices``: what a request names as its voice, resolved into the prompt a render clones,
and the synthesis items built from a request with the lexicon and a saved voice's
defaults.
``requests``: the requests and results that cross into the worker and back (plain
dataclasses; audio as CPU numpy arrays). ``takes``: keeping a render's takes.
``snapshot``: a take's settings and the request that renders it again. ``lines``: a
script's lines as requests, and which of them render together. ``remote`` and
``remote_renderer``: a render on a speech server.
"""
