"""The rules across rows (:mod:`analysis.clean.scan`) on hand-made keys: the same answers
whether the keys are Python strings (the clean stage) or Arrow strings (a check)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.clean.keys import KeyGroups
from analysis.clean.scan import PAIRED, SURPLUS, UNLABELLED, issue_urls, pair_years

U1, U2, U3 = (f"https://github.com/o/r/issues/{n}" for n in (1, 2, 3))


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


def test_issue_urls_keep_only_urls():
    values = pd.Series([U1, "ftp://x/y", None, " " + U2, ""], dtype=object)
    assert issue_urls(values).tolist()[:1] == [U1]
    assert issue_urls(values).isna().tolist() == [False, True, True, True, True]


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_key_groups_are_exact_whatever_the_slices(monkeypatch, dtype):
    """Codes are equal exactly for equal keys, also when the keys are spread over many
    slices of the hash (and the texts are read back from where each first occurs)."""
    from analysis.clean import keys

    monkeypatch.setattr(keys, "SLICE_KEYS", 2)
    values = [U1, U2, None, U1, U3, "x", U2, U2, "é"]
    groups = KeyGroups.of(pd.Series(values, dtype=dtype))
    assert groups.slices == 4 and len(groups) == 5
    codes = groups.codes.tolist()
    assert codes[2] == -1 and len({codes[0], codes[3]}) == 1
    assert len({codes[1], codes[6], codes[7]}) == 1 and len(set(codes) - {-1}) == 5
    assert [groups.text(c) for c in codes if c >= 0] == [v for v in values if v]
    assert list(groups.texts()) == [groups.text(c) for c in range(len(groups))]
    found = groups.find(pd.Series([U3, "y", None, "é", U1], dtype=dtype))
    assert found.tolist() == [codes[4], -1, -1, codes[8], codes[0]]
