"""Inter-annotator agreement: Fleiss' kappa, Krippendorff's alpha and Gwet's AC1, with intervals.

The paper (Section III.B) reports one Fleiss' kappa per issue type. This module computes
those and what a methodologist asks for next: Krippendorff's alpha (nominal) and Gwet's AC1,
analytic confidence intervals (Gwet's linearised variances, as the irrCAC package gives
them) and a bootstrap over issues, agreement per category, Cohen's kappa between every
pair of annotators and between each annotator and the final label, and the confusions.

How it computes. Labels are integer-coded once (:func:`encode_ratings`; ``MISSING`` is -1).
Every statistic here depends on an issue only through its *label pattern* (the tuple of
its annotators' labels), so the issues are collapsed into distinct patterns with weights
(:func:`label_patterns`; the released data has a few thousand patterns for tens of thousands
of issues, and a dump resampled 100 times has no more). All coefficients are then weighted sums over
patterns, and a bootstrap resample is just a multinomial draw of new pattern weights: the
bootstrap never touches the issues again, whatever their number. The headline kappas have
an even shorter path (:func:`fleiss_by_group`): the sum of squared category counts of an
issue is ``ratings + 2 * agreeing rater pairs``, so no issue x category table is built.

The libraries (statsmodels' ``fleiss_kappa`` and ``cohens_kappa``, ``krippendorff``,
``irrCAC``) are the oracle: the tests check this code against them to 1e-9.

Degenerate input gives :class:`Estimate` with ``value=None`` and a note saying why
("not defined: ..."), never a crash or a silent NaN.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa
from tqdm import tqdm  # the plain bar: tqdm.auto warns in kernels without ipywidgets

from analysis.core.errors import InputError

MISSING = -1
ANNOTATOR_RE = re.compile(r"^annotator_(\d+)$")
# 1 - chance agreement below this counts as zero: the coefficient is not defined.
_EPS = 1e-12
STATISTICS = ("fleiss_kappa", "fleiss_kappa_generalised", "krippendorff_alpha", "gwet_ac1")
STATISTIC_NAMES = {
    "fleiss_kappa": "Fleiss' kappa (complete rows)",
    "fleiss_kappa_generalised": "Fleiss' kappa, Gwet's generalised estimator",
    "krippendorff_alpha": "Krippendorff's alpha (nominal)",
    "gwet_ac1": "Gwet's AC1",
    "fleiss_kappa_type": "Fleiss' kappa on the issue type alone",
}


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
    """The ``annotator_<n>`` columns in numeric order: the number of annotators is found."""
    found = sorted((int(m.group(1)), c) for c in columns if (m := ANNOTATOR_RE.match(str(c))))
    if not found:
        raise InputError("no annotator_<n> columns: there are no ratings to compare",
                         file=file, fix="run the clean stage on a dump with Label1..LabelN")
    return [c for _, c in found]


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


def encode_reference(labels: pd.Series, categories: Sequence[str]) -> np.ndarray:
    """Codes of a reference label column (the final label) on the ratings' scale."""
    return encode_column(labels, categories)


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

    def take(self, index: np.ndarray) -> Patterns:
        return Patterns(self.codes[index], self.weights[index], self.features.take(index))


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
    if n == 0:
        uniq = codes[:0]
        inverse = np.zeros(0, dtype=np.int64)
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


# --------------------------------------------------------------------------- estimates


@dataclass(frozen=True)
class Estimate:
    """One coefficient: its value (None when not defined, with the reason in ``note``).

    ``observed`` and ``chance`` are the observed and the chance agreement it is built from
    (coefficient = (observed - chance) / (1 - chance)); ``n`` is the number of issues used.
    """

    value: float | None
    observed: float | None = None
    chance: float | None = None
    n: int = 0
    note: str = ""
    se: float | None = None
    low: float | None = None
    high: float | None = None

    @property
    def defined(self) -> bool:
        return self.value is not None


def _as_weights(W: np.ndarray) -> np.ndarray:
    return np.atleast_2d(np.asarray(W, dtype=float))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


# Each coefficient is a function of a few weighted sums over patterns. ``*_columns`` gives
# the per-pattern terms (one column per sum); ``*_from_sums`` turns the sums, one row per
# set of weights, into the coefficient. A bootstrap multiplies the resampled weights by
# all columns of all coefficients in one matrix product.


def fleiss_columns(f: Features) -> np.ndarray:
    """[complete, complete * (sumsq - r), complete * counts]: Fleiss' kappa's sums."""
    full = (f.m == f.n_raters).astype(float)
    return np.column_stack([full, full * (f.sumsq - f.n_raters), full[:, None] * f.counts])


def fleiss_from_sums(S: np.ndarray, r: int) -> dict[str, np.ndarray]:
    n, agree, totals = S[:, 0], S[:, 1], S[:, 2:]
    po = _ratio(agree, n * r * (r - 1))
    p = _ratio(totals, (n * r)[:, None])
    pe = (p ** 2).sum(axis=1)
    value = _ratio(po - pe, 1 - pe)
    value[(1 - pe < _EPS) | (n < 2) | (r < 2)] = np.nan
    return {"value": value, "observed": po, "chance": pe, "n": n}


