"""Scripts: dialogue and long-form text, line by line, in several voices (no Qt).

``parse`` reads a script (plain text, Markdown, SRT or VTT subtitles) into lines;
``render`` renders the lines batched by voice and mixes them, with per-speaker stems
and a subtitle file of what was rendered.
"""
