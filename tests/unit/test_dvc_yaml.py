"""dvc.yaml declares exactly what each stage reads: notebooks, library modules, params (it is
generated: tests/unit/tools/test_pipeline.py; these tests read it as DVC does)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from analysis.core.paths import ROOT, Paths
from analysis.tools.pipeline import closure, imported_modules, module_file

SRC = ROOT / "src" / "analysis"
# a foreach stage (``merge``) as each of its stages is: its ``do``
STAGES = {name: stage.get("do", stage)
          for name, stage in yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"].items()}


def stage_entry_modules(stage: dict) -> tuple[set[str], Path | None]:
    cmd = stage["cmd"]
    mods = set(re.findall(r"-m analysis\.([\w.]+)", cmd))
    mods = {f"{m}.__main__" if module_file(SRC, f"{m}.__main__") else m for m in mods}
    nb = re.search(r"(notebooks/\S+\.py)", cmd)
    runs = re.search(r"-m analysis\.tools\.nbrun (\w+)", cmd)  # nbrun <stage>: its notebook
    notebook = ROOT / nb.group(1) if nb else \
        Paths(ROOT).stage(runs.group(1)).notebook_source if runs else None
    if notebook:
        mods |= imported_modules(SRC, notebook)
    return mods, notebook


def covered(path: Path, deps: set[str]) -> bool:
    """A file is covered by a dep naming it or a folder that holds it."""
    rel = path.relative_to(ROOT)
    return any(rel.as_posix() == d or rel.is_relative_to(d) for d in deps)


def writes(stage: dict) -> list[str]:
    """What a stage of dvc.yaml writes: its outs and metrics."""
    return [next(iter(o)) if isinstance(o, dict) else o
            for o in stage.get("outs", []) + stage.get("metrics", [])]


def declarations_read(name: str) -> set[str]:
    """The output declarations (``src/analysis/<stage>/schemas.yaml``) of the stages whose
    outputs the stage ``name`` reads, as dvc.yaml says: a dep that is an output of another
    stage, holds one or lies in one."""
    reads = [Path(d) for d in STAGES[name].get("deps", []) if isinstance(d, str)]
    return {f"src/analysis/{other}/schemas.yaml" for other, stage in STAGES.items()
            if other != name and (SRC / other / "schemas.yaml").is_file()
            and any(r.is_relative_to(o) or Path(o).is_relative_to(r)
                    for r in reads for o in writes(stage))}


def test_declarations_read_are_those_of_the_stages_read():
    assert declarations_read("ingest") == set()
    assert declarations_read("table1") == {"src/analysis/clean/schemas.yaml"}
    assert "src/analysis/keywords/schemas.yaml" in declarations_read("findings")
    assert "src/analysis/clean/schemas.yaml" not in declarations_read("findings")
    assert len(declarations_read("report")) == len(list(SRC.glob("*/schemas.yaml")))


@pytest.mark.parametrize("name", sorted(STAGES))
def test_stage_depends_on_every_module_it_runs(name):
    """Every file of the package a stage runs is a dep, itself or through its folder (a
    stage's own package and ``core`` are listed as folders); no listed code goes unused."""
    stage = STAGES[name]
    mods, notebook = stage_entry_modules(stage)
    needed = closure(SRC, mods)
    deps = {d for d in stage.get("deps", []) if isinstance(d, str)}
    missing = sorted(p.relative_to(ROOT).as_posix() for p in needed if not covered(p, deps))
    assert not missing, f"stage {name} runs {missing} but does not list them as deps"
    # a stage reads the output declarations of the stages whose outputs it reads (through
    # analysis.core) and of the stage packages it imports (their STAGE reads theirs), and
    # depends on exactly those (its own through its package folder)
    declarations = {d for d in deps if d.endswith("/schemas.yaml")}
    imported = {(p.parent / "schemas.yaml").relative_to(ROOT).as_posix() for p in needed
                if p.name == "__init__.py" and (p.parent / "schemas.yaml").is_file()
                and p.parent.relative_to(ROOT).as_posix() not in deps}
    assert declarations == declarations_read(name) | imported, f"stage {name}: declarations"
    extra = sorted(d for d in deps - declarations if d.startswith("src/analysis/")
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
