"""Notebooks: their form in git, and running them through papermill on synthetic data."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core import artifacts
from analysis.core.config import ROOT
from analysis.tools.nbrun import load_notebook, run

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_percent_text_with_one_parameters_cell(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# %%"), "percent format, no jupytext header"
    assert "jupytext_version" not in text
    nb = load_notebook(path)
    assert sum("parameters" in c.metadata.get("tags", []) for c in nb.cells) == 1
    code = [c for c in nb.cells if c.cell_type == "code"]
    lines = sum(len([x for x in c.source.splitlines() if x.strip()]) for c in code)
    assert lines <= 80, f"{path.name}: {lines} lines of code; move logic to src/analysis"


def test_jupytext_config_keeps_versions_out():
    text = (ROOT / "jupytext.toml").read_text()
    assert "-jupytext.text_representation.jupytext_version" in text


@pytest.mark.slow
def test_clean_table1_findings_notebooks_on_a_synthetic_dump(dump, tmp_path):
    root, written = dump
    out = tmp_path / "out"
    p = {
        "issues_parquet": str(out / "issues.parquet"), "issues_csv": str(out / "issues.csv"),
        "rejected_csv": str(out / "rejected.csv"), "quality_json": str(out / "quality.json"),
    }
    code = run(ROOT / "notebooks/01_clean.py", out / "01.ipynb",
               {"raw_dir": str(root), **p, "metrics_json": str(out / "clean.json")})
    assert code == 0
    issues = pd.read_parquet(out / "issues.parquet")
    assert len(issues) == sum(len(r) for r in written.values())
    code = run(ROOT / "notebooks/02_table1.py", out / "02.ipynb", {
        "issues_parquet": p["issues_parquet"], "table_csv": str(out / "t1.csv"),
        "table_md": str(out / "t1.md"), "table_html": str(out / "t1.html"),
        "figure_stem": str(out / "t1"), "reproduced_json": str(out / "reproduced/t1.json"),
        "metrics_json": str(out / "t1m.json"), "vars_json": str(out / "t1vars.json")})
    assert code == 0
    assert artifacts.read_json(out / "t1vars.json")["total"] == len(issues)
    table = pd.read_csv(out / "t1.csv").set_index("project")
    assert table.loc["Sum", "Total"] == len(issues)
    assert (out / "t1.svg").stat().st_size > 0 and (out / "t1.png").stat().st_size > 0
    assert artifacts.read_json(out / "reproduced/t1.json")["table1.total_reports"] == {
        "value": len(issues)}
    code = run(ROOT / "notebooks/08_findings.py", out / "09.ipynb", {
        "reproduced_dir": str(out / "reproduced"), "scorecard_csv": str(out / "card.csv"),
        "metrics_json": str(out / "card.json")})
    assert code == 0
    card = pd.read_csv(out / "card.csv")
    assert set(card["status"]) <= {"exact", "rounding", "differs", "not_reproducible"}
    assert (out / "01.ipynb").is_file()
    meta = (out / "01.ipynb").read_text()
    assert '"start_time"' not in meta and '"duration"' not in meta


@pytest.mark.slow
def test_user_error_in_a_notebook_is_one_message_and_leaves_no_output(tmp_path, capsys):
    raw = tmp_path / "empty"
    raw.mkdir()
    out = tmp_path / "out"
    code = run(ROOT / "notebooks/01_clean.py", out / "01.ipynb",
               {"raw_dir": str(raw), "issues_parquet": str(out / "i.parquet")})
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert "no 'Issue Report' folder" in err and "Traceback" not in err
    assert len(err.splitlines()) == 1
    assert not (out / "01.ipynb").exists() and not (out / "i.parquet").exists()
    assert not list(out.glob(".*"))  # no temporary leftovers


def test_notebook_check_accepts_ours_and_refuses_outputs(tmp_path):
    from analysis.tools.nbcheck import main, problems

    assert main([str(p) for p in NOTEBOOKS]) == 0
    bad = tmp_path / "nb.py"
    bad.write_text('# ---\n# jupyter:\n#   kernelspec: {}\n# ---\n# %%\nx = 1\n')
    assert len(problems(bad)) == 3
    assert problems(tmp_path / "nb.ipynb")
