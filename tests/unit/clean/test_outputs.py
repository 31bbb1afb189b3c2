"""The clean stage's outputs land where its paths say, and its metrics account for rows."""

from __future__ import annotations

import pandas as pd

from analysis.clean import outputs
from analysis.clean.compute import clean_dump, unknown_projects
from analysis.core.artifacts import read_json
from analysis.core.paths import Paths
from analysis.core.stage import write_outputs


def test_every_output_lands_where_the_paths_say(dump, taxonomy, projects, tmp_path):
    root, written = dump
    result = clean_dump(root, taxonomy, projects)
    paths = Paths(tmp_path)
    files = write_outputs(paths.clean, outputs.build(result))
    assert files == sorted(["data/processed/clean/issues.parquet",
                            "data/processed/clean/issues.csv",
                            "data/processed/clean/rejected.csv",
                            "data/processed/clean/excluded.csv",
                            "data/processed/clean/exclusions.csv",
                            "data/processed/clean/quality.json", "metrics/clean.json",
                            "report/vars/clean.json"])
    issues = pd.read_parquet(paths.clean.issues_parquet)
    assert len(issues) == sum(len(r) for r in written.values())
    metrics = read_json(paths.clean.metrics)
    assert metrics["rows_input"] == metrics["rows_kept"] + metrics["rows_set_aside"]
    assert metrics["annotators"] == 7 and metrics["excluded_candidates"] == 0
    assert set(metrics) == {"rows_input", "rows_kept", "rows_set_aside", "annotators",
                            "excluded_candidates", "anomalies"}
    quality = result.quality
    assert metrics["anomalies"] == len(quality["anomalies"])
    # the quality report in numbers, as the Data and overview pages quote it
    v = read_json(paths.clean.vars)
    assert v == {"rows_input": metrics["rows_input"], "rows_kept": metrics["rows_kept"],
                 "rows_set_aside": metrics["rows_set_aside"], "balanced": True,
                 "anomalies": metrics["anomalies"],
                 "anomaly_kinds": len(quality["anomaly_counts"]),
                 "rules": len(quality["rules"]), "annotators": 7, "duplicates_policy": "keep"}
    assert all(f["balanced"] for f in quality["files"])
    exclusions = pd.read_csv(paths.clean.exclusions_csv)
    assert not exclusions["recorded"].any()
    assert exclusions["label_rows"].sum() == len(issues)


def test_unknown_projects_are_named_for_a_warning():
    quality = {"anomalies": [
        {"kind": "unknown_project", "file": "Issue Report/new", "message": "not listed"},
        {"kind": "duplicate_url", "file": "x", "message": "y"}]}
    assert unknown_projects(quality) == ["Issue Report/new: not listed"]


def test_a_study_writes_its_people_the_release_none(tmp_path, taxonomy, projects):
    from tests.support.studies import write_study

    result = clean_dump(write_study(tmp_path / "study"), taxonomy, projects)
    paths = Paths(tmp_path / "run")
    files = write_outputs(paths.clean, outputs.build(result))
    assert "data/processed/clean/people.csv" in files  # checked against its schema
    people = pd.read_csv(paths.clean.processed_file("people.csv"), dtype=str,
                         keep_default_na=False)
    assert list(people["label_column"]) == ["Label1", "Label2", "Label3", "Label4"]
    assert set(people["name"]) == {""}  # this study names nobody
