"""The agreement stage end to end: the notebook on a synthetic dump, and the released data
(the offline mirror) against the paper and the libraries."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from analysis.agreement import compute as agreement
from analysis.agreement import outputs
from analysis.agreement.estimators import kappas_by_group
from analysis.agreement.ratings import encode_ratings
from analysis.clean.compute import clean_dump
from analysis.core import artifacts
from analysis.core.claims import judge, load_claims
from analysis.core.paths import PATHS, Paths
from analysis.core.projects import Projects
from tests.support.dumps import small_dump
from tests.support.mirror import needs_mirror
from tests.support.stages import agreement_result
from tests.unit.agreement.synthetic import settings


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
    result = agreement_result(issues, taxonomy, projects, claims, settings(20))
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
    # the grouping and audit tables' kappas are the headline's, to the bit
    by_group = kappas_by_group(codes, np.zeros(len(codes), dtype=int), 1,
                               a.ratings.n_categories)
    assert by_group["complete"]["value"][0] == fk["value"]
    assert by_group["generalised"]["value"][0] == agreement.stat(
        a, "all", "all issues", "fleiss_kappa_generalised")["value"]
    # no rating is missing: Gwet's generalised estimator is Fleiss' kappa, per type too
    for grouping, group in [("all", "all issues"), *(("type", t) for t in issues["type"].unique())]:
        gen = agreement.stat(a, grouping, group, "fleiss_kappa_generalised")
        full = agreement.stat(a, grouping, group, "fleiss_kappa")
        assert gen["value"] == pytest.approx(full["value"], abs=1e-12)
        assert gen["issues_used"] == full["issues_used"]


def stage_root(tmp_path, taxonomy, projects, missing: float = 0.0):
    """A project root holding the stage's inputs: the cleaned small dump (``missing``: the
    share of its ratings left empty) and the curated YAML files."""
    root = tmp_path / "root"
    small_dump(tmp_path / "dump", missing)
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
def test_notebook_runs_on_a_synthetic_dump_with_missing_ratings(tmp_path, taxonomy, projects):
    """The notebook on a dump with a tenth of its ratings missing: every output is written,
    both Fleiss' kappa estimators are reported with the issues each uses, the generalised
    one equals irrCAC's, and the website's kappas say which estimator they are."""
    from irrCAC.raw import CAC

    from analysis.tools.nbrun import parse_params, run

    paths = stage_root(tmp_path, taxonomy, projects, missing=0.1)
    code = run(PATHS.agreement.notebook_source, paths.agreement.notebook,
               {**parse_params("agreement", [["bootstrap_resamples", "40"], ["seed", "3"]]),
                "root": str(paths.root)})
    assert code == 0
    assert paths.agreement.notebook.is_file()
    for name in PATHS.agreement.TABLES:
        if name in PATHS.agreement.STUDY_TABLES:  # a study dump's only
            assert not paths.agreement.table(name).exists(), name
            continue
        assert paths.agreement.table(name).stat().st_size > 0, name
    for name in PATHS.agreement.FIGURES:
        for ext in ("svg", "png"):
            assert paths.agreement.figure(name).with_suffix(f".{ext}").is_file(), (name, ext)
    repro = artifacts.read_json(paths.agreement.reproduced)
    assert set(repro) == {"agreement.kappa.bug", "agreement.kappa.requirement",
                          "agreement.kappa.question"}
    metrics = artifacts.read_json(paths.agreement.metrics)
    website = artifacts.read_json(paths.agreement.vars)
    assert website["seed"] == 3 and website["resamples"] == 40
    assert all(f"fig_{name}_caption" in website for name in PATHS.agreement.FIGURES)
    stats = pd.read_csv(paths.agreement.table("statistics.csv"))
    assert set(stats["grouping"]) == {"all", "type", "project", "year"}
    head = pd.read_csv(paths.agreement.table("headline.csv")).set_index("group")
    assert (head["issues_kappa"] < head["issues_kappa_gen"]).all()
    issues = pd.read_parquet(paths.clean.issues_parquet)
    codes = encode_ratings(issues, taxonomy.codes)
    irr = CAC(pd.DataFrame(np.where(codes.codes >= 0, codes.codes, np.nan)), digits=15)
    assert head.loc["all issues", "kappa_gen"] == pytest.approx(
        irr.fleiss()["est"]["coefficient_value"], abs=1e-9)
    assert website["kappa_estimator"].startswith("complete-rows Fleiss' kappa")
    assert "generalised estimator" in website["kappa_bug_stated"]
    assert metrics["fleiss_kappa"]["Bug"]["value"] == pytest.approx(
        head.loc["Bug", "kappa"], abs=1e-6)
    assert set(metrics) == {"issues", "annotators", "fleiss_kappa"}


@pytest.mark.slow
def test_a_wrong_setting_stops_the_notebook_with_one_line(tmp_path, taxonomy, projects, capsys):
    """The notebook builds its settings first: a confidence level of 2 is one message
    naming it, and nothing is written."""
    from analysis.tools.nbrun import parse_params, run

    paths = stage_root(tmp_path, taxonomy, projects)
    code = run(PATHS.agreement.notebook_source, paths.agreement.notebook,
               {**parse_params("agreement", [["confidence_level", "2"]]),
                "root": str(paths.root)})
    assert code == 1
    assert capsys.readouterr().err.strip() == (
        "04_agreement: params.yaml, column 'agreement.confidence_level': "
        "agreement.confidence_level is 2: it must be a number between 0 and 1, e.g. 0.95 "
        "-> set agreement.confidence_level in params.yaml")
    assert not paths.agreement.notebook.exists() and not paths.agreement.vars.exists()