def fleiss_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Fleiss' kappa for each row of pattern weights ``W`` (complete patterns only)."""
    return fleiss_from_sums(_as_weights(W) @ fleiss_columns(f), f.n_raters)


def category_columns(f: Features) -> np.ndarray:
    """[complete, complete * counts, complete * counts^2]: per-category kappa's sums."""
    full = (f.m == f.n_raters).astype(float)[:, None]
    return np.column_stack([full, full * f.counts, full * f.counts ** 2])


def category_from_sums(S: np.ndarray, r: int) -> dict[str, np.ndarray]:
    k = (S.shape[1] - 1) // 2
    n, t, s = S[:, :1], S[:, 1:k + 1], S[:, k + 1:]
    p = _ratio(t, n * r)
    kappa = 1 - _ratio(r * t - s, n * r * (r - 1) * p * (1 - p))
    kappa[(p <= 0) | (p >= 1) | (n < 2)] = np.nan
    specific = _ratio(s - t, t * (r - 1))
    return {"value": kappa, "share": p, "specific": specific, "ratings": t}


def category_kappa_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Fleiss' (1971) kappa of each category, and its specific agreement (complete rows).

    ``kappa_j = 1 - sum_i n_ij (r - n_ij) / (N r (r - 1) p_j (1 - p_j))``; the specific
    agreement is the share of agreeing pairs among the rater pairs that involve ``j``.
    """
    return category_from_sums(_as_weights(W) @ category_columns(f), f.n_raters)


def alpha_columns(f: Features) -> np.ndarray:
    """[pairable, pairable * o_cc, pairable * counts]: Krippendorff's alpha's sums."""
    pair = (f.m >= 2).astype(float)
    diag = (f.sumsq - f.m) / np.where(f.m > 1, f.m - 1, 1)
    return np.column_stack([pair, pair * diag, pair[:, None] * f.counts])


def alpha_from_sums(S: np.ndarray) -> dict[str, np.ndarray]:
    units, diag, nc = S[:, 0], S[:, 1], S[:, 2:]
    n = nc.sum(axis=1)
    po = _ratio(diag, n)
    pe = _ratio((nc ** 2).sum(axis=1) - n, n * (n - 1))
    value = _ratio(po - pe, 1 - pe)
    value[(1 - pe < _EPS) | (units < 2)] = np.nan
    return {"value": value, "observed": po, "chance": pe, "n": units}


def alpha_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Krippendorff's alpha (nominal) from the coincidence diagonal, all ratings used.

    ``o_cc`` summed is ``sum_u (sumsq_u - m_u) / (m_u - 1)`` over pairable units
    (``m_u >= 2``); ``alpha = (Po - Pe) / (1 - Pe)`` with ``Po = sum o_cc / n`` and
    ``Pe = sum n_c (n_c - 1) / (n (n - 1))``.
    """
    return alpha_from_sums(_as_weights(W) @ alpha_columns(f))


def ac1_columns(f: Features) -> np.ndarray:
    """[rated, rated * counts / m, pairable, pairable * pa_i]: Gwet's AC1's sums."""
    m = f.m
    one, two = (m >= 1).astype(float), (m >= 2).astype(float)
    shares = f.counts / np.where(m > 0, m, 1)[:, None]
    pa = (f.sumsq - m) / np.where(m > 1, m * (m - 1), 1)
    return np.column_stack([one, one[:, None] * shares, two, two * pa])


def ac1_from_sums(S: np.ndarray, k: int, q: int | None = None) -> dict[str, np.ndarray]:
    """AC1 from the sums of :func:`ac1_columns` over ``k`` coded categories, assuming a
    scale of ``q`` categories (default ``k``)."""
    q = k if q is None else q
    n1, pis, n2, pas = S[:, 0], S[:, 1:k + 1], S[:, k + 1], S[:, k + 2]
    pi = _ratio(pis, n1[:, None])
    pa = _ratio(pas, n2)
    pe = (pi * (1 - pi)).sum(axis=1) / (q - 1) if q > 1 else np.ones_like(n1)
    value = _ratio(pa - pe, 1 - pe)
    value[(q < 2) | (n2 < 2) | (1 - pe < _EPS)] = np.nan
    return {"value": value, "observed": pa, "chance": pe, "n": n1}


def ac1_arrays(W: np.ndarray, f: Features, q: int | None = None) -> dict[str, np.ndarray]:
    """Gwet's AC1 over a scale of ``q`` categories (default ``f.n_categories``; missing
    ratings allowed). ``q`` may exceed the categories rated: unused ones add nothing to the
    shares, but AC1's chance term divides by ``q - 1``, so AC1 depends on it.

    ``pa`` averages pairwise agreement over issues with two or more ratings;
    ``pi_k`` averages each issue's share of category ``k`` over issues with a rating;
    chance agreement is ``sum_k pi_k (1 - pi_k) / (q - 1)``.
    """
    q = f.n_categories if q is None else int(q)
    return ac1_from_sums(_as_weights(W) @ ac1_columns(f), f.n_categories, q)


