"""dvc.yaml declares exactly what each stage reads: notebooks, library modules, params."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from analysis.core.paths import ROOT, Paths

SRC = ROOT / "src" / "analysis"
STAGES = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def module_file(dotted: str) -> Path | None:
    """The file of an ``analysis`` module (``core.errors`` -> ``src/analysis/core/errors.py``;
    a package -> its ``__init__.py``), or None if there is none."""
    path = SRC.joinpath(*dotted.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


def imported_modules(path: Path) -> set[str]:
    """``analysis`` modules a file imports, as dotted names below ``analysis``
    (``from analysis.core.errors import X`` -> ``core.errors``; ``from analysis.core import
    paths`` -> ``core.paths``); relative imports are resolved against the file's package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(SRC).parent.parts if path.is_relative_to(SRC) else ()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[:len(package) - (node.level - 1)])
                module = ".".join(base + ([node.module] if node.module else []))
            elif node.module == "analysis":
                module = ""
            elif node.module and node.module.startswith("analysis."):
                module = node.module.removeprefix("analysis.")
            else:
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}" if module else alias.name
                found.add(sub if module_file(sub) else module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("analysis."):
                    found.add(alias.name.removeprefix("analysis."))
    return {m for m in found if m and module_file(m)}


def closure(modules: set[str]) -> set[Path]:
    """Every file the modules run: the modules, their packages' ``__init__``, and what
    they import, transitively."""
    seen: set[Path] = set()
    todo = [module_file(m) for m in modules]
    while todo:
        path = todo.pop()
        if path is None or path in seen:
            continue
        seen.add(path)
        for parent in path.relative_to(SRC).parents:
            init = SRC / parent / "__init__.py"
            if parent != Path(".") and init.is_file():
                todo.append(init)
        todo.extend(module_file(m) for m in imported_modules(path))
    return seen


def stage_entry_modules(stage: dict) -> tuple[set[str], Path | None]:
    cmd = stage["cmd"]
    mods = set(re.findall(r"-m analysis\.([\w.]+)", cmd))
    mods = {f"{m}.__main__" if module_file(f"{m}.__main__") else m for m in mods}
    nb = re.search(r"(notebooks/\S+\.py)", cmd)
    runs = re.search(r"-m analysis\.tools\.nbrun (\w+)", cmd)  # nbrun <stage>: its notebook
    notebook = ROOT / nb.group(1) if nb else \
        Paths(ROOT).stage(runs.group(1)).notebook_source if runs else None
    if notebook:
        mods |= imported_modules(notebook)
    return mods, notebook


def covered(path: Path, deps: set[str]) -> bool:
    """A file is covered by a dep naming it or a folder that holds it."""
    rel = path.relative_to(ROOT)
    return any(rel.as_posix() == d or rel.is_relative_to(d) for d in deps)


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_depends_on_every_module_it_runs(name):
    """Every file of the package a stage runs is a dep, itself or through its folder (a
    stage's own package and ``core`` are listed as folders); no listed code goes unused."""
    stage = STAGES[name]
    mods, notebook = stage_entry_modules(stage)
    needed = closure(mods) - {SRC / "__init__.py"}
    deps = {d for d in stage.get("deps", []) if isinstance(d, str)}
    missing = sorted(p.relative_to(ROOT).as_posix() for p in needed if not covered(p, deps))
    assert not missing, f"stage {name} runs {missing} but does not list them as deps"
    extra = sorted(d for d in deps if d.startswith("src/analysis/")
                   and not any(covered(p, {d}) for p in needed))
    assert not extra, f"stage {name} lists {extra} but never imports them"
    if notebook:
        assert notebook.relative_to(ROOT).as_posix() in deps


@pytest.mark.parametrize("name", sorted(STAGES))
def test_every_stage_has_dependencies(name):
    assert STAGES[name].get("deps"), "a stage without dependencies reruns every time"


def test_findings_reads_every_reproduced_file():
    produced = {o for stage in STAGES.values() for o in stage.get("outs", [])
                if isinstance(o, str) and o.startswith("data/reproduced/")}
    assert produced, "no stage writes reproduced values"
    deps = set(STAGES["findings"]["deps"])
    missing = {p for p in produced if p not in deps
               and not any(p.startswith(d.rstrip("/") + "/") for d in deps)}
    assert not missing, f"findings misses {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(STAGES))
def test_metrics_are_small_uncached_json(name):
    for entry in STAGES[name].get("metrics", []):
        assert isinstance(entry, dict), f"{name}: metrics entry {entry!r} needs options"
        (path, options), = entry.items()
        assert path.startswith("metrics/") and path.endswith(".json")
        assert options == {"cache": False}, f"{name}: {path} must be cache: false"


def test_plots_show_stage_outputs():
    spec = yaml.safe_load((ROOT / "dvc.yaml").read_text())
    outs = {o for stage in STAGES.values() for o in stage.get("outs", []) if isinstance(o, str)}
    paths = []
    for entry in spec.get("plots", []):
        if isinstance(entry, str):
            paths.append(entry)
        else:
            (_, options), = entry.items()
            paths += list(options["y"])
    within = {p for p in paths if p in outs or any(p.startswith(o + "/") for o in outs)}
    assert paths and set(paths) == within, sorted(set(paths) - within)
