"""The pipeline DAG for the Reproducibility page, drawn at build time.

``dvc dag --mermaid`` gives the stage graph as Mermaid text; it is parsed into edges and
drawn as a layered flow chart with matplotlib (so the figure needs no JavaScript and no
network). Where DVC cannot answer (a folder that is not a DVC repository, as in the
tests), the graph is derived from ``dvc.yaml`` the way DVC does it: stage B follows stage
A when B depends on a path that A writes (or a path inside it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

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
    stages = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("stages", {})

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
    stages, edges = graph_from_dvc_yaml(root / "dvc.yaml")
    return to_mermaid(stages, edges), "derived from dvc.yaml", stages, edges


def layers(stages: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """Stages in topological layers (longest path from a source).

    Within a layer, stages are ordered by the mean position of their predecessors (then by
    name), which keeps most arrows short and uncrossed.
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


def dag_figure(stages: list[str], edges: list[tuple[str, str]]):
    """A left-to-right flow chart of the stages (matplotlib figure).

    Stages sit in columns by depth; arrows implied by a longer path are left out (the
    Mermaid text keeps them); an arrow that skips columns is drawn as an arc so that it
    does not hide behind the stages in between.
    """
    import matplotlib.pyplot as plt

    from ..figures import PAGE_WIDTH_IN, PALETTE, apply_style

    apply_style()
    edges = reduced_edges(stages, edges)
    cols = layers(stages, edges)
    tallest = max((len(c) for c in cols), default=1)
    rad = 0.25
    depth = {node: x for x, col in enumerate(cols) for node in col}
    longest = max((depth[b] - depth[a] for a, b in edges if depth[b] - depth[a] > 1),
                  default=0)
    arc = 0.5 * rad * longest  # height of the longest arc, in column widths
    bottom, top = -0.3, tallest - 1 + arc + 0.15
    width = max(len(cols), 2)
    fig, ax = plt.subplots(figsize=(PAGE_WIDTH_IN, PAGE_WIDTH_IN * (top - bottom) / width))
    ax.set_xlim(-0.5, width - 0.5)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    ax.axis("off")
    artists = {}
    for x, col in enumerate(cols):
        for i, node in enumerate(col):
            y = (tallest - 1) / 2 + (len(col) - 1) / 2 - i
            colour = PALETTE[2] if node == "report" else PALETTE[0]
            artists[node] = ax.text(x, y, node, ha="center", va="center", fontsize=10,
                                    color="white", zorder=3,
                                    bbox={"boxstyle": "round,pad=0.4", "fc": colour,
                                          "ec": "none"})
    for a, b in edges:
        span = depth[b] - depth[a]
        ax.annotate("", xy=(0, 0.5), xycoords=artists[b], xytext=(1, 0.5),
                    textcoords=artists[a], zorder=2,
                    arrowprops={"arrowstyle": "-|>", "color": "#57606a", "lw": 1.1,
                                "shrinkA": 2, "shrinkB": 2,
                                "connectionstyle": f"arc3,rad={-rad}" if span > 1
                                else "arc3"})
    fig.tight_layout(pad=0.2)
    return fig
