"""End to end on user dumps: `dvc repro` in a throw-away copy of the project on a newer
dump (new projects, a new year, five annotators, a defective row, then a fatal defect) and
on a dump with every defect."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.claims import load_claims
from analysis.findings.compute import scorecard
from tests.support.dumps import Project, small_dump, write_dump
from tests.support.workspace import copy_project, dvc, reproduce, set_params

pytestmark = pytest.mark.slow

KEYWORDS = "pytorch_keywords = ['llm', 'LLM', 'yi']\nsglang_keywords = ['radix', 'llm']\n"


def read_json(work: Path, rel: str) -> dict:
    return json.loads((work / rel).read_text(encoding="utf-8"))


@pytest.fixture
def workspace(tmp_path):
    return copy_project(tmp_path / "project")


# The stages whose outputs the newer-dump test reads (and what they need): the comparison
# takes the agreement stage's metrics; every stage on a dump of new projects is the hostile
# site dump's run (tests/support/sites.py)
NEWER_DUMP_STAGES = ("table1", "compare", "keywords")


def test_newer_dump_flows_into_tables_metrics_and_comparison(workspace, tmp_path):
    """A newer dump: a new year (2026), two projects data/projects.yaml does not describe
    (sglang; jax, with the new year only), five annotators instead of seven, other keyword
    lists, and one label row with an invalid URL. Unchanged code takes all of it through
    the stages of Table I, the comparison and the keywords (and the paper's claims are
    judged on what they reproduce); the row is reported and set aside; another baseline
    reruns the comparison only; a missing label file stops the pipeline with one message."""
    dump = tmp_path / "dump"
    write_dump(dump, [Project("pytorch", {2025: 8, 2026: 6}, annotators=5,
                              repo="pytorch/pytorch"),
                      Project("sglang", {2026: 9}, annotators=5, repo="sgl-project/sglang"),
                      Project("jax", {2026: 3}, annotators=5, repo="jax-ml/jax")])
    (dump / "filter_keywords").write_text(KEYWORDS, encoding="utf-8")
    label = dump / "Issue Report/sglang/sglang.csv"
    label.write_text(label.read_text() + "not-a-url," + ",".join(["C.1"] * 6) + "\n")
    set_params(workspace, "ingest", source=dump, manifest=None, commit=None)
    reproduce(workspace, *NEWER_DUMP_STAGES)  # as make report runs them

    table = pd.read_csv(workspace / "report/tables/table1/counts.csv").set_index("project")
    assert {"sglang", "jax"} <= set(table.index) and "2026" in table.columns
    assert table.loc["Sum", "2026"] == 18
    assert table.loc["jax", "Total"] == 3
    table1 = read_json(workspace, "metrics/table1.json")
    assert table1["total"] == 26 and table1["projects"] == 3
    quality = read_json(workspace, "data/processed/clean/quality.json")
    assert quality["anomaly_counts"]["unknown_project"] == 2
    assert quality["summary"]["balanced"] and quality["rejected_by_reason"] == {
        "invalid_url": 1}
    assert read_json(workspace, "metrics/clean.json")["annotators"] == 5
    issues = pd.read_parquet(workspace / "data/processed/clean/issues.parquet")
    assert [c for c in issues.columns if c.startswith("annotator_")] == [
        f"annotator_{i}" for i in range(1, 6)]

    metrics = read_json(workspace, "metrics/compare.json")
    assert metrics["projects"]["new"] == 2 and metrics["projects"]["removed"] == 10
    assert metrics["issues"]["current"] == 26
    variables = read_json(workspace, "report/vars/compare.json")
    assert variables["annotators_baseline"] == 7 and variables["annotators_current"] == 5
    new, _, rest = variables["projects_text"].partition(";")
    assert new.startswith("New projects: ") and set(
        new.removeprefix("New projects: ").split(", ")) == {"jax", "sglang"}
    assert variables["years_new"] == "2026"
    assert "PyTorch" in rest.split("changed:")[1]
    projects = pd.read_csv(workspace / "report/tables/compare/projects.csv").set_index(
        "project")
    assert projects.loc["sglang", "status"] == "new" and projects.loc["jax", "status"] == "new"
    assert projects.loc["vllm", "status"] == "removed"
    kappa = pd.read_csv(workspace / "report/tables/compare/kappa.csv")
    assert kappa["current"].notna().any() and kappa["baseline"].notna().all()

    kw = read_json(workspace, "metrics/keywords.json")
    assert kw["count"] == {"pytorch": 3, "sglang": 2}
    # the findings stage's scoring, on the keywords stage's values
    card = scorecard(load_claims(workspace / "data/claims.yaml"),
                     read_json(workspace, "data/reproduced/keywords.json")).set_index(
        "claim_id")
    assert card.loc["keywords.count.pytorch", "status"] == "differs"
    assert card.loc["keywords.count.mindspore", "status"] == "not_reproducible"

    shown = json.loads(dvc(workspace, "metrics", "show", "--json").stdout)
    assert "metrics/compare.json" in json.dumps(shown)
    assert "Data and pipelines are up to date" in dvc(
        workspace, "repro", *NEWER_DUMP_STAGES).stdout
    # Another baseline reruns the comparison only.
    other = workspace / "data/baseline/other.json"
    shutil.copyfile(workspace / "data/baseline/upstream-2fba316.json", other)
    set_params(workspace, "compare", baseline=other.stem)
    rerun = dvc(workspace, "repro", *NEWER_DUMP_STAGES).stdout
    assert "Running stage 'compare'" in rerun
    assert "Running stage 'clean'" not in rerun and "Running stage 'table1'" not in rerun

    # A fatal defect (a project folder without its label file) stops the pipeline.
    label.unlink()
    proc = dvc(workspace, "repro", *NEWER_DUMP_STAGES, check=False)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "has no label file sglang.csv" in output
    assert "Traceback" not in output


def rewrite(path: Path, edit) -> None:
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    edit(rows)
    path.write_text("".join(",".join(r) + "\n" for r in rows), encoding="utf-8")


def test_dump_with_every_defect_is_reported_set_aside_and_accounted(workspace, tmp_path):
    dump = tmp_path / "dump"
    small_dump(dump)
    base = dump / "Issue Report"
    vllm = base / "vllm/vllm.csv"
    url = "https://github.com/vllm-project/vllm/issues/"

    def edit_vllm(rows):
        rows[0].append("Comment")  # extra column
        for r in rows[1:]:
            r.append("note")
        rows[1][1] = ""  # missing rating
        rows[2][2] = "Z.9"  # unknown annotator label
        rows[3] = rows[3][:-1]  # malformed row (a field short)
        rows.append([url + "99999", *["C.1"] * 7, "C.1", "x"])  # URL in no year file
        rows.append(["not-a-url", *["C.1"] * 8, "x"])  # invalid URL
        rows.append([url + "1001", *["C.2"] * 7, "", "x"])  # missing final label
        rows.append([url + "1002", *["C.2"] * 7, "Q.7", "x"])  # unknown final label
        rows.append(rows[5])  # duplicate URL
    rewrite(vllm, edit_vllm)
    year = base / "vllm/vllm_2024.txt"
    year.write_text(year.read_text() + "\nnot a url\n", encoding="utf-8")
    torch = base / "pytorch/pytorch.csv"
    torch.write_bytes(b"\xef\xbb\xbf" + torch.read_bytes().replace(b"\n", b"\r\n"))
    (base / "vllm/notes.txt").write_text("hello")
    set_params(workspace, "ingest", source=dump, manifest=None, commit=None)
    dvc(workspace, "repro", "clean")

    quality = read_json(workspace, "data/processed/clean/quality.json")
    assert quality["summary"]["balanced"]
    for f in quality["files"]:
        assert f["input"] == f["kept"] + f["set_aside"], f
    for role, totals in quality["accounting"].items():
        files = [f for f in quality["files"] if f["role"] == role]
        assert totals["input"] == sum(f["input"] for f in files)
    counts = quality["anomaly_counts"]
    for kind in ("utf8_bom", "crlf_line_endings", "empty_file", "extra_column",
                 "missing_rating", "unknown_label", "malformed_row", "no_year", "invalid_url",
                 "missing_final_label", "unknown_final_label", "duplicate_url",
                 "year_blank_line", "year_line_not_url", "unexpected_file"):
        assert counts.get(kind), kind
    rejected = pd.read_csv(workspace / "data/processed/clean/rejected.csv")
    reasons = rejected.groupby("reason").size().to_dict()
    assert reasons == {"invalid_url": 1, "malformed_row": 1, "missing_final_label": 1,
                       "no_year": 1, "unknown_final_label": 1, "year_blank_line": 1,
                       "year_line_not_url": 1, "unlabelled_year_url": 1}
    where = rejected.set_index("reason")
    assert where.loc["malformed_row", "source_file"] == "Issue Report/vllm/vllm.csv"
    assert where.loc["malformed_row", "source_line"] == 4
    assert where.loc["year_line_not_url", "raw"] == "not a url"
    labels = quality["accounting"]["labels"]
    assert labels["set_aside"] == int(rejected["source_file"].str.endswith(".csv").sum())
    issues = pd.read_parquet(workspace / "data/processed/clean/issues.parquet")
    assert labels["kept"] == len(issues)
    anomaly = next(a for a in quality["anomalies"] if a["kind"] == "unknown_label")
    assert (anomaly["file"], anomaly["line"], anomaly["column"]) == (
        "Issue Report/vllm/vllm.csv", 3, "Label2")

    # Defects that make results meaningless stop with one message and no traceback.
    fatal = {
        "not UTF-8": lambda: torch.write_bytes(torch.read_bytes() + "caf\u00e9\n".encode(
            "latin-1")),
        "missing column(s) Final_Label": lambda: rewrite(
            torch, lambda rows: [r.__setitem__(slice(None), r[:-1]) for r in rows]),
        "has no label file pytorch.csv": lambda: torch.unlink(),
    }
    original = torch.read_bytes()
    for message, breaks in fatal.items():
        torch.write_bytes(original.replace(b"\r\n", b"\n").removeprefix(b"\xef\xbb\xbf"))
        breaks()
        proc = dvc(workspace, "repro", "clean", check=False)
        output = proc.stdout + proc.stderr
        assert proc.returncode != 0 and message in output, output
        assert "Issue Report/pytorch" in output and "->" in output
        assert "Traceback" not in output
