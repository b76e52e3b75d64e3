"""The use cases every front end shares (the window's worker, the command line, ``serve``
and scripts), so that none of them keeps its own copy to drift. No Qt.

``voices``: what a request names as its voice, resolved into the prompt a render clones,
and the synthesis items built from a request with the lexicon and a saved voice's
defaults.
"""
