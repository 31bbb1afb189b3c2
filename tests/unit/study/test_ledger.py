"""The record of a batch's merges (merges/<batch>.json, :mod:`analysis.update.study.ledger`): an
answer changed after the merge is one line naming the sheet and the report, unless it is
revised on purpose, which the record keeps."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from analysis.update.study import batch, ledger
from tests.support.sheets import blank_sheets, fill, issues_of

TEAM = ["alice", "bob", "chen"]
URLS, CANDIDATES = issues_of("sgl-project/sglang", 3)
# per report, each annotator's (label, excluded): one agreed, one split (decided), one
# excluded by all
ANSWERS = {URLS[0]: [("C.2", "")] * 3, URLS[1]: [("A.1", ""), ("A.2", ""), ("A.3", "")],
           URLS[2]: [("", "x")] * 3}


@pytest.fixture
def records(tmp_path, taxonomy):
    folder = tmp_path / "labels" / "2026-01"
    for k, sheet in enumerate(blank_sheets(folder, CANDIDATES, TEAM, taxonomy)):
        fill(sheet, {url: marks[k] for url, marks in ANSWERS.items()})
    with (folder / "decisions.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["url", "decision"], [URLS[1], "A.2"]])
    return folder


def merge(records, *extra: str) -> int:
    root = records.parent.parent
    return batch.main([str(records), "--out", str(root / "build/merged/2026-01"),
                       "--record", str(root / "merges/2026-01.json"), *extra])


def test_the_record_holds_each_sheets_hash_and_each_reports_answers(records, capsys):
    assert merge(records) == 0
    record = json.loads((records.parent.parent / "merges/2026-01.json").read_text())
    assert sorted(record["sheets"]) == [f"sheets/annotator_{a}.csv" for a in TEAM]
    assert record["ratings"][URLS[1]] == {"alice": "A.1", "bob": "A.2", "chen": "A.3"}
    assert record["ratings"][URLS[2]]["bob"] == "excluded"
    assert record["decided"] == [URLS[1]] and record["revisions"] == []
    before = (records.parent.parent / "merges/2026-01.json").read_bytes()
    assert merge(records) == 0  # the same records: the same bytes
    assert (records.parent.parent / "merges/2026-01.json").read_bytes() == before


def test_an_answer_changed_after_the_merge_is_one_line_and_nothing_is_written(records,
                                                                            capsys):
    assert merge(records) == 0
    capsys.readouterr()
    sheet = records / "sheets/annotator_chen.csv"
    fill(sheet, {URLS[0]: ("C.5", "")})
    assert merge(records) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"merge: {sheet}: {URLS[0]}: chen's answer changed from C.2 "
                             "to C.5 after the batch was merged")
    assert "restore the sheet" in err[0] and "--revise" in err[1] and len(err) == 2
    assert not (records.parent.parent / "build/merged/2026-01").exists()


def test_a_decided_report_whose_answers_changed_says_it_was_decided(records, capsys):
    assert merge(records) == 0
    capsys.readouterr()
    fill(records / "sheets/annotator_chen.csv", {URLS[1]: ("A.2", "")})  # now a majority
    assert merge(records) == 1
    err = capsys.readouterr().err
    assert "chen's answer changed from A.3 to A.2" in err and "re-decide it" in err
    assert "remove the decision" not in err


def test_a_change_on_purpose_is_revised_and_the_record_keeps_why(records, capsys):
    assert merge(records) == 0
    fill(records / "sheets/annotator_chen.csv", {URLS[0]: ("C.5", "")})
    assert merge(records, "--revise", "chen corrected a slip") == 0
    record = json.loads((records.parent.parent / "merges/2026-01.json").read_text())
    assert record["revisions"] == [{"reason": "chen corrected a slip", "changes": [{
        "file": str(records / "sheets/annotator_chen.csv"), "url": URLS[0],
        "annotator": "chen", "before": "C.2", "after": "C.5", "decided": False}]}]
    assert record["ratings"][URLS[0]]["chen"] == "C.5"
    assert merge(records) == 0  # and the next run takes the revised answers


def test_a_sheet_saved_again_with_the_same_answers_is_taken(records, capsys):
    assert merge(records) == 0
    sheet = records / "sheets/annotator_bob.csv"
    fill(sheet, {}, delimiter=";", encoding="utf-16", line_end="\n")  # re-saved elsewhere
    assert merge(records) == 0


def test_changes_are_found_answer_by_answer():
    previous = {"ratings": {"u1": {"a": "C.2", "b": "C.2"}, "u2": {"a": "excluded"}},
                "sheets": {}, "decided": ["u2"]}
    now = {"u1": {"a": "C.2", "b": "C.5"}, "u2": {"a": "A.1 excluded"}, "u3": {"a": "A.1"}}
    assert ledger.changes_since(previous, now, {"a": "sa.csv", "b": "sb.csv"}) == [
        ledger.Change("sb.csv", "u1", "b", "C.2", "C.5", False),
        ledger.Change("sa.csv", "u2", "a", "excluded", "A.1 excluded", True)]
    table = pd.DataFrame({"url": ["u"], "annotator": ["a"], "label": [""],
                          "excluded": [False], "unsure": [True]})
    assert ledger.ratings_of(table) == {"u": {"a": "unsure"}}
