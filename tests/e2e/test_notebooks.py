"""Notebooks: their form in git, and running them through papermill on synthetic data."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest

from analysis.core import artifacts
from analysis.core.paths import PATHS, ROOT, Paths
from analysis.tools.nbrun import load_notebook, parse_params, run
from tests.support.sites import copy_curated

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
def test_clean_and_table1_notebooks_on_a_synthetic_dump(dump, tmp_path):
    """The clean and table1 stages write what their paths name, from a root parameter.
    Given nothing else, as in a run by hand, the clean notebook reads its settings from the
    root's params.yaml."""
    raw, written = dump
    root = tmp_path / "project"
    copy_curated(root)
    shutil.copytree(raw, Paths(root).raw)
    paths = Paths(root)
    assert run(PATHS.clean.notebook_source, paths.clean.notebook,
               {"root": str(root)}) == 0
    issues = pd.read_parquet(paths.clean.issues_parquet)
    assert len(issues) == sum(len(r) for r in written.values())
    assert all(paths.clean.processed_file(name).is_file()
               for name in ("issues.csv", "rejected.csv"))
    assert artifacts.read_json(paths.clean.metrics)["rows_input"] == len(issues)
    assert run(PATHS.table1.notebook_source, paths.table1.notebook, {"root": str(root)}) == 0
    assert artifacts.read_json(paths.table1.vars)["total"] == len(issues)
    table = pd.read_csv(paths.table1.table("counts.csv")).set_index("project")
    assert table.loc["Sum", "Total"] == len(issues)
    for suffix in (".svg", ".png"):
        assert paths.table1.figure("counts").with_suffix(suffix).stat().st_size > 0
    assert artifacts.read_json(paths.table1.reproduced)["table1.total_reports"] == {
        "value": len(issues)}
    meta = paths.clean.notebook.read_text()
    assert '"start_time"' not in meta and '"duration"' not in meta
    assert str(root) not in meta  # the machine's paths are scrubbed from outputs


@pytest.mark.slow
def test_user_error_in_a_notebook_is_one_message_and_leaves_no_output(tmp_path, capsys):
    root = tmp_path / "project"
    copy_curated(root)
    paths = Paths(root)
    paths.raw.mkdir(parents=True)
    code = run(PATHS.clean.notebook_source, paths.clean.notebook,
               {**parse_params("clean", []), "root": str(root)})
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert "no 'Issue Report' folder" in err and "Traceback" not in err
    assert len(err.splitlines()) == 1
    assert not paths.clean.notebook.exists()
    assert not paths.clean.issues_parquet.exists()
    assert not list(paths.notebooks.glob(".*"))  # no temporary leftovers


@pytest.mark.slow
def test_a_value_the_parameters_cell_does_not_take_ends_the_run_in_one_line(tmp_path, capsys):
    root = tmp_path / "project"
    copy_curated(root)
    paths = Paths(root)
    code = run(PATHS.table1.notebook_source, paths.table1.notebook,
               {"root": str(root), "params": {"seed": 1}})
    assert code == 1
    assert capsys.readouterr().err.strip() == (
        "02_table1: its parameters cell names root, not params (the stage has no settings)")
    assert not paths.table1.notebook.exists()


@pytest.mark.parametrize("stage, name, value, setting", [
    ("keywords", "keywords_file", "SECRET", "keywords.keywords_file"),
    ("keywords", "keywords_file", "../../secret.txt", "keywords.keywords_file"),
    ("keywords", "keywords_file", "linked", "keywords.keywords_file"),
    ("taxonomy", "detail_files", {"Question": "SECRET"}, "taxonomy.detail_files.Question"),
    ("taxonomy", "detail_files", {"Bug": "../../secret.txt"}, "taxonomy.detail_files.Bug"),
    ("compare", "baseline", "../../secret", "compare.baseline"),
])
def test_a_setting_naming_a_file_outside_the_dump_ends_the_stage_in_one_line(
        tmp_path, capsys, stage, name, value, setting):
    """The stage's own parameters, as nbrun passes them to papermill: refused when the
    notebook builds its settings, before it reads anything, so no file outside the dump is
    read and nothing is written."""
    root = tmp_path / "project"
    copy_curated(root)
    paths = Paths(root)
    paths.raw.mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("a_keywords = ['not the dump']\n", encoding="utf-8")
    (paths.raw / "linked").symlink_to(secret)
    shown = {k: str(secret) if v == "SECRET" else v for k, v in value.items()} \
        if isinstance(value, dict) else str(secret) if value == "SECRET" else value
    code = run(PATHS.stage(stage).notebook_source, paths.stage(stage).notebook,
               parse_params(stage, [[name, json.dumps(shown)]], root))
    assert code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{paths.stage(stage).notebook.stem}: params.yaml, column "
                          f"'{setting}': {setting} is ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    st = paths.stage(stage)  # nothing written: no output of the stage
    assert [p for p in (st.processed, st.tables, st.figures, st.vars, st.reproduced,
                        st.metrics, st.notebook) if p.exists()] == []


def test_notebook_check_accepts_ours_and_refuses_outputs(tmp_path):
    from analysis.tools.nbcheck import main, problems

    assert main([str(p) for p in NOTEBOOKS]) == 0
    bad = tmp_path / "nb.py"
    bad.write_text('# ---\n# jupyter:\n#   kernelspec: {}\n# ---\n# %%\nx = 1\n')
    assert len(problems(bad)) == 3
    assert problems(tmp_path / "nb.ipynb")