def generalised_from_sums(S: np.ndarray, q: int) -> dict[str, np.ndarray]:
    """Gwet's generalised Fleiss' kappa from the sums of :func:`ac1_columns` (the same
    sums as AC1: only the chance term differs)."""
    n1, pis, n2, pas = S[:, 0], S[:, 1:q + 1], S[:, q + 1], S[:, q + 2]
    pi = _ratio(pis, n1[:, None])
    pa = _ratio(pas, n2)
    pe = (pi ** 2).sum(axis=1)
    value = _ratio(pa - pe, 1 - pe)
    value[(n2 < 2) | (1 - pe < _EPS)] = np.nan
    return {"value": value, "observed": pa, "chance": pe, "n": n2, "rated": n1}


def generalised_fleiss_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Gwet's generalised Fleiss' kappa (Handbook of Inter-Rater Reliability, ch. 2; what
    irrCAC's ``fleiss()`` computes), for data with missing ratings.

    Observed agreement ``pa`` averages each issue's pairwise agreement over the issues
    with two or more ratings (``n`` in the result); the category shares ``pi_k`` average
    each issue's share of category ``k`` over every issue with a rating (``rated``);
    chance agreement is ``sum_k pi_k^2``. On complete data it equals Fleiss' kappa.
    """
    return generalised_from_sums(_as_weights(W) @ ac1_columns(f), f.n_categories)


ARRAYS = {"fleiss_kappa": fleiss_arrays, "fleiss_kappa_generalised": generalised_fleiss_arrays,
          "krippendorff_alpha": alpha_arrays, "gwet_ac1": ac1_arrays}


class HeadlineSums:
    """All headline coefficients of a group from one matrix product per set of weights.

    ``q`` is the number of categories AC1 assumes (default: the coded scale)."""

    def __init__(self, f: Features, ft: Features, q: int | None = None) -> None:
        blocks = [fleiss_columns(f), alpha_columns(f), ac1_columns(f), fleiss_columns(ft)]
        self.columns = np.column_stack(blocks)
        self.edges = np.cumsum([0] + [b.shape[1] for b in blocks])
        self.r, self.k = f.n_raters, f.n_categories
        self.q = self.k if q is None else int(q)

    def __call__(self, W: np.ndarray) -> dict[str, np.ndarray]:
        S = _as_weights(W) @ self.columns
        part = [S[:, a:b] for a, b in zip(self.edges[:-1], self.edges[1:], strict=True)]
        return {"fleiss_kappa": fleiss_from_sums(part[0], self.r)["value"],
                "fleiss_kappa_generalised": generalised_from_sums(part[2], self.k)["value"],
                "krippendorff_alpha": alpha_from_sums(part[1])["value"],
                "gwet_ac1": ac1_from_sums(part[2], self.k, self.q)["value"],
                "fleiss_kappa_type": fleiss_from_sums(part[3], self.r)["value"]}


def why_undefined(statistic: str, f: Features, w: np.ndarray, q: int | None = None) -> str:
    """A reader's reason why a coefficient is not defined for these patterns (``q``: the
    categories AC1 assumes)."""
    if statistic in ("fleiss_kappa", "fleiss_kappa_type"):
        used = w[f.m == f.n_raters].sum()
        if f.n_raters < 2:
            return "not defined: fewer than two annotators"
        if used < 2:
            return (f"not defined: {int(used)} issue(s) rated by all {f.n_raters} annotators "
                    "(needs two or more)")
    elif statistic in ("krippendorff_alpha", "fleiss_kappa_generalised") \
            and w[f.m >= 2].sum() < 2:
        return "not defined: fewer than two issues with two or more ratings"
    elif statistic == "gwet_ac1":
        if (f.n_categories if q is None else q) < 2:
            return "not defined: the rating scale has a single category"
        if w[f.m >= 2].sum() < 2:
            return "not defined: fewer than two issues with two or more ratings"
    return "not defined: all ratings fall in one category (chance agreement is 1)"


def _t_interval(value: float, se: float, n: float, level: float) -> tuple[float, float]:
    """irrCAC's interval: Student t with n - 1 degrees of freedom, upper end capped at 1."""
    if n < 2 or not np.isfinite(se):
        return (np.nan, np.nan)
    low, high = stats.t.interval(level, df=n - 1, loc=value, scale=max(se, 1e-15))
    return float(low), float(min(1.0, high))


def fleiss_se(f: Features, w: np.ndarray, kappa: float, pe: float) -> float:
    """Gwet's linearised standard error of Fleiss' kappa (complete rows, irrCAC's formula)."""
    r = f.n_raters
    full = f.m == r
    w, counts, sumsq = w[full], f.counts[full], f.sumsq[full]
    n = w.sum()
    p = (w @ counts) / (n * r)
    pa_i = (sumsq - r) / (r * (r - 1))
    pe_i = counts @ p / r
    x = (pa_i - pe) / (1 - pe) - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(w @ (x - kappa) ** 2 / (n * (n - 1))))


def _linearised_se(f: Features, w: np.ndarray, value: float, pe: float,
                   pe_of: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> float:
    """Gwet's linearised standard error shared by AC1 and the generalised Fleiss' kappa
    (irrCAC's formula; missing ratings allowed): ``pe_of(pi)`` gives each issue's chance
    term from its category counts (``counts``) and the category shares ``pi``."""
    one = f.m >= 1
    w, counts, m, sumsq = w[one], f.counts[one], f.m[one], f.sumsq[one]
    n, n2 = w.sum(), w[m >= 2].sum()
    pi = (w @ (counts / m[:, None])) / n
    den = m * (m - 1)
    pa_i = (sumsq - m) / np.where(den > 0, den, -1)
    coef_i = (n / n2) * (pa_i - pe * (m >= 2)) / (1 - pe)
    pe_i = pe_of(counts, pi) / m
    x = coef_i - 2 * (1 - value) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(w @ (x - value) ** 2 / (n * (n - 1))))


