"""The findings notebook as a stage: the project's claims file and a few stages'
reproduced values in a temporary project root laid out as
:class:`~analysis.core.paths.Paths` names it."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from analysis.core import artifacts
from analysis.core.claims import STATUSES, load_claims
from analysis.core.examples import example_claims, load_examples
from analysis.core.paths import PATHS, Paths


def taxonomy_counts(paths: Paths) -> None:
    """The taxonomy stage's counts the challenges are counted from, and the challenges."""
    shutil.copy(PATHS.challenges_file, paths.challenges_file)
    shutil.copy(PATHS.projects_file, paths.projects_file)
    artifacts.write_csv(paths.taxonomy.table("themes.csv"), pd.DataFrame({
        "code": ["A.1", "B.2", "C.1", "C.2", "C.3"], "issues": [5, 30, 50, 10, 5]}))
    artifacts.write_csv(paths.taxonomy.table("shares.csv"), pd.DataFrame({
        "table": "theme_by_project", "row": ["B.2", "C.2", "C.3", "C.1"],
        "column": ["pytorch", "pytorch", "vllm", "vllm"], "issues": [30, 10, 5, 50],
        "share_percent": [75.0, 25.0, 9.1, 90.9]}))


@pytest.mark.slow
def test_findings_notebook_scores_every_claim_from_every_stage_file(tmp_path):
    from analysis.tools.nbrun import run

    root = tmp_path / "root"
    paths = Paths(root)
    paths.claims_file.parent.mkdir(parents=True)
    shutil.copy(PATHS.claims_file, paths.claims_file)
    shutil.copy(PATHS.examples_file, paths.examples_file)
    artifacts.write_json(paths.table1.reproduced, {
        "table1.total_reports": {"value": 38742}, "table1.projects": {"value": 9}})
    artifacts.write_json(paths.taxonomy.reproduced, {
        "examples.ref59": {"value": "B.2"}, "examples.ref73": {"value": "B.1"},
        "examples.ref44": {"value": None, "note": "not in the release"}})
    artifacts.write_json(paths.keywords.reproduced, {
        "keywords.count.pytorch": {"value": 72, "note": "distinct exact strings"}})
    taxonomy_counts(paths)

    stage = paths.findings
    assert run(PATHS.findings.notebook_source, stage.notebook,
               {"root": str(root), "params": {"dominant_share": 60}}) == 0
    card = pd.read_csv(stage.table("scorecard.csv"), dtype=str, keep_default_na=False)
    examples = example_claims(load_examples(PATHS.examples_file))
    assert card["claim_id"].tolist() == (load_claims(PATHS.claims_file)["claim_id"].tolist()
                                         + examples["claim_id"].tolist())
    status = card.set_index("claim_id")["status"]
    assert (status["examples.ref59"], status["examples.ref73"]) == ("exact", "differs")
    assert status["examples.ref44"] == "not_reproducible"
    assert card.set_index("claim_id").loc["interviews.users.engineers.min_years",
                                          "relation"] == ">"
    assert status["table1.total_reports"] == "exact"
    assert status["table1.projects"] == "differs"  # the paper counts 11
    assert status["keywords.count.pytorch"] == "exact"
    assert status["table1.pytorch.2023"] == "not_reproducible"  # no stage wrote it
    metrics = artifacts.read_json(stage.metrics)
    assert metrics["claims"] == len(card)
    examples = card["claim_id"].str.startswith("examples.")
    for board, rows in (("printed", card[~examples]), ("examples", card[examples])):
        assert metrics[board] == {"claims": len(rows), **rows["status"].value_counts().reindex(
            list(STATUSES), fill_value=0).to_dict()}
    assert [metrics["printed"][s] + metrics["examples"][s] for s in ("exact", "differs")] == [
        3, 2]
    # the challenges: Challenge 4 (B.2, C.2, C.3) rests on 45 reports, 30 of them B.2's
    coverage = pd.read_csv(stage.table("challenges.csv")).set_index("challenge")
    assert coverage.loc[4, "issues"] == 45 and coverage.loc[4, "highest_project"] == "PyTorch"
    dominant = pd.read_csv(stage.table("dominant.csv")).set_index("challenge")
    assert dominant.loc[4, "theme"] == "B.2" and dominant.loc[4, "without"] == 15
    assert artifacts.read_json(stage.vars)["dominant_share"] == 60.0


@pytest.mark.slow
def test_a_claim_produced_by_two_stages_stops_the_notebook(tmp_path, capsys):
    from analysis.tools.nbrun import parse_params, run

    root = tmp_path / "root"
    paths = Paths(root)
    paths.claims_file.parent.mkdir(parents=True)
    shutil.copy(PATHS.claims_file, paths.claims_file)
    for stage in (paths.table1, paths.keywords):
        artifacts.write_json(stage.reproduced, {"table1.projects": {"value": 11}})
    taxonomy_counts(paths)
    assert run(PATHS.findings.notebook_source, paths.findings.notebook,
               {**parse_params("findings", []), "root": str(root)}) == 1
    assert "claim ids produced by two stages" in capsys.readouterr().err
    assert not paths.findings.table("scorecard.csv").exists()
