"""Unit tests of ``analysis.core.dump`` (the label files themselves: tests/unit/clean)."""

from __future__ import annotations

import pytest

from analysis.core.dump import csv_records
from analysis.core.errors import InputError


def test_csv_records_name_the_first_line_of_a_record_and_skip_the_final_newline():
    lines = 'a,b\n1,"two\nlines"\n3,4\n'.split("\n")
    assert csv_records(lines, "f.csv", fix="-") == [
        (1, 1, ["a", "b"]), (2, 3, ["1", "two\nlines"]), (4, 4, ["3", "4"])]


def test_broken_quoting_is_one_message_at_the_record_s_first_line():
    with pytest.raises(InputError, match="not valid CSV") as err:
        csv_records(['a', '"x', 'y"q'], "f.csv", fix="fix the quoting", strict=True)
    assert err.value.line == 2
