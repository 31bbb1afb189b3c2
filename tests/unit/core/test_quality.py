"""The quality report (:mod:`analysis.core.quality`): anomalies by kind and the row
accounting, per file and over all."""

from __future__ import annotations

from analysis.core.quality import KEPT, SET_ASIDE, Rule, make_anomaly, quality_report

RULES = {"dup": Rule(KEPT, "warning", "a duplicate"), "blank": Rule(SET_ASIDE, "info", "blank")}


def test_the_report_accounts_for_every_row_per_file_and_role():
    files = [{"file": "b.csv", "role": "labels", "input": 5, "kept": 4, "set_aside": 1},
             {"file": "a.txt", "role": "years", "input": 3, "kept": 3, "set_aside": 0},
             {"file": "c.csv", "role": "labels", "input": 2, "kept": 1, "set_aside": 0}]
    anomalies = [make_anomaly(RULES, "dup", "b.csv", "twice", line=3),
                 make_anomaly(RULES, "blank", "b.csv", "empty", line=2),
                 make_anomaly(RULES, "dup", "a.txt", "again", line=1)]
    q = quality_report(anomalies, RULES, files, {"projects": ["p"]})
    assert [f["file"] for f in q["files"]] == ["a.txt", "b.csv", "c.csv"]
    assert [f["balanced"] for f in q["files"]] == [True, True, False]
    assert q["summary"] == {"projects": ["p"], "balanced": False}
    assert q["accounting"] == {"labels": {"input": 7, "kept": 5, "set_aside": 1},
                               "years": {"input": 3, "kept": 3, "set_aside": 0}}
    assert q["anomaly_counts"] == {"blank": 1, "dup": 2}
    assert [a["line"] for a in q["anomalies"]] == [1, 2, 3]  # by file, then line
    assert q["rules"]["blank"] == {"action": SET_ASIDE, "severity": "info",
                                   "description": "blank"}
    assert "balanced" not in files[0]  # the caller's records are left as they were
