"""The quality report (:mod:`analysis.core.quality`): anomalies by kind and the row
accounting, per file and over all."""

from __future__ import annotations

import pytest

from analysis.core.config import load_yaml
from analysis.core.dump import Quirk
from analysis.core.errors import InputError
from analysis.core.quality import (
    IGNORED,
    KEPT,
    RULES_FILE,
    SET_ASIDE,
    Anomaly,
    Rule,
    make_anomaly,
    quality_report,
    quirk_anomaly,
    registry_rules,
    stage_rules,
)

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


def test_a_quirk_becomes_an_anomaly_under_its_rule():
    rules = {"extra_column": Rule(IGNORED, "warning", "not used")}
    a = quirk_anomaly(rules, Quirk("extra_column", "p.csv", "column 'x' is not used", 1, "x",
                                   "v"))
    assert a == Anomaly("extra_column", "p.csv", 1, "column 'x' is not used", IGNORED, "x", "v")


REGISTRY = {
    "shared": {"bom": {"action": "kept", "severity": "info", "description": "A BOM."}},
    "one": {"own": {"action": "set_aside", "severity": "error",
                    "description": "Not in {taxonomy_file}."}, "bom": None},
    "two": {"bom": None},
}
FILLS = {"{taxonomy_file}": "data/t.yaml"}


def test_a_stage_takes_its_own_rules_and_the_shared_ones_it_names_in_its_order():
    rules = registry_rules(REGISTRY, "one", FILLS)
    assert rules == {"own": Rule(SET_ASIDE, "error", "Not in data/t.yaml."),
                     "bom": Rule(KEPT, "info", "A BOM.")}
    assert registry_rules(REGISTRY, "two", FILLS)["bom"] is not rules["bom"]
    assert registry_rules(REGISTRY, "two", FILLS) == {"bom": Rule(KEPT, "info", "A BOM.")}


@pytest.mark.parametrize(("registry", "stage", "message"), [
    ({"one": {"gone": None}}, "one", "one.gone draws a shared rule that is not in 'shared'"),
    ({**REGISTRY, "one": {"bom": {"action": "kept", "severity": "info", "description": "B"}}},
     "one", "one.bom words a shared rule again"),
    (REGISTRY, "three", "no rules for stage 'three'"),
    (REGISTRY, "shared", "no rules for stage 'shared'"),
    ({"one": {"x": {"action": "drop", "severity": "info", "description": "d"}}}, "one",
     "rule one.x is not an action, a severity and a description"),
    ({"one": {"x": {"action": "kept", "severity": "info"}}}, "one",
     "rule one.x is not an action, a severity and a description"),
])
def test_a_malformed_registry_is_one_message_naming_the_entry(registry, stage, message):
    with pytest.raises(InputError) as err:
        registry_rules(registry, stage, FILLS)
    assert err.value.problem == message
    assert err.value.file == str(RULES_FILE)


def test_the_registry_words_every_kind_once_and_says_which_names_differ_by_stage():
    """A kind in ``shared`` has one wording wherever it is met; the names two stages word
    their own way are rules of different files (their own action or scope), listed here
    so that a new one is a decision, not an accident."""
    stages = ("clean", "interviews", "taxonomy")
    rules = {s: stage_rules(s) for s in stages}
    for kind in ("utf8_bom", "crlf_line_endings", "cr_line_endings"):
        assert len({rules[s][kind] for s in stages}) == 1, kind
    own: dict[str, list[str]] = {}
    registry = load_yaml(RULES_FILE)
    for s in stages:
        for kind, entry in registry[s].items():
            if entry is not None:
                own.setdefault(kind, []).append(s)
    assert {k: v for k, v in own.items() if len(v) > 1} == {
        "whitespace": ["clean", "interviews"], "extra_column": ["clean", "interviews"],
        "blank_row": ["clean", "interviews"], "malformed_row": ["clean", "interviews"]}
    assert rules["clean"]["utf8_bom"].description == (
        "The file starts with a UTF-8 byte-order mark; it is removed before parsing.")
    assert "{" not in "".join(r.description for rs in rules.values() for r in rs.values())
