"""Integer-coded ratings and the label patterns every agreement statistic is built from.

Labels are integer-coded once (:func:`encode_ratings`; ``MISSING`` is -1). Every statistic
of the stage depends on an issue only through its *label pattern* (the tuple of its
annotators' labels), so the issues are collapsed into distinct patterns with weights
(:func:`label_patterns`; the released data has a few thousand patterns for tens of
thousands of issues, and a dump resampled 100 times has no more). The coefficients
(:mod:`analysis.agreement.estimators`) are weighted sums over patterns, and a bootstrap
resample (:mod:`analysis.agreement.bootstrap`) is a new set of pattern weights.

Also here: the theme scale and its collapse onto issue types (:class:`Scale`), and the
integer group of each issue (:func:`group_index`), so that no per-issue string work is
done on millions of issues.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.core import schemas
from analysis.core.errors import InputError

MISSING = -1


# --------------------------------------------------------------------------- encoding


@dataclass(frozen=True)
class Ratings:
    """Integer-coded ratings: one row per issue, one column per annotator.

    ``codes[i, a]`` is the index into ``categories`` of annotator ``a``'s label for issue
    ``i``, or ``MISSING``. ``categories`` is the rating scale (every theme code of the
    taxonomy, then any unknown label found in the data).
    """

    codes: np.ndarray
    categories: tuple[str, ...]
    annotators: tuple[str, ...]

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def n_raters(self) -> int:
        return len(self.annotators)


def annotator_columns(columns: Iterable[str], *, file: str | None = None) -> list[str]:
    """The ``annotator_<n>`` columns in numeric order; none is one message."""
    found = schemas.annotator_columns(columns)
    if not found:
        raise InputError("no annotator_<n> columns: there are no ratings to compare",
                         file=file, fix="run the clean stage on a dump with Label1..LabelN")
    return found


def category_order(values: Iterable[object], known: Sequence[str]) -> list[str]:
    """The rating scale: the ``known`` codes in their order, then unknown labels sorted."""
    seen = {str(v) for v in values if v is not None and not pd.isna(v)}
    return list(known) + sorted(seen - set(known))


def encode_column(column: pd.Series, categories: Sequence[str]) -> np.ndarray:
    """Codes of one label column against ``categories`` (missing -> ``MISSING``).

    A categorical column is mapped through its (few) categories; anything else is
    factorised once. Either way no Python loop runs over the issues.
    """
    index = pd.Index(list(categories))
    if isinstance(column.dtype, pd.CategoricalDtype):
        lookup = index.get_indexer(column.cat.categories.astype(str))
        raw = column.cat.codes.to_numpy()
    else:
        raw, uniques = pd.factorize(column, use_na_sentinel=True)
        lookup = index.get_indexer(pd.Index(uniques).astype(str))
    if (lookup < 0).any():
        raise ValueError("a label is missing from the categories")  # a bug, not user input
    lookup = np.append(lookup, MISSING)  # raw -1 (missing) -> last entry
    dtype = np.int8 if len(index) < 127 else np.int32
    return lookup[raw].astype(dtype)


def encode_ratings(issues: pd.DataFrame, known_codes: Sequence[str],
                   annotators: Sequence[str] | None = None) -> Ratings:
    """Integer-code the annotator columns of the processed issues table."""
    annotators = list(annotators or annotator_columns(issues.columns))
    values = []
    for col in annotators:
        s = issues[col]
        values.extend(s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype)
                      else pd.unique(s.dropna()))
    categories = category_order(values, known_codes)
    codes = np.column_stack([encode_column(issues[c], categories) for c in annotators]) \
        if len(issues) else np.empty((0, len(annotators)), dtype=np.int8)
    return Ratings(codes, tuple(categories), tuple(annotators))


def collapse_map(categories: Sequence[str], parent: Callable[[str], str],
                 order: Sequence[str] = ()) -> tuple[np.ndarray, tuple[str, ...]]:
    """Map each category to a coarser one (e.g. theme -> issue type).

    Returns the index array (category -> coarse index) and the coarse categories:
    ``order`` first, then any other parent found, sorted.
    """
    parents = [parent(c) for c in categories]
    coarse = list(order) + sorted(set(parents) - set(order))
    pos = {p: i for i, p in enumerate(coarse)}
    return np.array([pos[p] for p in parents], dtype=np.int64), tuple(coarse)


# --------------------------------------------------------------------------- scale and groups


@dataclass(frozen=True)
class Scale:
    """The theme scale and its collapse onto issue types."""

    categories: tuple[str, ...]
    type_index: np.ndarray  # category -> index into types
    types: tuple[str, ...]


def type_columns(codes: np.ndarray, type_index: np.ndarray) -> np.ndarray:
    """The ratings collapsed onto issue types, one contiguous row per annotator
    (annotators x issues, int8; ``MISSING`` stays missing)."""
    lookup = np.append(np.asarray(type_index), MISSING).astype(np.int8)
    return lookup[np.ascontiguousarray(np.asarray(codes).T)]


def type_range(tcols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest type index given to each issue (-1 highest: no rating)."""
    lo = np.where(tcols >= 0, tcols, np.iinfo(np.int8).max).min(axis=0)
    return lo, tcols.max(axis=0)


