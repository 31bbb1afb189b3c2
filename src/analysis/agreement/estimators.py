"""The agreement coefficients from pattern sums: Fleiss' kappa (complete rows and Gwet's
generalised estimator), Krippendorff's alpha (nominal) and Gwet's AC1, with Gwet's
linearised standard errors and irrCAC's t intervals.

Each coefficient is a function of a few weighted sums over the label patterns
(:func:`analysis.agreement.ratings.label_patterns`): ``*_columns`` gives the per-pattern
terms, ``*_from_sums`` turns the sums into the coefficient, one row per set of pattern
weights, so a bootstrap is one matrix product (:class:`HeadlineSums`; AC1's and the
generalised kappa's sums, :func:`ac1_sums`, one per number of ratings). The same functions
give both Fleiss' kappas per group of issues (:func:`kappas_by_group`). The libraries
(statsmodels' ``fleiss_kappa``, ``krippendorff``, ``irrCAC``) are the oracle: the tests
check this code against them to 1e-9.

Degenerate input gives :class:`Estimate` with ``value=None`` and a note saying why
(:func:`why_undefined`: "not defined: ..."), never a crash or a silent NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from analysis.agreement.ratings import Features, label_patterns

# 1 - chance agreement below this counts as zero: the coefficient is not defined.
EPS = 1e-12
STATISTICS = ("fleiss_kappa", "fleiss_kappa_generalised", "krippendorff_alpha", "gwet_ac1")


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


def finite_or_none(x: float | None) -> float | None:
    """A table cell: the number as a float, or None when it is missing or not finite."""
    return None if x is None or not np.isfinite(x) else float(x)


def _as_weights(W: np.ndarray) -> np.ndarray:
    return np.atleast_2d(np.asarray(W, dtype=float))


def ratio_or_nan(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den`` is 0 (and no warning): a coefficient
    over no issues is not defined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


# --------------------------------------------------------------------------- sums

# Each coefficient is a function of a few weighted sums over patterns. ``*_columns`` gives
# the per-pattern terms (one column per sum); ``*_from_sums`` turns the sums, one row per
# set of weights, into the coefficient. A bootstrap multiplies the resampled weights by
# all columns of all coefficients in one matrix product (AC1's: one per number of ratings).


def fleiss_columns(f: Features) -> np.ndarray:
    """[complete, complete * (sumsq - r), complete * counts]: Fleiss' kappa's sums."""
    full = (f.m == f.n_raters).astype(float)
    return np.column_stack([full, full * (f.sumsq - f.n_raters), full[:, None] * f.counts])


def fleiss_from_sums(S: np.ndarray, r: int) -> dict[str, np.ndarray]:
    n, agree, totals = S[:, 0], S[:, 1], S[:, 2:]
    po = ratio_or_nan(agree, n * r * (r - 1))
    p = ratio_or_nan(totals, (n * r)[:, None])
    pe = (p ** 2).sum(axis=1)
    value = ratio_or_nan(po - pe, 1 - pe)
    value[(1 - pe < EPS) | (n < 2) | (r < 2)] = np.nan
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
    p = ratio_or_nan(t, n * r)
    kappa = 1 - ratio_or_nan(r * t - s, n * r * (r - 1) * p * (1 - p))
    kappa[(p <= 0) | (p >= 1) | (n < 2)] = np.nan
    specific = ratio_or_nan(s - t, t * (r - 1))
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
    po = ratio_or_nan(diag, n)
    pe = ratio_or_nan((nc ** 2).sum(axis=1) - n, n * (n - 1))
    value = ratio_or_nan(po - pe, 1 - pe)
    value[(1 - pe < EPS) | (units < 2)] = np.nan
    return {"value": value, "observed": po, "chance": pe, "n": units}


def alpha_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Krippendorff's alpha (nominal) from the coincidence diagonal, all ratings used.

    ``o_cc`` summed is ``sum_u (sumsq_u - m_u) / (m_u - 1)`` over pairable units
    (``m_u >= 2``); ``alpha = (Po - Pe) / (1 - Pe)`` with ``Po = sum o_cc / n`` and
    ``Pe = sum n_c (n_c - 1) / (n (n - 1))``.
    """
    return alpha_from_sums(_as_weights(W) @ alpha_columns(f))


RatingSlice = tuple[int, "slice | np.ndarray", np.ndarray]


