"""Reading a dump's rows for the rules (:mod:`analysis.clean.scan`): what a compact reading
keeps of each row and line, and how it still accounts for every one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from analysis.clean.scan import (
    Reading,
    exclusion_summary,
    file_accounting,
    issue_urls,
    keep_lines,
    keep_rows,
)
from analysis.core.dump import ProjectFiles

U1, U2 = (f"https://github.com/o/r/issues/{n}" for n in (1, 2))


def test_issue_urls_keep_only_urls():
    values = pd.Series([U1, "ftp://x/y", None, " " + U2, ""], dtype=object)
    assert issue_urls(values).tolist()[:1] == [U1]
    assert issue_urls(values).isna().tolist() == [False, True, True, True, True]


def test_a_reading_in_chunks_is_compact():
    assert not Reading().compact and Reading(chunk_rows=10).compact


def _rows():
    return pd.DataFrame({"line": [2, 3, 4], "raw": ["a", "b", "c"],
                         "reason": [None, "invalid_url", "blank_row"],
                         "flags": [[], [], []], "url": [U1, "nope", None],
                         "final_label": ["A.1", "A.1", None]})


def test_keep_rows_whole_adds_the_key():
    aside: Counter = Counter()
    rows = keep_rows(_rows(), False, aside, "p.csv")
    assert rows["key"].tolist()[:1] == [U1] and rows["key"].isna().tolist()[1:] == [True] * 2
    assert "raw" in rows and not aside


def test_keep_rows_compact_keeps_rows_with_a_url_and_counts_the_others():
    aside: Counter = Counter()
    rows = keep_rows(_rows(), True, aside, "p.csv")
    assert list(rows) == ["line", "key", "reason"] and rows["line"].tolist() == [2]
    assert str(rows["key"].dtype) == "string" and aside == {"p.csv": 2}
    empty = keep_rows(pd.DataFrame(), True, aside, "q.csv")
    assert empty.empty and aside["q.csv"] == 0


def _lines():
    return pd.DataFrame({"line": [1, 2, 3], "raw": [U1, "", "x"], "url": [U1, "", "x"],
                         "is_url": [True, False, False], "blank": [False, True, False],
                         "year": [2024] * 3, "file": ["p_2024.txt"] * 3})


def test_keep_lines_give_reasons_to_blank_lines_and_lines_that_are_not_urls():
    lines = keep_lines(_lines(), False, Counter())
    assert lines["reason"].tolist() == [None, "year_blank_line", "year_line_not_url"]
    assert lines["key"].tolist()[0] == U1 and lines["key"].isna().tolist()[1:] == [True] * 2


def test_keep_lines_compact_keeps_the_urls_and_counts_the_others():
    aside: Counter = Counter()
    lines = keep_lines(_lines(), True, aside)
    assert list(lines) == ["line", "key", "year", "file", "reason"]
    assert lines["line"].tolist() == [1] and aside == {"p_2024.txt": 2}


def test_file_accounting_adds_what_a_compact_reading_only_counted(tmp_path):
    project = ProjectFiles("p", tmp_path / "p", tmp_path / "p/p.csv",
                           {2024: tmp_path / "p/p_2024.txt"})
    rows = pd.DataFrame({"reason": [None, "no_year"]})
    lines = pd.DataFrame({"file": ["p/p_2024.txt"] * 2, "reason": [None, "surplus"]})
    files = file_accounting(project, Path(tmp_path), "p/p.csv", rows, lines,
                            Counter({"p/p.csv": 3, "p/p_2024.txt": 1}))
    assert files == [
        {"file": "p/p.csv", "role": "labels", "input": 5, "kept": 1, "set_aside": 4},
        {"file": "p/p_2024.txt", "role": "years", "input": 3, "kept": 1, "set_aside": 2}]


def test_exclusion_summary_counts_every_candidate_but_blank_rows():
    rows = pd.DataFrame({"reason": [None, "no_year", "blank_row"]})
    assert exclusion_summary("p", rows, None) == {
        "project": "p", "recorded": False, "label_rows": 2, "excluded": None,
        "candidates": None}
    assert exclusion_summary("p", rows, pd.DataFrame({"x": [1, 2, 3]}))["candidates"] == 5
