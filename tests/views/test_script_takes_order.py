"""A script's takes listed as a person expects (review 5, item 11): after a render,
Newest first listed line 2 above line 3 above line 1, because a render groups its
lines by voice (Anna's lines 1 and 3, then Ben's line 2) and each take was listed by
when it was kept. Now a render's takes are one batch, listed in line order, the newest
render first; a Generate's takes stay newest first."""

from __future__ import annotations

import dataclasses

from take_fixtures import RATE, RUN, settings, voice

from studio.views.takes_model import BEST, NEWEST, TakesModel

PROJECT = "/tmp/scene.ovproj"


def keep_render(library, batch: str, lines=(1, 3, 2)) -> None:
    """A render's takes, kept in the order the worker renders them: grouped by voice."""
    for number in lines:
        filed = dataclasses.replace(settings(f"Line {number}.", number), project=PROJECT,
                                    project_line=number)
        library.add(filed, RUN, voice(0.5), RATE, batch=batch)


def listed(model) -> list[tuple[str, int | None]]:
    rows = [model.row_info(r) for r in range(model.rowCount())]
    return [(row.take.batch, row.take.settings.project_line) for row in rows]


def test_newest_first_lists_a_renders_lines_in_line_order_newest_render_first(qtbot, writer,
                                                                              reader):
    keep_render(writer, "first render")
    keep_render(writer, "second render")
    model = TakesModel()
    model.reload(reader)
    assert model.order() == NEWEST
    assert listed(model) == [("second render", 1), ("second render", 2), ("second render", 3),
                             ("first render", 1), ("first render", 2), ("first render", 3)]
    # Their batch is their render, not variations: no "Take 2/3" on a line's card.
    assert all(model.row_info(r).position == "" for r in range(model.rowCount()))


def test_a_generates_takes_stay_newest_first_beside_a_render(qtbot, writer, reader):
    keep_render(writer, "render")
    for seed in (1, 2, 3):  # one Generate click's three takes
        writer.add(settings("Hello there.", seed), RUN, voice(0.5), RATE, batch="generate")
    model = TakesModel()
    model.reload(reader)
    assert [(b, line) for b, line in listed(model)][:3] == [("generate", None)] * 3
    seeds = [model.row_info(r).take.settings.seed for r in range(3)]
    assert seeds == [3, 2, 1] and model.row_info(0).position == "Take 3/3"
    assert [line for _b, line in listed(model)[3:]] == [1, 2, 3]
    model.set_order(BEST)  # every take ranked on its own: all six still listed
    model.reload(reader)
    assert model.rowCount() == 6
