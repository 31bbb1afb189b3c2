"""Grouping issue URLs a slice of their hash at a time (:mod:`analysis.clean.keys`)."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest

from analysis.clean import keys
from analysis.clean.keys import KeyGroups, arrow_strings, string_hashes, take

U1, U2, U3 = (f"https://github.com/o/r/issues/{n}" for n in (1, 2, 3))


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_arrow_strings_keep_values_and_missing(dtype):
    column = arrow_strings(pd.Series([U1, None, "é"], dtype=dtype))
    assert isinstance(column, pa.ChunkedArray) and column.type == pa.large_string()
    assert column.to_pylist() == [U1, None, "é"]


def test_string_hashes_are_equal_for_equal_strings_only():
    column = arrow_strings(pd.Series([U1, U2, U1, None], dtype=object))
    hashes = string_hashes(column)
    assert hashes.dtype == "uint64" and len(hashes) == 4
    assert hashes[0] == hashes[2] != hashes[1]
    assert len(string_hashes(pa.chunked_array([], type=pa.large_string()))) == 0


@pytest.mark.parametrize("dtype", [object, "string[pyarrow]"])
def test_key_groups_are_exact_whatever_the_slices(monkeypatch, dtype):
    """Codes are equal exactly for equal keys, also when the keys are spread over many
    slices of the hash (and the texts are read back from where each first occurs)."""
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


def test_no_keys_no_groups():
    groups = KeyGroups.of(pd.Series([None], dtype=object))
    assert len(groups) == 0 and groups.codes.tolist() == [-1]
    assert groups.find(pd.Series([U1], dtype=object)).tolist() == [-1]


def test_take_gives_the_positions_in_order_chunk_by_chunk():
    column = pa.chunked_array([["a", "b"], ["c"], [], ["d", None]], type=pa.large_string())
    for at in ([0, 2, 3], [3, 0, 2, 2], [4], []):
        taken = take(column, at)
        assert taken.type == pa.large_string()
        assert taken.to_pylist() == [column.to_pylist()[i] for i in at]
    assert take(column, [0, 2, 3]).num_chunks == 3  # no copy of the whole column first
