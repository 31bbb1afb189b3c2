"""The evaluator's page's includes (:mod:`analysis.report.pages.evaluate`) and the
variables of the measured fresh clone."""

from __future__ import annotations

from analysis.findings.compute import not_reproducible_by_reason
from analysis.report.pages import evaluate
from analysis.report.variables import fresh_clone_vars, minutes
from tests.unit.report.pages.conftest import scorecard

RECORD = {"commit": "a" * 40, "measured_at": "2026-11-28T05:38:38Z", "total_seconds": 398.04,
          "peak_memory_mib": 1104, "downloaded_mib": 881.5, "fetched_from_mirror": True,
          "renderer": "Quarto 1.8.27",
          "disk_mib": {"clone": 974.1, "environment": 888.1},
          "machine": {"cpu": "AMD EPYC", "cores": 2, "memory_gib": 23.5, "os": "Linux",
                      "python": "3.11.7"},
          "steps": {"setup": {"seconds": 77.4, "cpu_seconds": 21.7, "peak_memory_mib": 201},
                    "clone": {"seconds": 4.6, "cpu_seconds": 1.5, "peak_memory_mib": 11},
                    "pipeline": {"seconds": 310.3, "cpu_seconds": 161.9,
                                 "peak_memory_mib": 1104}}}


def test_the_fresh_clone_as_variables_and_as_a_table_of_its_steps(project):
    v = fresh_clone_vars(RECORD)
    assert (v["total"], v["total_seconds"], v["setup"], v["pipeline"]) == (
        "6 min 38 s", "398.0", "1 min 17 s", "5 min 10 s")
    assert v["peak_memory_mib"] == "1,104" and v["disk_environment_mib"] == "888"
    assert v["commit_short"] == "aaaaaaa" and v["measured_on"] == "2026-11-28"
    assert v["fetch_from"] == "the offline mirror" and v["cores"] == "2"
    assert minutes(45.4) == "45 s" and minutes(60) == "1 min 0 s"
    project.write(evaluate.FRESH_CLONE, RECORD)
    out = evaluate.fresh_clone_steps(project.inputs().json(evaluate.FRESH_CLONE))
    # in the order the steps ran, whatever the record's order
    assert out.index(">clone<") < out.index(">setup<") < out.index(">pipeline<")
    assert 'data-label="seconds">310.3<' in out and ">1,104<" in out


def test_what_is_not_reproduced_by_kind_and_reason():
    card = scorecard(("t.a", "1", "", "not_reproducible"), ("t.b", "2", "", "not_reproducible"),
                     ("t.c", "3", "", "not_reproducible"), ("t.d", "4", "4", "exact"),
                     ("examples.ref1", "A.1", "", "not_reproducible"),
                     ("examples.ref2", "A.1", "", "not_reproducible"))
    card["note"] = ["never released; detail", "never released", "no dates", "",
                    "not in the release: repo x", "not in the release: number 9"]
    by_reason = not_reproducible_by_reason(card)
    assert by_reason.to_dict("records") == [
        {"kind": "printed", "reason": "never released", "claims": 2, "claim_ids": "t.a t.b"},
        {"kind": "printed", "reason": "no dates", "claims": 1, "claim_ids": "t.c"},
        {"kind": "examples", "reason": "not in the release", "claims": 2,
         "claim_ids": "examples.ref1 examples.ref2"}]
    out = evaluate.not_reproduced(by_reason)
    assert out.index("The numbers the paper prints</strong> (3)") < out.index(
        "The example reports the paper cites</strong> (2)")
    assert "<strong>2</strong>: never released" in out and "(t.a, t.b)" in out
    assert "Every claim" in evaluate.not_reproduced(by_reason.iloc[:0])
