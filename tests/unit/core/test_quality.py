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


def test_anomaly_order_puts_file_then_line_then_column_missing_first():
    from analysis.core.quality import anomaly_order

    rule = {"x": Rule(KEPT, "info", "x")}
    found = [make_anomaly(rule, "x", f, "m", line, column)
             for f, line, column in (("b", 1, None), ("a", 2, "c"), ("a", 2, None),
                                     ("a", None, None), ("a", 1, None))]
    ordered = sorted(found, key=anomaly_order)
    assert [(a.file, a.line, a.column) for a in ordered] == [
        ("a", None, None), ("a", 1, None), ("a", 2, None), ("a", 2, "c"), ("b", 1, None)]


def test_an_anomaly_sample_keeps_the_first_of_each_kind_and_counts_all():
    from analysis.core.quality import AnomalySample

    rules = {k: Rule(KEPT, "info", k) for k in ("x", "y")}
    sample = AnomalySample(2)
    sample.extend(make_anomaly(rules, "x", "a.csv", f"x{n}", n) for n in (5, 4, 3, 4))
    sample.append(make_anomaly(rules, "y", "a.csv", "y1", 1))
    assert sample.counts == {"x": 4, "y": 1}
    assert [a.message for a in sample.kept()] == ["x3", "x4", "y1"]  # the first 4 found
    report = quality_report(sample.kept(), rules, [], {}, counts=sample.counts)
    assert report["anomaly_counts"] == {"x": 4, "y": 1} and len(report["anomalies"]) == 3