def ac1_se(f: Features, w: np.ndarray, ac1: float, pe: float, q: int | None = None) -> float:
    """Gwet's linearised standard error of AC1 on a scale of ``q`` categories."""
    q = f.n_categories if q is None else q
    return _linearised_se(f, w, ac1, pe, lambda counts, pi: counts @ (1 - pi) / (q - 1))


def generalised_fleiss_se(f: Features, w: np.ndarray, kappa: float, pe: float) -> float:
    """Gwet's linearised standard error of the generalised Fleiss' kappa (irrCAC's
    ``fleiss()`` variance, identity weights, no finite-population correction)."""
    return _linearised_se(f, w, kappa, pe, lambda counts, pi: counts @ pi)


def alpha_se(f: Features, w: np.ndarray) -> float:
    """Gwet's linearised standard error of Krippendorff's alpha (irrCAC's formula)."""
    pair = f.m >= 2
    w, counts, m, sumsq = w[pair], f.counts[pair], f.m[pair], f.sumsq[pair]
    n = w.sum()
    rbar = (w @ m) / n
    eps = 1 / (w @ m)
    sq = sumsq - m
    pa_prime = (w @ (sq / (rbar * (m - 1)))) / n
    pa = (1 - eps) * pa_prime + eps
    pi = (w @ counts) / (n * rbar)
    pe = float(pi @ pi)
    alpha_prime = (pa_prime - pe) / (1 - pe)
    pa_i = sq / (rbar * (m - 1)) - pa * (m - rbar) / rbar
    pe_i = counts @ pi / rbar - pe * (m - rbar) / rbar
    x = (pa_i - pe) / (1 - pe) - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe)
    return float(np.sqrt(w @ (x - alpha_prime) ** 2 / (n * (n - 1))))


def estimate(statistic: str, f: Features, w: np.ndarray, level: float = 0.95,
             q: int | None = None) -> Estimate:
    """One coefficient with its analytic (Gwet) standard error and t interval (``q``: the
    number of categories AC1 assumes, default the coded scale).

    The interval is irrCAC's: Student t with ``rated - 1`` degrees of freedom, where
    ``rated`` counts the issues with a rating (for the generalised Fleiss' kappa ``n`` counts
    the issues with two or more ratings, whose agreement it averages)."""
    arrays = ac1_arrays(w, f, q) if statistic == "gwet_ac1" else ARRAYS[statistic](w, f)
    value, po, pe, n = (float(arrays[k][0]) for k in ("value", "observed", "chance", "n"))
    rated = float(arrays["rated"][0]) if "rated" in arrays else n
    clean = lambda x: None if np.isnan(x) else x  # noqa: E731
    if np.isnan(value):
        return Estimate(None, clean(po), clean(pe), int(round(n)),
                        why_undefined(statistic, f, w, q))
    if statistic == "fleiss_kappa":
        se = fleiss_se(f, w, value, pe)
    elif statistic == "fleiss_kappa_generalised":
        se = generalised_fleiss_se(f, w, value, pe)
    elif statistic == "gwet_ac1":
        se = ac1_se(f, w, value, pe, q)
    else:
        se = alpha_se(f, w)
    low, high = _t_interval(value, se, rated, level)
    return Estimate(value, po, pe, int(round(n)), "", se, clean(low), clean(high))


def _features_of(codes: np.ndarray, n_categories: int | None) -> tuple[Features, np.ndarray]:
    codes = np.asarray(codes)
    k = int(codes.max()) + 1 if n_categories is None else n_categories
    pats, _ = label_patterns(codes, max(k, 1))
    return pats.features, pats.weights


def fleiss_kappa(codes: np.ndarray, n_categories: int | None = None,
                 level: float = 0.95) -> Estimate:
    """Fleiss' kappa of integer-coded ratings (rows rated by every annotator only)."""
    return estimate("fleiss_kappa", *_features_of(codes, n_categories), level=level)


def krippendorff_alpha(codes: np.ndarray, n_categories: int | None = None,
                       level: float = 0.95) -> Estimate:
    """Krippendorff's alpha (nominal) of integer-coded ratings (all ratings used)."""
    return estimate("krippendorff_alpha", *_features_of(codes, n_categories), level=level)


def gwet_ac1(codes: np.ndarray, n_categories: int | None = None,
             level: float = 0.95, assumed_categories: int | None = None) -> Estimate:
    """Gwet's AC1 of integer-coded ratings on a scale of ``n_categories`` categories,
    assuming ``assumed_categories`` (default ``n_categories``) in its chance term."""
    return estimate("gwet_ac1", *_features_of(codes, n_categories), level=level,
                    q=assumed_categories)


def generalised_fleiss_kappa(codes: np.ndarray, n_categories: int | None = None,
                             level: float = 0.95) -> Estimate:
    """Gwet's generalised Fleiss' kappa of integer-coded ratings: every issue with two or
    more ratings (see :func:`generalised_fleiss_arrays`)."""
    return estimate("fleiss_kappa_generalised", *_features_of(codes, n_categories),
                    level=level)


