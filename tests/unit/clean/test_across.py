"""The rules across rows (:mod:`analysis.clean.across`) on hand-made keys: the same answers
whether the keys are Python strings (the clean stage) or Arrow strings (a check)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest

from analysis.clean.across import (
    PAIRED,
    SURPLUS,
    UNLABELLED,
    code_groups,
    cross_project_duplicates,
    flag_rows,
    judge_project,
    pair_years,
)
from analysis.clean.keys import KeyGroups

U1, U2, U3 = (f"https://github.com/o/r/issues/{n}" for n in (1, 2, 3))
X = "https://github.com/other/r/issues/9"


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_rows_take_their_listings_in_order_and_lines_are_paired_or_not(dtype):
    rows = pd.Series([U1, U1, U2, None, U1], dtype=dtype)
    # the year files of 2023 and 2024, given out of order: by year, then line, counts
    lines = pd.DataFrame({"key": [U2, U1, U3, None, U2, U1],
                          "year": [2024, 2024, 2024, 2024, 2023, 2023],
                          "line": [1, 2, 3, 4, 1, 2]})
    urls = KeyGroups.of(rows)
    rc, lc = urls.codes, urls.find(lines["key"].astype(dtype))
    assert sorted(urls.texts()) == [U1, U2] and rc[3] == -1 == lc[3] == lc[2]
    got = pair_years(rc, lc, len(urls), lines["year"], lines["line"])
    assert got.year.tolist() == [2023, 2024, 2023, pd.NA, 2024]
    assert got.more_rows.tolist() == [False, False, False, False, True]
    assert got.many_years.tolist() == [True, True, True, False, True]
    assert got.status.tolist() == [SURPLUS, PAIRED, UNLABELLED, UNLABELLED, PAIRED, PAIRED]
    assert got.paired_row.tolist() == [-1, 1, -1, -1, 2, 0]


def test_nothing_to_pair():
    urls = KeyGroups.of(pd.Series([None, None], dtype=object))
    lc = urls.find(pd.Series([], dtype=object))
    assert urls.codes.tolist() == [-1, -1] and len(lc) == len(urls) == 0
    got = pair_years(urls.codes, lc, 0, pd.Series([], dtype="int64"),
                     pd.Series([], dtype="int64"))
    assert got.year.isna().all() and not got.more_rows.any() and len(got.status) == 0


def test_code_groups_sort_stably_and_rank_within_a_code():
    order, start, rank = code_groups(np.array([2, 0, 2, 1, 0]), 3)
    assert order.tolist() == [1, 4, 3, 0, 2]
    assert start.tolist() == [0, 2, 3, 5] and rank.tolist() == [0, 0, 1, 0, 1]


def test_flag_rows_adds_a_flag_only_where_rows_keep_flags():
    rows = pd.DataFrame({"flags": [[], ["a"]]})
    flag_rows(rows, [1], "b")
    assert rows["flags"].tolist() == [[], ["a", "b"]]
    compact = pd.DataFrame({"line": [1]})
    flag_rows(compact, [0], "b")  # a compact reading keeps no flags: nothing to do
    assert list(compact) == ["line"]


def _project(compact: bool):
    rows = pd.DataFrame({"line": [2, 3, 4, 5], "reason": [None, None, None, "invalid_url"],
                         "key": [U1, U1, X, None]})
    if not compact:
        rows["flags"] = [[], [], [], []]
    urls = KeyGroups.of(rows["key"].astype("string[pyarrow]" if compact else object))
    keys = pd.Series([U1, X, U1, U1])
    lines = pd.DataFrame({"url_code": urls.find(keys), "year": [2024, 2023, 2024, 2024],
                          "line": [1, 1, 2, 3], "reason": [None] * 4,
                          "file": ["p_2024.txt", "p_2023.txt", "p_2024.txt", "p_2024.txt"]})
    return rows, lines, urls


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("policy", ["keep", "first"])
def test_judge_project_gives_years_duplicates_foreign_repos_and_line_reasons(compact,
                                                                               policy):
    rows, lines, urls = _project(compact)
    anomalies: list = []
    judge_project(rows, lines, urls, "p.csv", policy, anomalies)
    assert rows["year"].tolist() == [2024, 2024, 2023, pd.NA]
    first = policy == "first"
    assert rows["reason"].tolist() == [None, "duplicate_url" if first else None, None,
                                       "invalid_url"]
    assert lines["reason"].tolist() == [None, None, "label_row_set_aside" if first else None,
                                        "surplus_year_line"]
    assert Counter(a.kind for a in anomalies) == {
        "duplicate_url": 2, "foreign_repo_url": 1, "surplus_year_line": 1}
    foreign = next(a for a in anomalies if a.kind == "foreign_repo_url")
    assert (foreign.line, foreign.value) == (4, X)
    if not compact:
        assert rows["flags"].tolist() == [["duplicate_url"], ["duplicate_url"],
                                          ["foreign_repo_url"], []]


def test_a_url_kept_in_two_projects_is_flagged_in_both():
    rows = pd.DataFrame({"project": ["a", "a", "b", "b"], "key": [U1, U2, U1, U2],
                         "reason": [None, None, None, "no_year"], "line": [2, 3, 2, 3],
                         "source_file": ["a.csv", "a.csv", "b.csv", "b.csv"],
                         "flags": [[], [], [], []]})
    anomalies: list = []
    cross_project_duplicates(rows, anomalies)
    assert [(a.file, a.line, a.value) for a in anomalies] == [("a.csv", 2, U1),
                                                              ("b.csv", 2, U1)]
    assert rows["flags"].tolist() == [["cross_project_duplicate"], [],
                                      ["cross_project_duplicate"], []]
    one = rows[rows["project"] == "a"].copy()
    cross_project_duplicates(one, anomalies)  # one project: nothing to compare
    assert len(anomalies) == 2


def test_flags_are_added_to_the_rows_at_the_positions_only():
    rows = pd.DataFrame({"flags": [[], ["whitespace"], [], []]})
    before = rows["flags"].iloc[1]
    flag_rows(rows, np.array([1, 3]), "duplicate_url")
    flag_rows(rows, np.array([3]), "foreign_repo_url")
    flag_rows(rows, np.array([], dtype=np.int64), "no_year")
    assert rows["flags"].tolist() == [[], ["whitespace", "duplicate_url"], [],
                                      ["duplicate_url", "foreign_repo_url"]]
    assert before == ["whitespace"]  # a new list: the flags of another frame stay as they were
    compact = pd.DataFrame({"line": [1]})
    flag_rows(compact, np.array([0]), "duplicate_url")
    assert list(compact) == ["line"]
