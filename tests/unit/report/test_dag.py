"""The pipeline DAG figure: grandalf's layered layout, arrows that never cross a stage's
box, the same bytes for the same graph, stage names drawn as plain visible text."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from analysis.core.figures import save_figure
from analysis.core.paths import ROOT
from analysis.report.dag import (
    dag_figure,
    dag_layout,
    graph_from_dvc_yaml,
    layers,
    reduced_edges,
)

# The graph `dvc dag --mermaid` gave the site build (the transitive arrows included):
# with the old hand layout, interviews -> findings ran through the table1 box.
SITE_GRAPH = (
    ["agreement", "clean", "compare", "findings", "ingest", "interviews", "keywords",
     "report", "table1", "taxonomy"],
    [("agreement", "compare"), ("agreement", "findings"), ("agreement", "report"),
     ("clean", "agreement"), ("clean", "compare"), ("clean", "report"), ("clean", "table1"),
     ("clean", "taxonomy"), ("compare", "report"), ("findings", "report"),
     ("ingest", "clean"), ("ingest", "interviews"), ("ingest", "keywords"),
     ("ingest", "report"), ("ingest", "taxonomy"), ("interviews", "findings"),
     ("interviews", "report"), ("keywords", "findings"), ("keywords", "report"),
     ("table1", "findings"), ("table1", "report"), ("taxonomy", "findings"),
     ("taxonomy", "report")])


def random_dag(seed: int, n: int = 14, p: float = 0.25) -> tuple[list[str], list[tuple]]:
    """A random DAG on stages s00..s<n>: an edge only from a lower to a higher number."""
    rng = random.Random(seed)
    stages = [f"s{i:02d}" for i in range(n)]
    edges = [(stages[i], stages[j]) for i in range(n) for j in range(i + 1, n)
             if rng.random() < p]
    return stages, edges


GRAPHS = {
    "site": SITE_GRAPH,
    "dvc.yaml": graph_from_dvc_yaml(ROOT / "dvc.yaml"),
    "fan": (["a", "b", "c", "d", "e", "z"],
            [("a", x) for x in "bcde"] + [(x, "z") for x in "bcde"] + [("a", "z")]),
    "skips": (["a", "b", "c", "d", "e", "f"],
              [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("a", "f"), ("e", "f"),
               ("b", "f")]),
    "two parts": (["a", "b", "c", "x", "y", "lonely"], [("a", "b"), ("b", "c"), ("x", "y")]),
    **{f"random {seed}": random_dag(seed) for seed in range(6)},
}


def crosses(p, q, box, eps: float = 1e-9) -> bool:
    """True when segment p-q passes through the inside of ``box`` (x0, y0, x1, y1);
    touching its border, as an arrow does at its own stages, is not crossing
    (Liang-Barsky clipping against the box shrunk by ``eps``)."""
    x0, y0, x1, y1 = box[0] + eps, box[1] + eps, box[2] - eps, box[3] - eps
    (px, py), (qx, qy) = p, q
    dx, dy = qx - px, qy - py
    lo, hi = 0.0, 1.0
    for step, room in ((-dx, px - x0), (dx, x1 - px), (-dy, py - y0), (dy, y1 - py)):
        if step == 0:
            if room < 0:
                return False
        else:
            t = room / step
            if step < 0:
                lo = max(lo, t)
            else:
                hi = min(hi, t)
    return lo < hi


def test_crosses_helper():
    box = (0, 0, 1, 1)
    assert crosses((-1, 0.5), (2, 0.5), box)
    assert not crosses((1, 0.5), (2, 0.5), box)  # starts on the border
    assert not crosses((-1, 2), (2, 2), box)
    assert crosses((-1, -1), (2, 2), box)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_no_arrow_crosses_a_box(name):
    stages, edges = GRAPHS[name]
    layout = dag_layout(stages, reduced_edges(stages, edges))
    assert set(layout.boxes) == set(stages)
    for edge, points in layout.paths.items():
        for p, q in zip(points, points[1:], strict=False):
            for node, box in layout.boxes.items():
                assert not crosses(p, q, box), f"{edge} crosses {node}"


@pytest.mark.parametrize("name", list(GRAPHS))
def test_arrows_run_from_right_side_to_left_side_and_boxes_are_apart(name):
    stages, edges = GRAPHS[name]
    kept = reduced_edges(stages, edges)
    layout = dag_layout(stages, kept)
    assert sorted(layout.paths) == kept
    for (a, b), points in layout.paths.items():
        (_, ay0, ax1, ay1), (bx0, by0, _, by1) = layout.boxes[a], layout.boxes[b]
        assert points[0][0] == pytest.approx(ax1) and ay0 < points[0][1] < ay1
        assert points[-1][0] == pytest.approx(bx0) and by0 < points[-1][1] < by1
        assert all(x0 <= x1 for (x0, _), (x1, _) in zip(points, points[1:], strict=False))
    boxes = sorted(layout.boxes.values())
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert all(0 <= x0 and x1 <= layout.width and 0 <= y0 and y1 <= layout.height
               for x0, y0, x1, y1 in layout.boxes.values())


def test_columns_are_grandalf_layers():
    stages, edges = SITE_GRAPH
    kept = reduced_edges(stages, edges)
    layout = dag_layout(stages, kept)
    lefts = sorted({box[0] for box in layout.boxes.values()})
    columns = [sorted(s for s, box in layout.boxes.items() if box[0] == x) for x in lefts]
    assert columns == [sorted(layer) for layer in layers(stages, kept)]
    assert layout.width <= 7.0 + 1e-9


def test_layout_does_not_depend_on_input_order():
    stages, edges = SITE_GRAPH
    shuffled_stages, shuffled_edges = stages[::-1], sorted(edges, key=lambda e: e[::-1])
    assert dag_layout(stages, edges) == dag_layout(shuffled_stages, shuffled_edges)


def test_dag_figure_is_byte_stable(tmp_path):
    a = save_figure(dag_figure(*SITE_GRAPH), tmp_path / "a")
    b = save_figure(dag_figure(*SITE_GRAPH), tmp_path / "b")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]


def test_small_graphs_and_hostile_names(tmp_path):
    from matplotlib.text import Text

    assert dag_layout([], []).boxes == {}
    assert list(dag_layout(["only"], []).boxes) == ["only"]
    name = "st$$age $m$ \u202eevil"
    fig = dag_figure([name, "report"], [(name, "report")])
    drawn = [t.get_text() for t in fig.findobj(Text)]
    assert "st$$age $m$ ⟨U+202E⟩evil" in drawn
    save_figure(fig, tmp_path / "hostile")  # no mathtext error on "$$"


def test_layout_is_the_same_in_another_process():
    """grandalf keys its work by object; nothing may depend on object ids or hash seeds."""
    script = ("from tests.unit.report.test_dag import GRAPHS; "
              "from analysis.report.dag import dag_layout; "
              "print([sorted(dag_layout(*g).paths.items()) for g in GRAPHS.values()])")
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout
            for seed in ("1", "2")}
    assert len(runs) == 1