def ac1_slices(f: Features) -> list[RatingSlice]:
    """The patterns by their number of ratings ``m`` (1 or more): ``m``, which patterns
    have it, and their [1, counts, sumsq - m] (whole numbers), the terms of
    :func:`ac1_sums`."""
    out: list[RatingSlice] = []
    for m in np.unique(f.m[f.m >= 1]).astype(int):
        at = np.flatnonzero(f.m == m)
        terms = np.column_stack([np.ones(len(at)), f.counts[at], f.sumsq[at] - m])
        out.append((int(m), slice(None) if len(at) == len(f.m) else at, terms))
    return out


def ac1_sums(W: np.ndarray, slices: list[RatingSlice], k: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gwet's AC1's (and the generalised Fleiss' kappa's) sums, one row per row of pattern
    weights ``W`` over ``k`` categories: the issues with a rating, their category shares
    summed, the issues with two or more ratings and their pairwise agreement summed.

    The weighted sums are taken per number of ratings ``m`` (:func:`ac1_slices`) over
    whole numbers, exact in any order, and the shares (``counts / m``) and pairwise
    agreements (``(sumsq - m) / (m (m - 1))``) divided out once per ``m``: the same
    fractions summed pattern by pattern moved a kappa by up to 1e-13, and made the
    generalised estimator differ from Fleiss' kappa in the 12th digit on complete data."""
    W = _as_weights(W)
    n1, pis = np.zeros(len(W)), np.zeros((len(W), k))
    n2, pas = np.zeros(len(W)), np.zeros(len(W))
    for m, at, terms in slices:
        S = W[:, at] @ terms
        n1 += S[:, 0]
        pis += S[:, 1:-1] / m
        if m >= 2:
            n2 += S[:, 0]
            pas += S[:, -1] * (1 / (m * (m - 1)))
    return n1, pis, n2, pas


def ac1_from_sums(sums: tuple[np.ndarray, ...], q: int) -> dict[str, np.ndarray]:
    """AC1 from :func:`ac1_sums`, assuming a scale of ``q`` categories."""
    n1, pis, n2, pas = sums
    pi = ratio_or_nan(pis, n1[:, None])
    pa = ratio_or_nan(pas, n2)
    pe = (pi * (1 - pi)).sum(axis=1) / (q - 1) if q > 1 else np.ones_like(n1)
    value = ratio_or_nan(pa - pe, 1 - pe)
    value[(q < 2) | (n2 < 2) | (1 - pe < EPS)] = np.nan
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
    return ac1_from_sums(ac1_sums(W, ac1_slices(f), f.n_categories), q)


def generalised_from_sums(sums: tuple[np.ndarray, ...]) -> dict[str, np.ndarray]:
    """Gwet's generalised Fleiss' kappa from :func:`ac1_sums` (the same sums as AC1:
    only the chance term differs)."""
    n1, pis, n2, pas = sums
    pi = ratio_or_nan(pis, n1[:, None])
    pa = ratio_or_nan(pas, n2)
    pe = (pi ** 2).sum(axis=1)
    value = ratio_or_nan(pa - pe, 1 - pe)
    value[(n2 < 2) | (1 - pe < EPS)] = np.nan
    return {"value": value, "observed": pa, "chance": pe, "n": n2, "rated": n1}


def generalised_fleiss_arrays(W: np.ndarray, f: Features) -> dict[str, np.ndarray]:
    """Gwet's generalised Fleiss' kappa (Handbook of Inter-Rater Reliability, ch. 2; what
    irrCAC's ``fleiss()`` computes), for data with missing ratings.

    Observed agreement ``pa`` averages each issue's pairwise agreement over the issues
    with two or more ratings (``n`` in the result); the category shares ``pi_k`` average
    each issue's share of category ``k`` over every issue with a rating (``rated``);
    chance agreement is ``sum_k pi_k^2``. On complete data it equals Fleiss' kappa.
    """
    return generalised_from_sums(ac1_sums(W, ac1_slices(f), f.n_categories))


ARRAYS = {"fleiss_kappa": fleiss_arrays, "fleiss_kappa_generalised": generalised_fleiss_arrays,
          "krippendorff_alpha": alpha_arrays, "gwet_ac1": ac1_arrays}


class HeadlineSums:
    """All headline coefficients of a group from one matrix product per set of weights
    (and one per number of ratings for AC1's sums, :func:`ac1_sums`).

    ``q`` is the number of categories AC1 assumes (default: the coded scale)."""

    def __init__(self, f: Features, ft: Features, q: int | None = None) -> None:
        blocks = [fleiss_columns(f), alpha_columns(f), fleiss_columns(ft)]
        self.columns = np.column_stack(blocks)
        self.edges = np.cumsum([0] + [b.shape[1] for b in blocks])
        self.slices = ac1_slices(f)
        self.r, self.k = f.n_raters, f.n_categories
        self.q = self.k if q is None else int(q)

    def __call__(self, W: np.ndarray) -> dict[str, np.ndarray]:
        S = _as_weights(W) @ self.columns
        part = [S[:, a:b] for a, b in zip(self.edges[:-1], self.edges[1:], strict=True)]
        sums = ac1_sums(W, self.slices, self.k)
        return {"fleiss_kappa": fleiss_from_sums(part[0], self.r)["value"],
                "fleiss_kappa_generalised": generalised_from_sums(sums)["value"],
                "krippendorff_alpha": alpha_from_sums(part[1])["value"],
                "gwet_ac1": ac1_from_sums(sums, self.q)["value"],
                "fleiss_kappa_type": fleiss_from_sums(part[2], self.r)["value"]}


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


# --------------------------------------------------------------------------- errors, intervals


def _t_interval(value: float, se: float, n: float, confidence_level: float) -> tuple[float, float]:
    """irrCAC's interval: Student t with n - 1 degrees of freedom, upper end capped at 1."""
    if n < 2 or not np.isfinite(se):
        return (np.nan, np.nan)
    low, high = stats.t.interval(confidence_level, df=n - 1, loc=value, scale=max(se, 1e-15))
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


def estimate(statistic: str, f: Features, w: np.ndarray, confidence_level: float = 0.95,
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
    low, high = _t_interval(value, se, rated, confidence_level)
    return Estimate(value, po, pe, int(round(n)), "", se, clean(low), clean(high))


# --------------------------------------------------------------------------- from codes


def _features_of(codes: np.ndarray, n_categories: int | None) -> tuple[Features, np.ndarray]:
    codes = np.asarray(codes)
    k = int(codes.max()) + 1 if n_categories is None else n_categories
    pats, _ = label_patterns(codes, max(k, 1))
    return pats.features, pats.weights


def fleiss_kappa(codes: np.ndarray, n_categories: int | None = None,
                 confidence_level: float = 0.95) -> Estimate:
    """Fleiss' kappa of integer-coded ratings (rows rated by every annotator only)."""
    return estimate("fleiss_kappa", *_features_of(codes, n_categories),
                    confidence_level=confidence_level)


def krippendorff_alpha(codes: np.ndarray, n_categories: int | None = None,
                       confidence_level: float = 0.95) -> Estimate:
    """Krippendorff's alpha (nominal) of integer-coded ratings (all ratings used)."""
    return estimate("krippendorff_alpha", *_features_of(codes, n_categories),
                    confidence_level=confidence_level)


def gwet_ac1(codes: np.ndarray, n_categories: int | None = None,
             confidence_level: float = 0.95, assumed_categories: int | None = None) -> Estimate:
    """Gwet's AC1 of integer-coded ratings on a scale of ``n_categories`` categories,
    assuming ``assumed_categories`` (default ``n_categories``) in its chance term."""
    return estimate("gwet_ac1", *_features_of(codes, n_categories),
                    confidence_level=confidence_level, q=assumed_categories)


def generalised_fleiss_kappa(codes: np.ndarray, n_categories: int | None = None,
                             confidence_level: float = 0.95) -> Estimate:
    """Gwet's generalised Fleiss' kappa of integer-coded ratings: every issue with two or
    more ratings (see :func:`generalised_fleiss_arrays`)."""
    return estimate("fleiss_kappa_generalised", *_features_of(codes, n_categories),
                    confidence_level=confidence_level)


def kappas_by_group(codes: np.ndarray, groups: np.ndarray, n_groups: int,
                    n_categories: int, with_total: bool = False
                    ) -> dict[str, dict[str, np.ndarray]]:
    """Both Fleiss' kappa estimators per group of issues (``groups``: each issue's group,
    0 to ``n_groups - 1``), from one row of pattern weights a group: ``complete``
    (:func:`fleiss_arrays`) and ``generalised`` (:func:`generalised_fleiss_arrays`). With
    ``with_total`` a last row gives all the issues of the groups together."""
    patterns, inverse = label_patterns(np.asarray(codes), max(n_categories, 1))
    n_patterns = len(patterns.weights)
    cells = np.asarray(groups, dtype=np.int64) * n_patterns + inverse
    weights = np.bincount(cells, minlength=n_groups * n_patterns).astype(float)
    weights = weights.reshape(n_groups, n_patterns)
    if with_total:
        weights = np.vstack([weights, weights.sum(axis=0)])
    return {"complete": fleiss_arrays(weights, patterns.features),
            "generalised": generalised_fleiss_arrays(weights, patterns.features)}
