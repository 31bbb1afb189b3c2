"""The compare notebook as a stage: a synthetic run beside the committed baseline, in a
temporary project root laid out as :class:`~analysis.core.paths.Paths` names it."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from analysis.clean.compute import clean_dump
from analysis.compare.snapshot import load_baseline
from analysis.core import artifacts
from analysis.core.paths import PATHS, Paths
from analysis.core.projects import Projects
from tests.support.dumps import Project, write_dump

BASELINE = "upstream-2fba316"  # params.yaml compare.baseline (in data/baseline)


@pytest.mark.slow
def test_compare_notebook_on_a_synthetic_run(tmp_path, taxonomy):
    from analysis.tools.nbrun import run

    root = tmp_path / "root"
    paths = Paths(root)
    write_dump(tmp_path / "d", [Project("pytorch", {2025: 20, 2026: 10}, annotators=5),
                                Project("sglang", {2026: 15}, annotators=5)])
    issues = clean_dump(tmp_path / "d", taxonomy, Projects.load(PATHS.projects_file)).issues
    artifacts.write_parquet(paths.clean.issues_parquet, issues)
    shutil.copy(PATHS.projects_file, paths.projects_file)
    paths.baselines.mkdir(parents=True)
    shutil.copy(PATHS.baseline(BASELINE), paths.baseline(BASELINE))
    artifacts.write_json(paths.agreement.metrics, {"fleiss_kappa": {
        "Bug": {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6}}})

    stage = paths.compare
    assert run(PATHS.compare.notebook_source, stage.notebook,
               {"root": str(root), "params": {"baseline": BASELINE, "resamples": 1000,
                                              "seed": 1}}) == 0
    variables = artifacts.read_json(stage.vars)
    assert variables["projects_text"].startswith("New projects: sglang;")
    assert variables["years_new"] == "2026"
    assert variables["annotators_current"] == 5
    assert variables["kappa_source_text"] == ("Kappas of this build come from the agreement "
                                              "stage (metrics/agreement.json).")
    kappa = pd.read_csv(stage.table("kappa.csv")).set_index("type")
    assert kappa.loc["Bug", "current"] == 0.5
    assert kappa.loc["Bug", "baseline"] == pytest.approx(
        load_baseline(paths.baseline(BASELINE))["kappa"]["Bug"]["value"])
    for name in stage.TABLES:
        if name in stage.STUDY_TABLES:  # a study dump's only
            assert not stage.table(name).exists(), name
            continue
        assert stage.table(name).stat().st_size
    for name in stage.FIGURES:
        for suffix in (".svg", ".png"):
            assert stage.figure(name).with_suffix(suffix).stat().st_size
    assert artifacts.read_json(stage.metrics)["projects"]["new"] == 1
    assert not stage.reproduced.exists()
