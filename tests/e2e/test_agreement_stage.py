"""The agreement stage end to end: the notebook on a synthetic dump, and the released data
(the offline mirror) against the paper and the libraries."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import analysis as agreement
from analysis.agreement import outputs
from analysis.agreement import stats as ag
from analysis.clean.issues import clean_dump
from analysis.core import artifacts
from analysis.core.claims import judge, load_claims
from analysis.core.paths import PATHS, AgreementPaths, Paths
from analysis.core.projects import Projects
from tests.support.dumps import small_dump
from tests.support.mirror import needs_mirror


@pytest.fixture
def projects() -> Projects:
    return Projects.load(PATHS.projects_file)


@needs_mirror
@pytest.mark.mirror
@pytest.mark.slow
def test_mirror_reproduces_the_paper_and_matches_the_libraries(taxonomy, projects):
    import krippendorff
    from irrCAC.raw import CAC
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    from tests.support.mirror import MIRROR

    issues = clean_dump(MIRROR, taxonomy, projects).issues
    claims = load_claims()
    result = agreement.compute(issues, taxonomy, projects, claims, 20, 1)
    a = result.analysis
    assert result.grouping.groupby("grouping")["matches_paper"].all().to_dict()["final label"]
    for cid, entry in outputs.claim_values(result).items():
        paper = claims.set_index("claim_id").loc[cid, "paper_value"]
        assert judge(paper, entry["value"]) == "exact", (cid, entry)
    cols = list(a.ratings.annotators)
    for t, group in issues.groupby("type"):
        ours = agreement.stat(a, "type", t, "fleiss_kappa")["value"]
        assert ours == pytest.approx(fleiss_kappa(aggregate_raters(group[cols].to_numpy())[0]),
                                     abs=1e-9)
    codes = a.ratings.codes
    alpha = agreement.stat(a, "all", "all issues", "krippendorff_alpha")["value"]
    assert alpha == pytest.approx(krippendorff.alpha(
        reliability_data=codes.T.astype(float), level_of_measurement="nominal"), abs=1e-9)
    irr = CAC(pd.DataFrame(codes.astype(float)), categories=list(map(float, range(
        a.ratings.n_categories))), digits=15)
    ac1 = agreement.stat(a, "all", "all issues", "gwet_ac1")
    assert ac1["value"] == pytest.approx(irr.gwet()["est"]["coefficient_value"], abs=1e-9)
    fk = agreement.stat(a, "all", "all issues", "fleiss_kappa")
    assert fk["se"] == pytest.approx(irr.fleiss()["est"]["se"], abs=1e-9)
    fast = ag.fleiss_by_group(codes, np.zeros(len(codes), dtype=int), 1, a.ratings.n_categories)
    assert fast["kappa"][0] == pytest.approx(fk["value"], abs=1e-12)


def stage_root(tmp_path, taxonomy, projects):
    """A project root holding the stage's inputs: the cleaned small dump and the curated
    YAML files."""
    root = tmp_path / "root"
    small_dump(tmp_path / "dump")
    paths = Paths(root)
    artifacts.write_parquet(paths.clean.issues_parquet,
                            clean_dump(tmp_path / "dump", taxonomy, projects).issues)
    for source, target in ((PATHS.taxonomy_file, paths.taxonomy_file),
                           (PATHS.projects_file, paths.projects_file),
                           (PATHS.claims_file, paths.claims_file)):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return paths


@pytest.mark.slow
def test_notebook_runs_on_a_synthetic_dump(tmp_path, taxonomy, projects):
    from analysis.tools.nbrun import run

    paths = stage_root(tmp_path, taxonomy, projects)
    code = run(PATHS.agreement.notebook_source, paths.agreement.notebook,
               {"root": str(paths.root), "bootstrap_resamples": 40, "seed": 3,
                "confidence_level": 0.95})
    assert code == 0
    assert paths.agreement.notebook.is_file()
    for name in AgreementPaths.TABLES:
        assert paths.agreement.table(name).stat().st_size > 0, name
    for name in AgreementPaths.FIGURES:
        for ext in ("svg", "png"):
            assert paths.agreement.figure(name).with_suffix(f".{ext}").is_file(), (name, ext)
    repro = artifacts.read_json(paths.agreement.reproduced)
    assert set(repro) == {"agreement.kappa.bug", "agreement.kappa.requirement",
                          "agreement.kappa.question"}
    metrics = artifacts.read_json(paths.agreement.metrics)
    assert metrics["bootstrap_resamples"] == 40
    website = artifacts.read_json(paths.agreement.vars)
    assert website["seed"] == 3 and website["resamples"] == 40
    assert all(f"fig_{name}_caption" in website for name in AgreementPaths.FIGURES)
    stats = pd.read_csv(paths.agreement.table("statistics.csv"))
    assert set(stats["grouping"]) == {"all", "type", "project", "year"}