def group_index(labels: pd.Series, order: Sequence[str] = ()) -> tuple[np.ndarray, list[str]]:
    """Integer group of each issue and the group names (``order`` first, then the others
    sorted). A categorical column is mapped through its categories, so millions of issues
    cost no string work."""
    s = pd.Series(labels)
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes, names = s.cat.codes.to_numpy(), [str(c) for c in s.cat.categories]
    else:
        codes, uniques = pd.factorize(s, sort=True)
        names = [str(u) for u in uniques]
    used = np.bincount(codes + 1, minlength=len(names) + 1)[1:] > 0
    present = [nm for nm, u in zip(names, used, strict=True) if u]
    final = [g for g in order if g in set(present)] + sorted(set(present) - set(order))
    pos = {g: i for i, g in enumerate(final)}
    lookup = np.array([pos.get(nm, -1) for nm in names] + [-1], dtype=np.int64)
    return lookup[codes], final


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True)
class Features:
    """Per-pattern sums every coefficient is built from.

    ``counts[p, k]``: ratings of category ``k`` in pattern ``p``; ``m``: ratings in the
    pattern; ``sumsq``: sum of squared counts (= ``m`` + 2 * agreeing rater pairs).
    """

    counts: np.ndarray
    n_raters: int
    m: np.ndarray = field(init=False)
    sumsq: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "m", self.counts.sum(axis=1))
        object.__setattr__(self, "sumsq", (self.counts ** 2).sum(axis=1))

    @property
    def n_categories(self) -> int:
        return self.counts.shape[1]

    def collapse(self, mapping: np.ndarray, n_coarse: int) -> Features:
        """The same patterns on a coarser scale (``mapping``: category -> coarse index)."""
        onehot = np.zeros((self.n_categories, n_coarse))
        onehot[np.arange(self.n_categories), mapping] = 1.0
        return Features(self.counts @ onehot, self.n_raters)

    def take(self, index: np.ndarray) -> Features:
        return Features(self.counts[index], self.n_raters)


@dataclass(frozen=True)
class Patterns:
    """Distinct label patterns (rows of codes) and how many issues have each."""

    codes: np.ndarray
    weights: np.ndarray
    features: Features

    @property
    def n_issues(self) -> int:
        return int(self.weights.sum())


def pattern_counts(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Category counts per row, built column by column (for the few distinct patterns)."""
    counts = np.zeros((codes.shape[0], n_categories))
    rows = np.arange(codes.shape[0])
    for col in codes.T:
        ok = col >= 0
        np.add.at(counts, (rows[ok], col[ok]), 1.0)
    return counts


def _pack(codes: np.ndarray, n_categories: int) -> np.ndarray | None:
    """One int64 key per row (codes shifted by one, ``bits`` each), or None if too wide."""
    bits = max(1, int(n_categories).bit_length())
    if codes.shape[1] * bits > 62:
        return None
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        key |= (codes[:, j].astype(np.int64) + 1) << (bits * j)
    return key


def label_patterns(codes: np.ndarray, n_categories: int,
                   weights: np.ndarray | None = None) -> tuple[Patterns, np.ndarray]:
    """Collapse rows of codes into distinct patterns, sorted, with their weights.

    Returns the patterns and, for every row, the index of its pattern. The order of the
    patterns depends only on their content, so a bootstrap over patterns gives the same
    draws for the same issues in any row order.
    """
    codes = np.asarray(codes)
    n = codes.shape[0]
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    key = _pack(codes, n_categories)
    if n == 0 or codes.shape[1] == 0:  # no issue, or no rating: at most one (empty) pattern
        uniq = codes[:min(n, 1)]
        inverse = np.zeros(n, dtype=np.int64)
    elif key is not None:
        inverse, keys = pd.factorize(key, sort=True)
        bits = max(1, int(n_categories).bit_length())
        keys = np.asarray(keys, dtype=np.int64)
        uniq = np.column_stack([((keys >> (bits * j)) & ((1 << bits) - 1)) - 1
                                for j in range(codes.shape[1])]).astype(codes.dtype)
    else:
        uniq, inverse = np.unique(codes, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
    w = np.bincount(inverse, weights=weights, minlength=len(uniq))
    counts = pattern_counts(uniq, n_categories)
    return Patterns(uniq, w, Features(counts, codes.shape[1])), inverse
