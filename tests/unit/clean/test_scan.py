"""The rules across rows (:mod:`analysis.clean.scan`) on hand-made keys: the same answers
whether the keys are Python strings (the clean stage) or Arrow strings (a check)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.clean.scan import (
    PAIRED,
    SURPLUS,
    UNLABELLED,
    factorize_keys,
    issue_urls,
    pair_years,
)

U1, U2, U3 = (f"https://github.com/o/r/issues/{n}" for n in (1, 2, 3))


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_rows_take_their_listings_in_order_and_lines_are_paired_or_not(dtype):
    rows = pd.Series([U1, U1, U2, None, U1], dtype=dtype)
    # the year files of 2023 and 2024, given out of order: by year, then line, counts
    lines = pd.DataFrame({"key": [U2, U1, U3, None, U2, U1],
                          "year": [2024, 2024, 2024, 2024, 2023, 2023],
                          "line": [1, 2, 3, 4, 1, 2]})
    (rc, lc), values = factorize_keys(rows, lines["key"].astype(dtype))
    assert sorted(values.to_pylist()) == [U1, U2, U3] and rc[3] == -1 == lc[3]
    got = pair_years(rc, lc, len(values), lines["year"], lines["line"])
    assert got.year.tolist() == [2023, 2024, 2023, pd.NA, 2024]
    assert got.more_rows.tolist() == [False, False, False, False, True]
    assert got.many_years.tolist() == [True, True, True, False, True]
    assert got.status.tolist() == [SURPLUS, PAIRED, UNLABELLED, UNLABELLED, PAIRED, PAIRED]
    assert got.paired_row.tolist() == [-1, 1, -1, -1, 2, 0]


def test_nothing_to_pair():
    (rc, lc), values = factorize_keys(pd.Series([None, None], dtype=object),
                                      pd.Series([], dtype=object))
    assert rc.tolist() == [-1, -1] and len(lc) == len(values) == 0
    got = pair_years(rc, lc, 0, pd.Series([], dtype="int64"), pd.Series([], dtype="int64"))
    assert got.year.isna().all() and not got.more_rows.any() and len(got.status) == 0


def test_issue_urls_keep_only_urls():
    values = pd.Series([U1, "ftp://x/y", None, " " + U2, ""], dtype=object)
    assert issue_urls(values).tolist()[:1] == [U1]
    assert issue_urls(values).isna().tolist() == [False, True, True, True, True]