# --------------------------------------------------------------------------- fast headline


def missing_counts(cols: np.ndarray) -> np.ndarray:
    """Per issue, how many ratings are missing (``cols``: annotators x issues), in a small
    integer type: the headline path allocates as little as it can on millions of issues."""
    gaps = np.zeros(cols.shape[1], dtype=np.int16)
    for col in cols:
        gaps += col < 0
    return gaps


def agreeing_pairs(cols: np.ndarray, gaps: np.ndarray | None = None) -> np.ndarray:
    """Per issue, the pairs of annotators who both rated it and gave the same label
    (``cols``: annotators x issues; ``gaps``: :func:`missing_counts`, if known). With ``m``
    ratings, the sum of squared category counts is ``m + 2 * pairs``. Two missing ratings
    compare equal (-1 == -1), so the pairs of missing ratings are subtracted afterwards
    rather than masked in every comparison."""
    r, n = cols.shape
    pairs = np.zeros(n, dtype=np.int16 if r * (r - 1) // 2 < 2 ** 15 else np.int64)
    for a in range(r):
        for b in range(a + 1, r):
            pairs += cols[a] == cols[b]
    gaps = missing_counts(cols) if gaps is None else gaps
    if gaps.any():
        pairs -= (gaps * (gaps - 1) // 2).astype(pairs.dtype)
    return pairs


def kappas_by_group(codes: np.ndarray, groups: np.ndarray, n_groups: int,
                    n_categories: int, with_total: bool = False) -> dict[str, pd.DataFrame]:
    """Fleiss' kappa per group, both estimators, straight from the codes (no issue x
    category table): ``complete`` uses the issues rated by every annotator (Fleiss' kappa
    needs the same number of ratings on every issue), ``generalised`` is Gwet's
    generalised estimator (:func:`generalised_fleiss_arrays`) over the issues with two or
    more ratings. Each frame: n (issues whose agreement it averages), observed, chance,
    kappa; the generalised one also ``rated`` (issues with a rating, which enter the
    category shares).

    Both come from the same sums, taken per (number of ratings m, group): one ``bincount``
    per annotator of the category totals, one of the issues and one of the agreeing
    pairs. The complete rows are the slice m = annotators; the generalised estimator weighs
    each slice's category totals by 1 / m and its pairs by 2 / (m (m - 1)). With
    ``with_total`` a last row gives all the issues together, from the same sums.
    """
    cols = np.ascontiguousarray(np.asarray(codes).T)  # one contiguous array per annotator
    groups = np.asarray(groups, dtype=np.int64)
    r, n = cols.shape
    k, g_n = n_categories, n_groups
    gaps = missing_counts(cols)
    pairs = agreeing_pairs(cols, gaps)
    cell = (r - gaps).astype(np.int64)  # (m, group) of each issue: m * g_n + group
    cell *= g_n
    cell += groups
    size = (r + 1) * g_n
    issues = np.bincount(cell, minlength=size).reshape(r + 1, g_n).astype(float)
    agree = np.bincount(cell, weights=pairs, minlength=size).reshape(r + 1, g_n)
    cell *= k + 1  # slot 0 of each cell takes the missing ratings (-1)
    cell += 1
    key = np.empty_like(cell)
    totals = np.zeros(size * (k + 1))
    for a in range(r):
        np.add(cell, cols[a], out=key)
        totals += np.bincount(key, minlength=size * (k + 1))
    totals = totals.reshape(r + 1, g_n, k + 1)[:, :, 1:]
    if with_total:  # sums are additive over groups
        issues, agree, totals = (np.concatenate([x, x.sum(axis=1, keepdims=True)], axis=1)
                                 for x in (issues, agree, totals))
    out = {}
    n_full = issues[r]
    po = _ratio(2 * agree[r], n_full * r * (r - 1))
    pe = (_ratio(totals[r], (n_full * r)[:, None]) ** 2).sum(axis=1)
    kappa = _ratio(po - pe, 1 - pe)
    kappa[(1 - pe < _EPS) | (n_full < 2) | (r < 2)] = np.nan
    out["complete"] = pd.DataFrame({"n": n_full.astype(np.int64), "observed": po,
                                    "chance": pe, "kappa": kappa})
    ms = np.arange(r + 1, dtype=float)
    n_two, n_one = issues[2:].sum(axis=0), issues[1:].sum(axis=0)
    pa = _ratio((agree[2:] * (2 / (ms[2:] * (ms[2:] - 1)))[:, None]).sum(axis=0), n_two)
    shares = (totals[1:] / ms[1:, None, None]).sum(axis=0)
    pe = (_ratio(shares, n_one[:, None]) ** 2).sum(axis=1)
    kappa = _ratio(pa - pe, 1 - pe)
    kappa[(1 - pe < _EPS) | (n_two < 2)] = np.nan
    out["generalised"] = pd.DataFrame({"n": n_two.astype(np.int64),
                                       "rated": n_one.astype(np.int64), "observed": pa,
                                       "chance": pe, "kappa": kappa})
    return out


def fleiss_by_group(codes: np.ndarray, groups: np.ndarray, n_groups: int,
                    n_categories: int) -> pd.DataFrame:
    """Fleiss' kappa per group on the issues rated by every annotator (the complete-rows
    estimator of :func:`kappas_by_group`)."""
    return kappas_by_group(codes, groups, n_groups, n_categories)["complete"]


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


# --------------------------------------------------------------------------- bootstrap


def resample_weights(w: np.ndarray, resamples: int, seed: int,
                     chunk: int = 250) -> Iterable[np.ndarray]:
    """Bootstrap over issues, as multinomial draws of pattern weights, in chunks.

    Drawing N issues with replacement and counting their patterns is a multinomial draw
    with the patterns' shares as probabilities, so the cost is resamples x patterns,
    whatever the number of issues.
    """
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    n = int(round(w.sum()))
    probs = w / w.sum()
    done = 0
    while done < resamples:
        size = min(chunk, resamples - done)
        yield rng.multinomial(n, probs, size=size).astype(float)
        done += size


def percentile_interval(draws: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Percentile interval of bootstrap draws (axis 0), and how many draws were undefined."""
    tail = (1 - level) / 2 * 100
    if not draws.size:
        shape = draws.shape[1:]
        return np.full(shape, np.nan), np.full(shape, np.nan), 0
    undefined = int(np.isnan(draws).any(axis=tuple(range(1, draws.ndim))).sum())
    if np.isnan(draws).all():
        shape = draws.shape[1:]
        return np.full(shape, np.nan), np.full(shape, np.nan), undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(draws, [tail, 100 - tail], axis=0)
    return low, high, undefined


def progress(iterable: Iterable, **kwargs):
    """A progress bar on a terminal, silence elsewhere (CI logs, papermill)."""
    return tqdm(iterable, disable=not sys.stderr.isatty(), leave=False, **kwargs)


# --------------------------------------------------------------------------- group tables


@dataclass(frozen=True)
class Scale:
    """The theme scale and its collapse onto issue types."""

    categories: tuple[str, ...]
    type_index: np.ndarray  # category -> index into types
    types: tuple[str, ...]


def joint_patterns(codes: np.ndarray, n_categories: int,
                   groups: Sequence[np.ndarray]) -> tuple[Patterns, list[np.ndarray]]:
    """Distinct (label pattern, group of each grouping) combinations, with weights.

    One multinomial draw over these gives a bootstrap resample of the issues for every
    group of every grouping at once.
    """
    pats, inverse = label_patterns(codes, n_categories)
    groups = [np.asarray(g, dtype=np.int64) for g in groups]
    dims = [max(len(pats.weights), 1)] + [int(g.max()) + 1 if g.size else 1 for g in groups]
    key = np.ravel_multi_index([inverse, *groups], dims) if len(inverse) else inverse
    jinv, jkeys = pd.factorize(key, sort=True)
    parts = np.unravel_index(np.asarray(jkeys, dtype=np.int64), dims)
    weights = np.bincount(jinv, minlength=len(jkeys)).astype(float)
    joint = Patterns(pats.codes[parts[0]], weights, pats.features.take(parts[0]))
    return joint, [np.asarray(p) for p in parts[1:]]


STAT_COLUMNS = ["grouping", "group", "statistic", "level", "value", "observed", "chance",
                "se", "ci_low", "ci_high", "boot_low", "boot_high", "issues", "issues_used",
                "issues_left_out", "note"]


def _none(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def group_rows(f: Features, ft: Features, w: np.ndarray, draws: dict[str, np.ndarray],
               grouping: str, group: str, resamples: int, level: float,
               q: int | None = None) -> list[dict]:
    """Rows of the statistics table for one group of issues: every coefficient, its
    analytic interval and its bootstrap interval (``q``: the categories AC1 assumes).

    ``issues_used`` counts the issues a coefficient averages agreement over: for Fleiss'
    kappa those rated by every annotator, for the generalised Fleiss' kappa, alpha and
    AC1's observed agreement those with two or more ratings (AC1: with a rating)."""
    n_total = int(w.sum())
    complete = int(w[f.m == f.n_raters].sum())
    rows = []
    for name in (*STATISTICS, "fleiss_kappa_type"):
        est = estimate("fleiss_kappa", ft, w, level) if name == "fleiss_kappa_type" \
            else estimate(name, f, w, level, q)
        low, high, undefined = percentile_interval(draws.get(name, np.empty(0)), level)
        left_out = n_total - complete if name in ("fleiss_kappa", "fleiss_kappa_type") \
            else n_total - est.n
        note = est.note
        if est.defined and undefined:
            note = f"{undefined} of {resamples} bootstrap resamples not defined"
        rows.append({
            "grouping": grouping, "group": group, "statistic": name,
            "level": "type" if name == "fleiss_kappa_type" else "theme",
            "value": est.value, "observed": est.observed, "chance": est.chance,
            "se": est.se, "ci_low": est.low, "ci_high": est.high,
            "boot_low": _none(low) if est.defined else None,
            "boot_high": _none(high) if est.defined else None,
            "issues": n_total, "issues_used": est.n, "issues_left_out": int(left_out),
            "note": note,
        })
    return rows


def agreement_tables(codes: np.ndarray, scale: Scale, groupings: dict[str, pd.Series],
                     resamples: int, seed: int, level: float = 0.95,
                     orders: dict[str, Sequence[str]] | None = None,
                     names: dict[str, str] | None = None,
                     ac1_categories: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every coefficient for all issues and for each group of each grouping, and the
    agreement per theme; all bootstrap intervals come from the same resamples of issues.
    ``ac1_categories`` is the number of categories AC1 assumes (default: the scale's).

    ``groupings`` maps a grouping name (``type``, ``project``, ``year``) to one group
    label per issue; ``orders`` gives the display order of a grouping's groups. Returns
    the statistics table (long) and the per-theme table.
    """
    orders = orders or {}
    k = len(scale.categories)
    labels, group_names = [], []
    for grouping, values in groupings.items():
        index, order = group_index(values, orders.get(grouping, ()))
        labels.append(index)
        group_names.append((grouping, order))
    joint, parts = joint_patterns(codes, k, labels)
    f, w = joint.features, joint.weights
    ft = f.collapse(scale.type_index, len(scale.types))
    selections = [("all", "all issues", np.arange(len(w)))]
    for (grouping, order), part in zip(group_names, parts, strict=True):
        selections += [(grouping, g, np.flatnonzero(part == i)) for i, g in enumerate(order)]
    sub = {(g, n): (f.take(idx), ft.take(idx)) for g, n, idx in selections}
    sums = {key: HeadlineSums(*pair, ac1_categories) for key, pair in sub.items()}
    cat_columns = category_columns(f)
    draws: dict[tuple[str, str], dict[str, list[np.ndarray]]] = {}
    cat_draws: list[np.ndarray] = []
    if resamples > 0 and joint.n_issues >= 2:
        chunks = resample_weights(w, resamples, seed)
        for W in progress(chunks, desc="bootstrap", total=-(-resamples // 250)):
            for grouping, group, idx in selections:
                for name, value in sums[(grouping, group)](W[:, idx]).items():
                    draws.setdefault((grouping, group), {}).setdefault(name, []).append(value)
            cat_draws.append(category_from_sums(W @ cat_columns, f.n_raters)["value"])
    rows: list[dict] = []
    for grouping, group, idx in selections:
        d = {n: np.concatenate(v) for n, v in draws.get((grouping, group), {}).items()}
        rows += group_rows(*sub[(grouping, group)], w[idx], d, grouping, group, resamples,
                           level, ac1_categories)
    statistics = pd.DataFrame(rows, columns=STAT_COLUMNS)
    cats = np.concatenate(cat_draws) if cat_draws else np.empty((0, k))
    return statistics, category_table(f, w, scale, cats, level, names)


def category_table(f: Features, w: np.ndarray, scale: Scale, draws: np.ndarray,
                   level: float = 0.95, names: dict[str, str] | None = None) -> pd.DataFrame:
    """Agreement per theme: Fleiss' per-category kappa (bootstrap interval), the share of
    ratings, and the specific agreement (agreeing pairs among pairs that involve it)."""
    k = len(scale.categories)
    point = category_kappa_arrays(w, f)
    low, high, _ = percentile_interval(draws, level)
    low, high = np.broadcast_to(low, (k,)), np.broadcast_to(high, (k,))
    names = names or {}
    rows = []
    for j, code in enumerate(scale.categories):
        value = point["value"][0, j]
        defined = bool(np.isfinite(value))
        rows.append({
            "code": code, "type": scale.types[scale.type_index[j]],
            "name": names.get(code, ""), "ratings": int(point["ratings"][0, j]),
            "share": float(point["share"][0, j]),
            "kappa": float(value) if defined else None,
            "boot_low": _none(low[j]) if defined else None,
            "boot_high": _none(high[j]) if defined else None,
            "specific_agreement": _none(point["specific"][0, j]),
            "note": "" if defined else "not defined: no rating or every rating in this "
                                       "category",
        })
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- pairs


def cross_table(x: np.ndarray, y: np.ndarray, n_categories: int) -> np.ndarray:
    """K x K table of two raters' labels on the issues both rated."""
    ok = (x >= 0) & (y >= 0)
    if not ok.all():
        x, y = x[ok], y[ok]
    flat = x.astype(np.int32) * n_categories + y
    return np.bincount(flat, minlength=n_categories ** 2).reshape(n_categories, n_categories)


def cohen(table: np.ndarray, level: float = 0.95) -> dict:
    """Cohen's kappa of a K x K table via statsmodels, with its asymptotic (normal) interval
    from statsmodels' standard error."""
    n = int(table.sum())
    if n == 0:
        return {"n": 0, "agreement": None, "kappa": None, "ci_low": None, "ci_high": None,
                "note": "not defined: no issue rated by both"}
    po = float(np.trace(table) / n)
    pe = float((table.sum(0) @ table.sum(1)) / n ** 2)
    if 1 - pe < _EPS:
        return {"n": n, "agreement": po, "kappa": None, "ci_low": None, "ci_high": None,
                "note": "not defined: all labels in one category"}
    res = cohens_kappa(table)
    z = stats.norm.ppf(0.5 + level / 2)
    kappa, se = float(res.kappa), float(res.std_kappa)
    return {"n": n, "agreement": po, "kappa": kappa, "ci_low": kappa - z * se,
            "ci_high": kappa + z * se, "note": ""}


def pairwise_cohen(ratings: Ratings, level: float = 0.95) -> pd.DataFrame:
    """Cohen's kappa between every pair of annotators (both orders, for a heatmap)."""
    rows = []
    k = ratings.n_categories
    for a, name_a in enumerate(ratings.annotators):
        for b, name_b in enumerate(ratings.annotators):
            if a >= b:
                continue
            res = cohen(cross_table(ratings.codes[:, a], ratings.codes[:, b], k), level)
            rows.append({"annotator_a": name_a, "annotator_b": name_b, **res})
            rows.append({"annotator_a": name_b, "annotator_b": name_a, **res})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = {n: i for i, n in enumerate(ratings.annotators)}
    return frame.sort_values(["annotator_a", "annotator_b"],
                             key=lambda s: s.map(order)).reset_index(drop=True)


def versus_reference(ratings: Ratings, reference: np.ndarray, level: float = 0.95) -> pd.DataFrame:
    """Each annotator against the final label: raw agreement and Cohen's kappa."""
    rows = []
    for a, name in enumerate(ratings.annotators):
        res = cohen(cross_table(ratings.codes[:, a], reference, ratings.n_categories), level)
        rows.append({"annotator": name, **res})
    return pd.DataFrame(rows)


def confusions(codes: np.ndarray, scale: Scale, top: int | None = None) -> pd.DataFrame:
    """Pairs of themes that annotators mix up: disagreeing rater pairs on the same issue.

    The off-diagonal of the coincidence table, counted once per unordered pair; also the
    number of issues on which both labels were given.
    """
    k = len(scale.categories)
    pats, _ = label_patterns(codes, k)
    c, w = pats.features.counts, pats.weights
    pairs = c.T @ (c * w[:, None])
    both = (c > 0).astype(float).T @ ((c > 0) * w[:, None])
    total = np.triu(pairs, 1).sum()
    rows = []
    for i in range(k):
        for j in range(i + 1, k):
            if pairs[i, j] > 0:
                rows.append({
                    "label_a": scale.categories[i], "label_b": scale.categories[j],
                    "type_a": scale.types[scale.type_index[i]],
                    "type_b": scale.types[scale.type_index[j]],
                    "rater_pairs": int(pairs[i, j]), "issues": int(both[i, j]),
                    "share_of_disagreements": float(pairs[i, j] / total),
                })
    frame = pd.DataFrame(rows, columns=["label_a", "label_b", "type_a", "type_b",
                                        "rater_pairs", "issues", "share_of_disagreements"])
    frame = frame.sort_values(["rater_pairs", "label_a", "label_b"],
                              ascending=[False, True, True], kind="mergesort")
    frame = frame.reset_index(drop=True)
    return frame.head(top) if top else frame


# --------------------------------------------------------------------------- grouping


def type_columns(codes: np.ndarray, type_index: np.ndarray) -> np.ndarray:
    """The ratings collapsed onto issue types, one contiguous row per annotator
    (annotators x issues, int8; ``MISSING`` stays missing)."""
    lookup = np.append(np.asarray(type_index), MISSING).astype(np.int8)
    return lookup[np.ascontiguousarray(np.asarray(codes).T)]


def type_range(tcols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest type index given to each issue (-1 highest: no rating)."""
    lo = np.where(tcols >= 0, tcols, np.iinfo(np.int8).max).min(axis=0)
    return lo, tcols.max(axis=0)


def grouping_candidates(ratings: Ratings, scale: Scale, final_type: pd.Series,
                        types: Sequence[str]) -> pd.DataFrame:
    """Fleiss' kappa per issue type under several ways of deciding an issue's type.

    The paper groups by type without saying how. Each candidate is a rule for the type
    of an issue; the rule that reproduces the paper's three values is the paper's
    grouping. Every candidate except the first annotator's conditions on the ratings it
    is then used to judge.
    """
    codes = ratings.codes
    tcols = type_columns(codes, scale.type_index)
    lo, hi = type_range(tcols)
    type_pos = {t: i for i, t in enumerate(scale.types)}
    index, names = group_index(final_type)
    lookup = np.array([type_pos.get(nm, -1) for nm in names] + [-1], dtype=np.int64)
    candidates = {
        "final label": ("the type of the final label (the paper's Final_Label)",
                        lookup[index]),
        "first annotator": ("the type of annotator 1's label", tcols[0].astype(np.int64)),
        "unanimous type": ("issues whose annotators all give the same type; others left out",
                           np.where((lo == hi) & (hi >= 0), hi, -1).astype(np.int64)),
    }
    rows = []
    k = ratings.n_categories
    for name, (rule, idx) in candidates.items():
        both = kappas_by_group(codes, np.where(idx >= 0, idx, len(scale.types)),
                               len(scale.types) + 1, k)
        for t in types:
            row = both["complete"].iloc[type_pos[t]]
            gen = both["generalised"].iloc[type_pos[t]]
            rows.append({"grouping": name, "rule": rule, "type": t, "issues": int(row["n"]),
                         "observed": float(row["observed"]), "chance": float(row["chance"]),
                         "kappa": _none(row["kappa"]),
                         "issues_generalised": int(gen["n"]),
                         "kappa_generalised": _none(gen["kappa"])})
    return pd.DataFrame(rows)
