"""The pipeline DAG for the Reproducibility page, as Mermaid text that Quarto draws.

``dvc dag --mermaid`` gives the stage graph as Mermaid text; Quarto draws a ``{mermaid}``
block itself, with the Mermaid script it ships (nothing is fetched), and the pandoc preview
shows the text. Where DVC cannot answer (a folder that is not a DVC repository, as in the
tests), the same text is derived from ``dvc.yaml`` the way DVC does it: stage B follows
stage A when B depends on a path that A writes (or a path inside it). Either way the stages
are then drawn in two boxes, the package's two parts: the update loop (the stages that
run a module of ``analysis.update``: a team's batches made into a study) and the
reproduction (every other stage).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load


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


def declared_paths(stage: dict, keys: tuple[str, ...] = ("outs", "metrics", "plots")
                   ) -> list[str]:
    """The paths a stage of ``dvc.yaml`` lists under ``keys`` (each a path, or a mapping
    of a path to its options)."""
    return [str(path) for key in keys for item in stage.get(key) or []
            for path in (item if isinstance(item, dict) else [item])]


def resolved(stages: dict, params: dict) -> dict:
    """``dvc.yaml``'s stages as DVC resolves them: a ``foreach`` stage is one stage a item
    of its list in ``params`` (``${study.batches}``), named ``<stage>@<item>``, the item in
    its paths (none when the list is empty or missing)."""
    found = {}
    for name, stage in stages.items():
        if "foreach" not in stage:
            found[name] = stage
            continue
        items: object = params
        for key in str(stage["foreach"]).removeprefix("${").removesuffix("}").split("."):
            items = items.get(key) if isinstance(items, dict) else None
        for item in items if isinstance(items, list) else []:
            found[f"{name}@{item}"] = {
                key: [p.replace("${item}", str(item)) if isinstance(p, str) else p
                      for p in value] if isinstance(value, list) else value
                for key, value in stage["do"].items()}
    return found


def graph_from_dvc_yaml(path: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Stages and edges from ``dvc.yaml`` (with the lists of ``params.yaml`` beside it) by
    matching each stage's deps to others' outs."""
    params_file = Paths(path.parent).params
    params = safe_load(params_file.read_text(encoding="utf-8")) if params_file.is_file() else {}
    stages = resolved((safe_load(path.read_text(encoding="utf-8")) or {}).get("stages", {}),
                      params or {})
    outs = {name: [p.rstrip("/") for p in declared_paths(s)] for name, s in stages.items()}
    edges = set()
    for name, stage in stages.items():
        for dep in (p.rstrip("/") for p in declared_paths(stage, ("deps",))):
            for other, produced in outs.items():
                if other != name and any(dep == o or dep.startswith(o + "/")
                                         or o.startswith(dep + "/") for o in produced):
                    edges.add((other, name))
    return sorted(stages), sorted(edges)


UPDATE_PACKAGE = "analysis.update"
PARTS = {"update": "update loop", "reproduction": "reproduction"}
# Each box drawn light, with a border: the theme's default fill is as dark as the stages'.
BOX_STYLE = "fill:#f8f9fa,stroke:#adb5bd,color:#212529"
NODE = re.compile(r'^\s*(\w+)\["([^"]*)"\]\s*$')


def update_stages(path: Path) -> frozenset[str]:
    """The stages of ``dvc.yaml`` whose command runs a module of the update loop
    (``python -m analysis.update...``); a ``foreach`` stage by its own name."""
    stages = (safe_load(path.read_text(encoding="utf-8")) or {}).get("stages", {})
    found = set()
    for name, stage in stages.items():
        words = shlex.split(str((stage.get("do") or stage).get("cmd", "")))
        module = words[words.index("-m") + 1] if "-m" in words[:-1] else ""
        if module == UPDATE_PACKAGE or module.startswith(UPDATE_PACKAGE + "."):
            found.add(name)
    return frozenset(found)


def with_wings(text: str, update: frozenset[str]) -> str:
    """The Mermaid flowchart ``text`` with its stages in two boxes: those of ``update``
    (``merge@2026-01`` by its stage ``merge``) in the update loop's, the others in the
    reproduction's; the edges after them, as before. A box with no stage is left out."""
    lines = text.splitlines()
    nodes = [(line.strip(), NODE.match(line).group(2)) for line in lines if NODE.match(line)]
    rest = [line for line in lines[1:] if not NODE.match(line)]
    out = [lines[0]]
    for part, title in PARTS.items():
        inside = [node for node, name in nodes
                  if (name.split("@", 1)[0] in update) == (part == "update")]
        if inside:
            out += [f'\tsubgraph {part}["{title}"]', *(f"\t\t{n}" for n in inside), "\tend",
                    f"\tstyle {part} {BOX_STYLE}"]
    return "\n".join(out + rest) + "\n"


def pipeline_graph(root: Path) -> tuple[str, str]:
    """The stage graph as Mermaid text, its stages in the package's two parts, and how the
    graph was obtained."""
    update = update_stages(Paths(root).dvc_yaml)
    text = dvc_mermaid(root)
    if text:
        return with_wings(text, update), "dvc dag --mermaid"
    stages, edges = graph_from_dvc_yaml(Paths(root).dvc_yaml)
    return with_wings(to_mermaid(stages, edges), update), "derived from dvc.yaml"
