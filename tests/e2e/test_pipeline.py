"""End to end: `dvc repro` in a throw-away copy of the project, on synthetic dumps and on
the offline mirror. (Byte-for-byte determinism: test_determinism.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.paths import Paths
from tests.support.dumps import Project, expected_counts, small_dump, write_dump
from tests.support.mirror import MIRROR, MIRROR_MANIFEST, needs_mirror, paper
from tests.support.workspace import copy_project, dvc, set_params

pytestmark = pytest.mark.slow

@pytest.fixture
def workspace(tmp_path):
    return copy_project(tmp_path / "project")


def point_at(work: Path, dump: Path) -> None:
    set_params(work, "ingest", source=dump, manifest=None, commit=None)


def test_pipeline_on_a_synthetic_dump_is_complete_stable_and_incremental(workspace, tmp_path):
    written = small_dump(tmp_path / "dump")
    point_at(workspace, tmp_path / "dump")
    dvc(workspace, "repro")
    table = pd.read_csv(workspace / "report/tables/table1/counts.csv", dtype={"project": str})
    table = table.set_index("project")
    for name, exp in expected_counts(written).items():
        assert table.loc[name, "Total"] == exp["total"]
        for year, n in exp["years"].items():
            assert table.loc[name, str(year)] == n
    assert (workspace / "report/_site/index.html").is_file()  # the report stage ran
    taxonomy = json.loads((workspace / "report/vars/taxonomy.json").read_text())
    assert str(taxonomy["n_details_bug"]).replace(",", "") == str(45 * 2)  # 2 per sub-theme
    again = dvc(workspace, "repro")
    assert "Data and pipelines are up to date" in again.stdout
    status = json.loads(dvc(workspace, "metrics", "show", "--json").stdout)
    assert "metrics/table1.json" in json.dumps(status)


def test_new_projects_and_a_new_year_flow_through_unchanged_code(workspace, tmp_path):
    write_dump(tmp_path / "dump", [
        Project("pytorch", {2024: 5, 2025: 3, 2026: 4}, repo="pytorch/pytorch"),
        Project("sglang", {2025: 6, 2026: 2}, repo="sgl-project/sglang"),
        Project("jax", {2026: 3}, repo="jax-ml/jax"),
    ])
    point_at(workspace, tmp_path / "dump")
    dvc(workspace, "repro")
    table = pd.read_csv(workspace / "report/tables/table1/counts.csv").set_index("project")
    assert {"sglang", "jax"} <= set(table.index) and "2026" in table.columns
    assert table.loc["Sum", "2026"] == 9
    metrics = json.loads((workspace / "metrics/table1.json").read_text())
    assert metrics["by_year"]["2026"] == 9 and metrics["by_project"]["jax"] == 3
    quality = json.loads((workspace / "data/processed/clean/quality.json").read_text())
    assert quality["anomaly_counts"]["unknown_project"] == 2
    md = Paths(workspace).table1.table("counts.md").read_text()
    assert "sglang" in md and "2026" in md


def test_defective_dump_is_reported_and_fatal_defect_stops(workspace, tmp_path):
    dump = tmp_path / "dump"
    small_dump(dump)
    label = dump / "Issue Report/vllm/vllm.csv"
    label.write_text(label.read_text() + "not-a-url," + ",".join(["C.1"] * 8) + "\n")
    point_at(workspace, dump)
    dvc(workspace, "repro")
    quality = json.loads((workspace / "data/processed/clean/quality.json").read_text())
    assert quality["summary"]["balanced"] and quality["rejected_by_reason"] == {
        "invalid_url": 1}
    label.unlink()
    proc = dvc(workspace, "repro", check=False)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert "has no label file vllm.csv" in output
    assert "Traceback" not in output


@needs_mirror
def test_pipeline_on_the_mirror_reproduces_table1(workspace):
    set_params(workspace, "ingest", source=MIRROR, manifest=MIRROR_MANIFEST)
    dvc(workspace, "repro")
    card = pd.read_csv(Paths(workspace).findings.scorecard, dtype=str, keep_default_na=False)
    t1 = card[card["claim_id"].str.startswith("table1.")]
    fp = t1["claim_id"].str.endswith(".false_positive")
    assert (t1.loc[~fp, "status"] == "exact").all(), t1.loc[~fp & (t1["status"] != "exact")]
    assert (t1.loc[fp, "status"] == "not_reproducible").all() and fp.sum() == 11
    assert t1.loc[fp, "note"].str.contains("never released").all()
    prov = json.loads((workspace / "data/provenance.json").read_text())
    assert prov["verified"] and prov["file_count"] == prov["manifest"]["files_listed"]
    assert prov["commit"] == "2fba3163d6f143b6aa90128adde3d65ac8759c3e"
    metrics = json.loads(dvc(workspace, "metrics", "show", "--json").stdout)
    assert str(int(paper("table1.total_reports"))) in json.dumps(metrics)
