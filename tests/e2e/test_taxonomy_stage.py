"""The taxonomy notebook as a stage: synthetic inputs in a tmp dir, run twice, same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.core.paths import ROOT
from tests.support.taxonomy_fixtures import (
    HEADER,
    detail_line,
    synthetic_issues,
    write_detail_files,
)

NOTEBOOK = ROOT / "notebooks" / "03_taxonomy.py"

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


def stage_inputs(tmp: Path, bug: str = BUG) -> dict:
    raw = tmp / "raw"
    write_detail_files(raw, {"q.csv": QUESTION, "r.csv": REQUIREMENT, "b.csv": bug})
    codes = {"Question": ["A.2", "A.3"], "Requirement": ["B.1", "B.2", "B.4"],
             "Bug": ["C.1", "C.6", "C.9"]}
    issues = synthetic_issues(codes, ["pytorch", "vllm", "NewProject"], [2023, 2024, 2026])
    issues.to_parquet(tmp / "issues.parquet", index=False)
    out = tmp / "out"
    return {
        "raw_dir": str(raw), "issues_parquet": str(tmp / "issues.parquet"),
        "detail_files": {"Question": "q.csv", "Requirement": "r.csv", "Bug": "b.csv"},
        "item_split": "comma", "tables_dir": str(out / "tables"),
        "figures_dir": str(out / "figures"), "quality_json": str(out / "quality.json"),
        "vars_json": str(out / "vars.json"), "metrics_json": str(out / "metrics.json"),
        "reproduced_json": str(out / "reproduced.json"),
    }


@pytest.mark.slow
def test_notebook_runs_on_synthetic_inputs_and_is_deterministic(tmp_path):
    from analysis.tools.nbrun import run

    outputs = []
    for name in ("one", "two"):
        params = stage_inputs(tmp_path / name)
        assert run(NOTEBOOK, tmp_path / name / "nb.ipynb", params) == 0
        outputs.append(tmp_path / name / "out")
    files = sorted(p.relative_to(outputs[0]) for p in outputs[0].rglob("*") if p.is_file())
    assert len(files) == 8 + 1 + 2 + 8 + 4  # csv, html, md tables; figures; json files
    for rel in files:
        assert (outputs[0] / rel).read_bytes() == (outputs[1] / rel).read_bytes(), rel

    out = outputs[0]
    rep = json.loads((out / "reproduced.json").read_text())
    assert rep["taxonomy.details.question"]["value"] == 5  # a, b (e.g. | c | d), e
    assert "parenthesis-aware split gives 3" in rep["taxonomy.details.question"]["note"]
    assert rep["taxonomy.details.requirement"]["value"] == 5
    assert rep["taxonomy.subthemes.B.2"]["value"] == 1
    assert "not in the paper's numbering" in rep["taxonomy.subthemes.requirement"]["note"]
    quality = json.loads((out / "quality.json").read_text())
    assert quality["anomaly_counts"]["unescaped_quotes"] == 1
    assert quality["summary"]["balanced"]
    report_vars = json.loads((out / "vars.json").read_text())
    assert report_vars["n_subthemes_released"] == "6"
    assert all(isinstance(v, str) for v in report_vars.values())
    # every text reads in a sentence: an empty list is "none", never ""
    assert all(v != "" for v in report_vars.values()), report_vars
    assert report_vars["fig_tree_alt"] and report_vars["fig_project_shares_alt"]
    tests = (out / "tables" / "taxonomy_tests.csv").read_text().splitlines()
    assert len(tests) == 5 and tests[1].startswith("type_by_project")


@pytest.mark.slow
def test_unrecoverable_detail_file_stops_the_stage(tmp_path, capsys):
    from analysis.tools.nbrun import run

    params = stage_inputs(tmp_path, bug=HEADER + "only one cell here\n")
    assert run(NOTEBOOK, tmp_path / "nb.ipynb", params) == 1
    err = capsys.readouterr().err
    assert "b.csv, line 2" in err and "theme,sub-theme,details" in err
    assert not (tmp_path / "nb.ipynb").exists()
