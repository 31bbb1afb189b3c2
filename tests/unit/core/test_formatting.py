"""How numbers look everywhere (:mod:`analysis.core.formatting`): one missing mark, and the
same text for a value whatever type the table gave it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.core import formatting as f


@pytest.mark.parametrize("x", [None, "", float("nan"), np.nan, np.float32("nan"), pd.NA])
def test_every_undefined_value_is_missing(x):
    assert f.is_missing(x)
    assert f.dec(x) == f.count(x) == f.pct(x) == f.pval(x) == f.signed(x) == f.MISSING
    assert f.change(x) == f.decimal(x) == f.short(x) == f.interval(x, 1) == f.MISSING


@pytest.mark.parametrize("x", [0, 0.0, "0", "text", False, np.int64(3)])
def test_defined_values_are_not_missing(x):
    assert not f.is_missing(x)


def test_the_missing_mark_is_an_en_dash():
    assert f.MISSING == "\u2013"


def test_numbers():
    assert f.dec(0.7574668) == "0.757" and f.dec("0.5", 1) == "0.5" and f.dec(-1e-9) == "-0.000"
    assert f.dec("n.a.") == "n.a."  # text that is not a number stays as it is
    assert f.count(38742) == f.count(38742.0) == f.count("38742") == "38,742"
    assert f.count("n.a.") == "n.a."
    assert f.pct(24.38) == "24.4%" and f.pct(0.951, fraction=True) == "95.1%"
    assert f.pct(54.6189, 2) == "54.62%"
    assert f.pval(1e-9) == "< 0.001" and f.pval(0.0234) == "0.023" and f.pval(1) == "1.000"
    assert f.signed(0.0123) == "+0.012" and f.signed(-3, 1) == "-3.0"
    assert f.change(12) == "+12" and f.change(-1234.0) == "-1,234" and f.change(0.5) == "+0.500"
    assert f.decimal(12345.678) == "12,345.7" and f.decimal(2, 2) == "2.00"
    assert f.short(2.5) == "2.5" and f.short(3.0) == "3" and f.short(1 / 3) == "0.33"
    assert f.short(10) == "10" and f.short(0) == "0"


def test_intervals_need_both_ends():
    assert f.interval(0.7253, 0.7869) == "0.725–0.787"
    assert f.interval(0.1, 0.25, 1) == "0.1–0.2"  # Python's rounding of 0.25
    assert f.interval(0.1, None) == f.interval(math.nan, 0.2) == f.MISSING


def test_flags():
    assert f.yes_no("True") == f.yes_no("yes") == f.yes_no(" 1 ") == f.yes_no(True) == "yes"
    assert f.yes_no("False") == f.yes_no(0) == f.yes_no("maybe") == "no"


def test_variable_values():
    assert f.value(12345) == "12,345" and f.value(np.int64(7)) == "7"
    assert f.value(0.5) == "0.50" and f.value(1234.0) == "1,234" and f.value(12.0) == "12.00"
    assert f.value(True) == "yes" and f.value(False) == "no"
    assert f.value(None) == f.value(float("nan")) == f.MISSING
    assert f.value([1, 2000, "a"]) == "1, 2,000, a" and f.value("text") == "text"


@pytest.mark.parametrize("x, shown", [
    ("text", "text"), (np.str_("text"), "text"), (None, ""), (float("nan"), ""),
    (True, "yes"), (np.bool_(False), "no"), (1234, "1,234"), (np.int64(1234), "1,234"),
    (2.5, "2.50"), (np.float64(3.0), "3"), (pd.Timestamp("2024-01-02"), "2024-01-02 00:00:00"),
])
def test_a_table_cell_as_shown(x, shown):
    assert f.cell(x) == shown
