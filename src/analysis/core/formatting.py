"""How a number looks, wherever it is shown: in a stage's website variables, in a sentence a
stage writes, and in the website's tables.

One module, so that a kappa, a count, a share, an interval or a p-value is printed the same
on every page, and one mark for a value that is not defined (:data:`MISSING`, an en dash):
a coefficient a group is too small for, an interval with an undefined end, a rate the dump
cannot give. The functions take what the tables hold (floats, integers, numeric strings,
``None``, NaN or an empty cell) and return text; they never round data for a computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

MISSING = "–"  # an en dash: the mark of a value that is not defined


def is_missing(x: object) -> bool:
    """True for ``None``, an empty cell, NaN (of any float type) and ``pandas.NA``."""
    if x is None or (isinstance(x, str) and x == ""):
        return True
    try:
        return bool(x != x)  # only NaN differs from itself
    except TypeError:  # pandas.NA has no truth value
        return True


def _number(x: object, shown: Callable[[object], str]) -> str:
    """``x`` as ``shown`` prints a number, :data:`MISSING` when it is not defined, and as
    it is when it is not a number (a label a table holds in a numeric column)."""
    if is_missing(x):
        return MISSING
    try:
        return shown(x)
    except (TypeError, ValueError):
        return str(x)


def dec(x: object, digits: int = 3) -> str:
    """A coefficient or a mean with ``digits`` decimals: ``0.512`` (``-0.000`` stays what
    Python prints: the sign says the value is below zero)."""
    return _number(x, lambda v: f"{float(v):.{digits}f}")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``n`` things in words: ``1 row``, ``2 rows``, ``1,234 claims`` (``words``: the plural
    when it is not ``word`` + s)."""
    return f"{int(n):,} {word if int(n) == 1 else (words or word + 's')}"


def count(x: object) -> str:
    """A whole number with thousands separators: ``38,742``."""
    return _number(x, lambda v: f"{int(float(v)):,}")


def pct(x: object, digits: int = 1, fraction: bool = False) -> str:
    """A share as a percentage: ``54.6%`` (``fraction``: the value is 0-1, else it is
    already a percentage)."""
    return _number(x, lambda v: f"{float(v) * (100 if fraction else 1):.{digits}f}%")


def pval(p: object) -> str:
    """A p-value: ``< 0.001`` below that, else three decimals."""
    return _number(p, lambda v: "< 0.001" if float(v) < 0.001 else f"{float(v):.3f}")


def interval(low: object, high: object, digits: int = 3) -> str:
    """An interval ``low–high``; :data:`MISSING` when either end is not defined (half an
    interval says nothing)."""
    if is_missing(low) or is_missing(high):
        return MISSING
    return f"{float(low):.{digits}f}–{float(high):.{digits}f}"


def signed(x: object, digits: int = 3) -> str:
    """A change with its sign: ``+0.012``, ``-3.0``."""
    return _number(x, lambda v: f"{float(v):+.{digits}f}")


def change(x: object) -> str:
    """A change of a count or of a coefficient: ``+1,234`` for a whole number, ``+0.012``
    otherwise."""
    return _number(x, lambda v: f"{float(v):+,.{0 if float(v).is_integer() else 3}f}")


def decimal(x: object, digits: int = 1) -> str:
    """A statistic with thousands separators and ``digits`` decimals: ``1,234.5``."""
    return _number(x, lambda v: f"{float(v):,.{digits}f}")


def short(x: object, digits: int = 2) -> str:
    """A number with at most ``digits`` decimals and no trailing zeros: ``2.5``, ``3``."""
    return _number(x, lambda v: f"{float(v):.{digits}f}".rstrip("0").rstrip("."))


def yes_no(x: object) -> str:
    """A flag as ``yes`` or ``no`` (``"True"``, ``"yes"`` and ``"1"`` read as yes)."""
    if isinstance(x, str):
        return "yes" if x.strip().lower() in ("true", "yes", "1") else "no"
    return "yes" if bool(x) else "no"


def cell(x: object) -> str:
    """A cell of a table shown as it is: an empty cell stays empty, a flag reads yes/no, a
    whole number gets thousands separators, a fraction two decimals."""
    if x is None or (isinstance(x, float) and x != x):
        return ""
    if isinstance(x, str):
        return x
    import numpy as np  # for numpy's scalars; a table of text (the render step's) needs none

    if isinstance(x, bool | np.bool_):
        return "yes" if x else "no"
    if isinstance(x, int | np.integer):
        return f"{int(x):,}"
    if isinstance(x, float | np.floating):
        x = float(x)
        return f"{x:,.0f}" if x.is_integer() else f"{x:,.2f}"
    return str(x)


def value(x: Any) -> str:
    """A value of a website variable as the pages print it: a whole number with thousands
    separators, a fraction with two decimals (a large whole float without), a flag as
    yes/no, a list joined by commas, text as it is."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.0f}" if x.is_integer() and abs(x) >= 1000 else f"{x:,.2f}"
    if isinstance(x, list | tuple):
        return ", ".join(value(v) for v in x)
    return str(x)
