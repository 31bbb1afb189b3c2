"""dvc.yaml declares exactly what each stage reads: notebooks, library modules, params."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from analysis.config import ROOT

SRC = ROOT / "src" / "analysis"
STAGES = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]


def module_files(mod: str) -> list[Path]:
    """The files of an `analysis` module: ``<mod>.py``, or every file of package ``<mod>/``."""
    if (SRC / f"{mod}.py").is_file():
        return [SRC / f"{mod}.py"]
    return sorted((SRC / mod).glob("*.py")) if (SRC / mod).is_dir() else []


def module_dep(mod: str) -> str:
    """How dvc.yaml names a module: the file, or the package folder."""
    return f"src/analysis/{mod}.py" if (SRC / f"{mod}.py").is_file() else f"src/analysis/{mod}"


def imported_modules(path: Path) -> set[str]:
    """`analysis` modules imported by a file (absolute or relative imports).

    Inside a package (``analysis/report/``), ``..x`` is the module ``x`` and ``.y`` is
    part of the package itself (covered by the package folder).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    depth = 0 if path.parent == SRC else 1
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            level = node.level - depth if node.level else 0
            if node.level and level < 1:
                continue
            if level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif level == 1:
                found.update(a.name for a in node.names)
            elif node.module == "analysis":
                found.update(a.name for a in node.names)
            elif node.module and node.module.startswith("analysis."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("analysis."):
                    found.add(alias.name.split(".")[1])
    return {m for m in found if module_files(m)}


def closure(modules: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        for path in module_files(mod):
            todo.extend(imported_modules(path) - seen)
    return seen


def stage_entry_modules(stage: dict) -> tuple[set[str], Path | None]:
    cmd = stage["cmd"]
    mods = set(re.findall(r"-m analysis\.(\w+)", cmd))
    nb = re.search(r"(notebooks/\S+\.py)", cmd)
    notebook = ROOT / nb.group(1) if nb else None
    if notebook:
        mods |= imported_modules(notebook)
    return mods, notebook


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_depends_on_every_module_it_runs(name):
    stage = STAGES[name]
    mods, notebook = stage_entry_modules(stage)
    needed = {module_dep(m) for m in closure(mods)} - {"src/analysis/__init__.py"}
    deps = {d for d in stage.get("deps", []) if isinstance(d, str)}
    missing = sorted(needed - deps)
    assert not missing, f"stage {name} runs {missing} but does not list them as deps"
    extra = sorted(d for d in deps if d.startswith("src/analysis/") and d not in needed)
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
    assert produced <= deps, f"findings misses {sorted(produced - deps)}"


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
    assert paths and set(paths) <= outs, sorted(set(paths) - outs)
