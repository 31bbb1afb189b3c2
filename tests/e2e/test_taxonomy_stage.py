"""The taxonomy notebook as a stage: synthetic inputs in a project root, run twice, same
bytes, every output where its declaration (``schemas.yaml``) names it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core import artifacts
from analysis.core.config import load_params
from analysis.core.paths import PATHS, Paths
from tests.support.sites import copy_curated
from tests.support.taxonomy_fixtures import (
    HEADER,
    detail_line,
    synthetic_issues,
    write_detail_files,
)

QUESTION = (HEADER
            + detail_line("Unclear Installation Guidance",
                          "System Support and Dependency Management", ["a", "b (e.g., c, d)"])
            + detail_line("Usage Gaps in LLM Operations", "User Support and Documentation Quality",
                          ["e"]))
REQUIREMENT = (HEADER
               + 'Functionality Support for LLM Development,Quantization and Inference Support,'
                 '"support "fp8",support int4"\n'
               + detail_line("Community and Document Support",
                             "Documentation and Tutorial Support", ["f", "g", "h"]))
BUG = (HEADER
       + detail_line("Data Pipeline and IO Management", "Data Flow Processing Failures",
                     ["i", "j"])
       + detail_line("Code Quality、Logging、Testing and Security", "Runtime Errors", ["k"]))


def stage_inputs(root: Path, bug: str = BUG) -> dict:
    """Write what the stage reads into the project ``root`` (the curated files, the detail
    files under the raw folder, the clean stage's issues); return the notebook's
    parameters (``root`` and the stage's params.yaml section)."""
    copy_curated(root)
    paths = Paths(root)
    params = load_params(paths.params)["taxonomy"]
    files = params["detail_files"]
    write_detail_files(paths.raw, {files["Question"]: QUESTION,
                                   files["Requirement"]: REQUIREMENT, files["Bug"]: bug})
    codes = {"Question": ["A.2", "A.3"], "Requirement": ["B.1", "B.2", "B.4"],
             "Bug": ["C.1", "C.6", "C.9"]}
    issues = synthetic_issues(codes, ["pytorch", "vllm", "NewProject"], [2023, 2024, 2026])
    artifacts.write_parquet(paths.clean.issues_parquet, issues)
    return {"root": str(root), "params": params}


def stage_outputs(root: Path) -> list[Path]:
    """Every file the stage wrote (its notebook aside), relative to ``root``."""
    stage = Paths(root).taxonomy
    files = [p for d in (stage.processed, stage.tables, stage.figures) for p in d.rglob("*")
             if p.is_file()]
    files += [stage.vars, stage.reproduced, stage.metrics]
    return sorted(p.relative_to(root) for p in files)


@pytest.mark.slow
def test_notebook_runs_on_synthetic_inputs_and_is_deterministic(tmp_path):
    from analysis.tools.nbrun import run

    roots = [tmp_path / "one", tmp_path / "two"]
    for root in roots:
        params = stage_inputs(root)
        assert run(PATHS.taxonomy.notebook_source, Paths(root).taxonomy.notebook, params) == 0
    files = stage_outputs(roots[0])
    stage = Paths(roots[0]).taxonomy
    expected = [stage.quality, stage.vars, stage.reproduced, stage.metrics,
                *(stage.table(n) for n in stage.TABLES),
                *(stage.figure(n).with_suffix(s) for n in stage.FIGURES
                  for s in (".svg", ".png"))]
    assert files == sorted(p.relative_to(roots[0]) for p in expected)
    assert stage_outputs(roots[1]) == files
    for rel in files:
        assert (roots[0] / rel).read_bytes() == (roots[1] / rel).read_bytes(), rel
    assert stage.notebook.is_file()

    rep = json.loads(stage.reproduced.read_text())
    assert rep["taxonomy.details.question"]["value"] == 5  # a, b (e.g. | c | d), e
    assert "parenthesis-aware split gives 3" in rep["taxonomy.details.question"]["note"]
    assert rep["taxonomy.details.requirement"]["value"] == 5
    assert rep["taxonomy.subthemes.B.2"]["value"] == 1
    assert "not in the paper's numbering" in rep["taxonomy.subthemes.requirement"]["note"]
    quality = json.loads(stage.quality.read_text())
    assert quality["anomaly_counts"]["unescaped_quotes"] == 1
    assert quality["summary"]["balanced"]
    report_vars = json.loads(stage.vars.read_text())
    assert report_vars["n_subthemes_released"] == "6"
    assert all(isinstance(v, str) for v in report_vars.values())
    # every text reads in a sentence: an empty list is "none", never ""
    assert all(v != "" for v in report_vars.values()), report_vars
    for name in stage.FIGURES:
        assert report_vars[f"fig_{name}_caption"] and report_vars[f"fig_{name}_alt"]
    assert "PyTorch" in report_vars["fig_project_shares_alt"]  # display names
    tests = stage.table("tests.csv").read_text().splitlines()
    assert len(tests) == 5 and tests[1].startswith("type_by_project")


@pytest.mark.slow
def test_unrecoverable_detail_file_stops_the_stage(tmp_path, capsys):
    from analysis.tools.nbrun import run

    params = stage_inputs(tmp_path, bug=HEADER + "only one cell here\n")
    stage = Paths(tmp_path).taxonomy
    assert run(PATHS.taxonomy.notebook_source, stage.notebook, params) == 1
    err = capsys.readouterr().err
    bug_file = params["params"]["detail_files"]["Bug"]
    assert f"{bug_file}, line 2" in err and "theme,sub-theme,details" in err
    assert not stage.notebook.exists() and not stage.vars.exists()
