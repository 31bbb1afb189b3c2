"""The interviews notebook as a stage: synthetic interview files in a temporary project
root, run twice through nbrun, every output where its paths name it, same bytes."""

from __future__ import annotations

import csv
import subprocess

import pytest

from analysis.core import artifacts
from analysis.core.config import load_params
from analysis.core.paths import PATHS, Paths
from analysis.interviews.read import CODEBOOK_FILE
from analysis.tools.nbrun import run
from tests.support.bombs import chart_only_workbook
from tests.support.dumps import small_dump, write_interview_files
from tests.support.sites import copy_curated
from tests.support.workspace import copy_project, dvc, set_params

# codebook rows linking nodes the taxonomy does not have (B.5, C.11)
EXTRA_ROWS = [["U3", "User", "Advanced", "DeepSpeed", "Ckpt", "Checkpoint lost.", "C.6, C.11",
               "No recovery."],
              ["D2", "Developer", "Advanced", "TF", "Mismatch", "New need.", "B.5, C.11",
               "Needs more."]]


def project(root):
    """A project root with the curated files and the synthetic interview files."""
    copy_curated(root)
    paths = Paths(root)
    write_interview_files(paths.raw)
    with (paths.raw / CODEBOOK_FILE).open("a", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(EXTRA_ROWS)
    return paths


@pytest.mark.slow
def test_notebook_runs_on_synthetic_inputs(tmp_path):
    outputs = {}
    for attempt in ("a", "b"):
        root = tmp_path / attempt
        paths = project(root)
        params = {"root": str(root), "params": load_params(paths.params)["interviews"]}
        assert run(PATHS.interviews.notebook_source, paths.interviews.notebook, params) == 0
        stage = paths.interviews
        written = [stage.processed, stage.tables, stage.figures]
        outputs[attempt] = {p.relative_to(root).as_posix(): p.read_bytes()
                            for folder in written for p in sorted(folder.rglob("*"))}
        for path in (stage.vars, stage.reproduced, stage.metrics):
            outputs[attempt][path.relative_to(root).as_posix()] = path.read_bytes()
    files = set(outputs["a"])
    expected = ({f"data/processed/interviews/{n}" for n in (*stage.PROCESSED, "quality.json")}
                | {f"report/tables/interviews/{n}" for n in stage.TABLES}
                | {f"report/figures/interviews/{n}.{s}" for n in stage.FIGURES
                   for s in ("svg", "png")})
    assert expected <= files, expected - files
    assert outputs["a"] == outputs["b"]  # same input, same bytes

    variables = artifacts.read_json(stage.vars)
    assert variables["interviews_nodes_not_in_taxonomy"] == 2
    assert variables["interviews_nodes_not_in_taxonomy_text"].startswith(
        "Codebook nodes that are not in the taxonomy, with the participants linked to them: "
        "B.5 (D2); C.11 (U3, D2).")
    assert all(isinstance(v, str | int | float) for v in variables.values())
    assert variables["interviews_users"] == 2 and variables["interviews_developers"] == 1
    reproduced = artifacts.read_json(stage.reproduced)
    assert reproduced["interviews.guideline.parts"]["value"] == 4
    assert artifacts.read_json(stage.metrics)["node_links"] == 9
    published = b"".join(v for k, v in outputs["b"].items() if k.startswith("report/tables/"))
    assert b"Female" not in published and b"Male" not in published
    assert b"Male" in (stage.processed / "background.csv").read_bytes()  # kept, unpublished
    notebook = stage.notebook.read_text(encoding="utf-8")
    assert str(root) not in notebook  # the machine's paths are scrubbed from outputs


@pytest.mark.slow
def test_a_failed_stage_is_one_line_and_leaves_the_metrics_as_in_git(tmp_path):
    """A background workbook of only a chart sheet stops the stage with one line naming
    the file; DVC removed the stage's outputs before running it, and the metrics file
    (kept in git, not in DVC's cache) is back as git has it."""
    work = copy_project(tmp_path / "project")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(work)]
    subprocess.run([*git, "add", "metrics"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the committed metrics"], check=True)
    committed = (work / "metrics" / "interviews.json").read_bytes()
    dump = tmp_path / "dump"
    small_dump(dump)
    chart_only_workbook(dump / "Interviewee Background.xlsx")
    set_params(work, "ingest", source=dump, manifest=None, commit=None)
    proc = dvc(work, "repro", "interviews", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in output
    failed = [line for line in output.splitlines() if line.startswith("05_interviews: ")]
    assert failed == [
        f"05_interviews: {work / 'data' / 'raw' / 'Interviewee Background.xlsx'}: the "
        "workbook has no worksheet (sheets: 'Chart1' (chart sheet)) -> give the background "
        "table on a worksheet (a chart sheet holds no cells) and save the workbook as .xlsx"]
    assert (work / "metrics" / "interviews.json").read_bytes() == committed
    status = subprocess.run([*git, "status", "--porcelain", "metrics"], check=True,
                            capture_output=True, text=True).stdout
    assert status == ""


def test_a_role_pattern_that_is_no_regular_expression_stops_the_stage_with_one_line(
        tmp_path, capsys):
    """Checked when the notebook builds its settings: before, ``re`` failed deep in the
    cleaning with its traceback."""
    paths = project(tmp_path)
    categories = [*load_params(paths.params)["interviews"]["role_categories"],
                  {"key": "lead", "type": "Developer", "pattern": "lead ("}]
    params = {"root": str(tmp_path), "params": {"role_categories": categories}}
    assert run(PATHS.interviews.notebook_source, paths.interviews.notebook, params) == 1
    err = capsys.readouterr().err.strip()
    at = f"interviews.role_categories[{len(categories) - 1}].pattern"
    assert err.startswith(f"05_interviews: params.yaml, column '{at}': {at} is 'lead (': it "
                          "must be a regular expression")
    assert err.endswith(f"-> set {at} in params.yaml") and "\n" not in err
    assert not paths.interviews.notebook.exists()
