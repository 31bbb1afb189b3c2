"""The pipeline DAG for the Reproducibility page, drawn at build time.

``dvc dag --mermaid`` gives the stage graph as Mermaid text; it is parsed into edges,
laid out with grandalf's Sugiyama (layered) layout and drawn as a flow chart with
matplotlib (so the figure needs no JavaScript and no network). Where DVC cannot answer
(a folder that is not a DVC repository, as in the tests), the graph is derived from
``dvc.yaml`` the way DVC does it: stage B follows stage A when B depends on a path that
A writes (or a path inside it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from analysis.core.figures import PAGE_WIDTH_IN, PALETTE, STYLE, apply_style
from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load
from analysis.core.textsafe import visible

NODE_RE = re.compile(r'^\s*(\w+)\["(.*)"\]\s*$')
EDGE_RE = re.compile(r"^\s*(\w+)-->(\w+)\s*$")


def parse_mermaid(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Stages and edges (upstream, downstream) from ``dvc dag --mermaid`` output."""
    names: dict[str, str] = {}
    edges = []
    for line in text.splitlines():
        if m := NODE_RE.match(line):
            names[m.group(1)] = m.group(2)
        elif m := EDGE_RE.match(line):
            edges.append((m.group(1), m.group(2)))
    return (sorted(names.values()),
            sorted((names[a], names[b]) for a, b in edges if a in names and b in names))


def to_mermaid(stages: list[str], edges: list[tuple[str, str]]) -> str:
    ids = {s: f"node{i}" for i, s in enumerate(sorted(stages), 1)}
    lines = ["flowchart TD"] + [f'\t{ids[s]}["{s}"]' for s in sorted(stages)]
    lines += [f"\t{ids[a]}-->{ids[b]}" for a, b in sorted(edges)]
    return "\n".join(lines) + "\n"


def dvc_mermaid(root: Path) -> str | None:
    """``dvc dag --mermaid`` run in ``root``; None if DVC cannot answer there."""
    try:
        res = subprocess.run([sys.executable, "-m", "dvc", "dag", "--mermaid"], cwd=root,
                             capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if res.returncode != 0 or "flowchart" not in res.stdout:
        return None
    return res.stdout


def graph_from_dvc_yaml(path: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Stages and edges from ``dvc.yaml`` by matching each stage's deps to others' outs."""
    stages = (safe_load(path.read_text(encoding="utf-8")) or {}).get("stages", {})

    def paths(items) -> list[str]:
        out = []
        for item in items or []:
            out.extend(item.keys() if isinstance(item, dict) else [item])
        return [str(p).rstrip("/") for p in out]

    outs = {name: paths(s.get("outs")) + paths(s.get("metrics")) + paths(s.get("plots"))
            for name, s in stages.items()}
    edges = set()
    for name, stage in stages.items():
        for dep in paths(stage.get("deps")):
            for other, produced in outs.items():
                if other != name and any(dep == o or dep.startswith(o + "/")
                                         or o.startswith(dep + "/") for o in produced):
                    edges.add((other, name))
    return sorted(stages), sorted(edges)


def pipeline_graph(root: Path) -> tuple[str, str, list[str], list[tuple[str, str]]]:
    """(mermaid text, how it was obtained, stages, edges)."""
    text = dvc_mermaid(root)
    if text:
        stages, edges = parse_mermaid(text)
        return text, "dvc dag --mermaid", stages, edges
    stages, edges = graph_from_dvc_yaml(Paths(root).dvc_yaml)
    return to_mermaid(stages, edges), "derived from dvc.yaml", stages, edges


def layers(stages: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Stages in topological layers (longest path from a source, as grandalf ranks them).

    A plain-text view of the layering, without grandalf. Within a layer, stages are
    ordered by the mean position of their predecessors (then by name), which keeps most
    arrows short and uncrossed.
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(stages)
    g.add_edges_from(edges)
    depth: dict[str, int] = {}
    for node in nx.topological_sort(g):
        preds = list(g.predecessors(node))
        depth[node] = 1 + max(depth[p] for p in preds) if preds else 0
    out: list[list[str]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for node in sorted(depth):
        out[depth[node]].append(node)
    position: dict[str, float] = {}
    for layer in out:
        def key(node: str) -> tuple[float, str]:
            preds = [position[p] for p in g.predecessors(node) if p in position]
            return (sum(preds) / len(preds) if preds else 0.0, node)
        layer.sort(key=key)
        for i, node in enumerate(layer):
            position[node] = i - (len(layer) - 1) / 2
    return out


def reduced_edges(stages: list[str], edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The transitive reduction: an arrow A -> C is dropped when A -> B -> C exists."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_nodes_from(stages)
    g.add_edges_from(edges)
    return sorted(nx.transitive_reduction(g).edges())


# Geometry of the drawing, in inches (the figure is drawn at 1 data unit = 1 inch).
NODE_FONT_PT = 10
BOX_HEIGHT_IN = 0.36  # a stage's box; dummy points of long arrows reserve as much room
BOX_PAD_IN = 0.12  # room left and right of the widest stage name
ROW_GAP_IN = 0.16  # between two boxes of one column
MIN_COLUMN_GAP_IN = 0.4  # between two columns, where the arrows run
MAX_COLUMN_GAP_IN = 1.0
MARGIN_IN = 0.05
PORT_SPREAD = 0.8  # share of a box side over which its arrows' ends are spread
STUB_IN = 0.1  # straight run at each end of an arrow, so that arrowheads lie side by side

Point = tuple[float, float]


@dataclass(frozen=True)
class DagLayout:
    """Where :func:`dag_figure` draws each stage and each arrow, in inches.

    ``y`` grows downwards (the figure inverts its y axis). ``boxes`` maps a stage to its
    box ``(x0, y0, x1, y1)``; ``paths`` maps an edge ``(upstream, downstream)`` to the
    points of its arrow, tail first: straight segments that start on the upstream box's
    right side, end on the downstream box's left side and in between run only through
    the gaps between columns and through slots reserved for them inside a column.
    """

    width: float
    height: float
    boxes: dict[str, tuple[float, float, float, float]]
    paths: dict[tuple[str, str], list[Point]]


def label_width_in(text: str, fontsize: float = NODE_FONT_PT) -> float:
    """Width of ``text`` set in the house font at ``fontsize`` points, in inches."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    if not text:
        return 0.0
    path = TextPath((0, 0), text, size=fontsize,
                    prop=FontProperties(family=STYLE["font.family"]))
    return float(path.get_extents().width) / 72.0


def sugiyama(stages: list[str], edges: list[tuple[str, str]], slot: float, gap: float
             ) -> tuple[dict[str, tuple[int, float]], dict[tuple[str, str], list[float]]]:
    """Grandalf's Sugiyama layout of a DAG: layers, crossing-reduced order, coordinates.

    Returns each stage's ``(layer, position)`` and, for an edge that skips layers, the
    positions of the dummy vertices grandalf puts in each layer in between (one per
    layer, in order). Positions are along the layer, in the unit of ``slot`` (the room
    a stage takes) and ``gap`` (between two neighbours), and start at 0 in every
    connected component, components laid out one after the other.

    Stages, edges and components are fed to grandalf in sorted order, one
    ``graph_core`` per component: grandalf's own ``Graph`` collects a component's edges in
    a ``set`` of objects, whose order (and so the layout) changes from run to run.
    """
    import networkx as nx
    from grandalf.graphs import Edge, Vertex, graph_core
    from grandalf.layouts import SugiyamaLayout, VertexViewer

    vertices = {s: Vertex(s) for s in sorted(set(stages))}
    for v in vertices.values():
        v.view = VertexViewer(w=slot, h=1.0)
    links = {(a, b): Edge(vertices[a], vertices[b]) for a, b in sorted(set(edges))
             if a != b and a in vertices and b in vertices}
    g = nx.Graph()
    g.add_nodes_from(vertices)
    g.add_edges_from(links)
    parts = sorted(sorted(c) for c in nx.connected_components(g))
    place: dict[str, tuple[int, float]] = {}
    dummies: dict[tuple[str, str], list[float]] = {}
    offset = 0.0
    for part in parts:
        inside = set(part)
        component = graph_core([vertices[s] for s in part],
                               [e for (a, _), e in links.items() if a in inside])
        layout = SugiyamaLayout(component)
        layout.xspace, layout.yspace = gap, 1.0
        layout.init_all()
        layout.draw(N=3.5)
        start = min(v.view.xy[0] for layer in layout.layers for v in layer)
        end = max(v.view.xy[0] for layer in layout.layers for v in layer)
        for v in component.sV:
            place[v.data] = (layout.grx[v].rank, offset + v.view.xy[0] - start)
        for (a, b), e in links.items():
            if e in layout.ctrls:
                ctrl = layout.ctrls[e]
                ranks = range(min(ctrl) + 1, max(ctrl))
                dummies[(a, b)] = [offset + ctrl[r].view.xy[0] - start for r in ranks]
        offset += end - start + slot + gap
    return place, dummies


def port_offsets(count: int, height: float = BOX_HEIGHT_IN) -> list[float]:
    """Where ``count`` arrows meet one side of a box, relative to its middle: spread
    evenly over :data:`PORT_SPREAD` of the side, so that arrowheads do not pile up."""
    if count <= 1:
        return [0.0] * count
    step = PORT_SPREAD * height / (count - 1)
    return [(i - (count - 1) / 2) * step for i in range(count)]


def dag_layout(stages: list[str], edges: list[tuple[str, str]],
               width: float | None = None) -> DagLayout:
    """Boxes and arrows of the flow chart, left to right, from grandalf's layered layout.

    Stages sit in columns by layer, all boxes as wide as the widest name; columns are
    spread over ``width`` (the page width) within the gap limits above. An arrow leaves
    its stage's right side, crosses the gap, and in a column it skips runs horizontally
    through the dummy slot grandalf reserved for it, so it never crosses a box. Arrow
    ends are spread over a box side in the order of the stages at their other end, and
    leave and enter a box horizontally, so that arrowheads lie side by side.
    """

    width = PAGE_WIDTH_IN if width is None else width
    place, dummies = sugiyama(stages, edges, BOX_HEIGHT_IN, ROW_GAP_IN)
    if not place:
        return DagLayout(2 * MARGIN_IN, 2 * MARGIN_IN, {}, {})
    box_w = max(label_width_in(visible(s)) for s in place) + 2 * BOX_PAD_IN
    columns = 1 + max(rank for rank, _ in place.values())
    free = (width - 2 * MARGIN_IN - columns * box_w) / max(columns - 1, 1)
    gap = min(max(free, MIN_COLUMN_GAP_IN), MAX_COLUMN_GAP_IN)
    stub = min(STUB_IN, gap / 4)

    def left(rank: int) -> float:
        return MARGIN_IN + rank * (box_w + gap)

    def middle(pos: float) -> float:
        return MARGIN_IN + BOX_HEIGHT_IN / 2 + pos

    boxes = {s: (left(r), middle(p) - BOX_HEIGHT_IN / 2, left(r) + box_w,
                 middle(p) + BOX_HEIGHT_IN / 2) for s, (r, p) in place.items()}
    kept = sorted((a, b) for a, b in set(edges) if a in place and b in place and a != b)

    def first_hop(a: str, b: str) -> float:  # y where the arrow a -> b enters its next column
        return middle(dummies[(a, b)][0]) if (a, b) in dummies else middle(place[b][1])

    def last_hop(a: str, b: str) -> float:  # y where the arrow a -> b leaves its last column
        return middle(dummies[(a, b)][-1]) if (a, b) in dummies else middle(place[a][1])

    tail = {}
    for a in sorted({a for a, _ in kept}):
        out = sorted((b for x, b in kept if x == a), key=lambda b: (first_hop(a, b), b))
        tail.update({(a, b): d for b, d in zip(out, port_offsets(len(out)), strict=True)})
    head = {}
    for b in sorted({b for _, b in kept}):
        into = sorted((a for a, y in kept if y == b), key=lambda a: (last_hop(a, b), a))
        head.update({(a, b): d for a, d in zip(into, port_offsets(len(into)), strict=True)})
    paths = {}
    for a, b in kept:
        (ra, pa), (rb, pb) = place[a], place[b]
        if ra > rb:  # only in a cyclic graph: draw it, routed straight
            paths[(a, b)] = [(left(ra), middle(pa)), (left(rb) + box_w, middle(pb))]
            continue
        start = (left(ra) + box_w, middle(pa) + tail[(a, b)])
        end = (left(rb), middle(pb) + head[(a, b)])
        points = [start, (start[0] + stub, start[1])]
        for r, p in zip(range(ra + 1, rb), dummies.get((a, b), []), strict=True):
            points += [(left(r), middle(p)), (left(r) + box_w, middle(p))]
        points += [(end[0] - stub, end[1]), end]
        paths[(a, b)] = points
    height = max(y1 for _, _, _, y1 in boxes.values()) + MARGIN_IN
    return DagLayout(left(columns - 1) + box_w + MARGIN_IN, height, boxes, paths)


def dag_figure(stages: list[str], edges: list[tuple[str, str]]):
    """A left-to-right flow chart of the stages (matplotlib figure), laid out by
    :func:`dag_layout` (grandalf's Sugiyama layout).

    Arrows implied by a longer path are left out (the Mermaid text keeps them). Stage
    names are drawn as plain, visible text (:func:`analysis.core.textsafe.visible`).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as MplPath


    apply_style()
    layout = dag_layout(stages, reduced_edges(stages, edges))
    fig = plt.figure(figsize=(layout.width, layout.height))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, layout.width)
    ax.set_ylim(layout.height, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    for node, (x0, y0, x1, y1) in sorted(layout.boxes.items()):
        colour = PALETTE[2] if node == "report" else PALETTE[0]
        ax.add_patch(FancyBboxPatch((x0, y0), x1 - x0, y1 - y0, zorder=3, ec="none",
                                    fc=colour, boxstyle="round,pad=0,rounding_size=0.06"))
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, visible(node), ha="center", va="center",
                fontsize=NODE_FONT_PT, color="white", zorder=4)
    for _, points in sorted(layout.paths.items()):
        ax.add_patch(FancyArrowPatch(path=MplPath(points), arrowstyle="-|>", zorder=2,
                                     mutation_scale=8, color="#57606a", lw=1.0,
                                     joinstyle="round", capstyle="butt"))
    return fig
