"""Fleiss' kappa per group straight from the codes: the headline kappas on any number of
issues.

Both Fleiss' kappa estimators (complete rows, and Gwet's generalised one) per group from
a few ``bincount`` calls over the codes: the sum of squared category counts of an issue is
``ratings + 2 * agreeing rater pairs``, so no issue x category table and no pattern table
is built. The tests check it against the pattern-based estimators
(:mod:`analysis.agreement.estimators`) and statsmodels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.agreement.estimators import EPS, ratio_or_nan


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
    generalised estimator
    (:func:`analysis.agreement.estimators.generalised_fleiss_arrays`) over the issues with
    two or more ratings. Each frame: n (issues whose agreement it averages), observed, chance,
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
    po = ratio_or_nan(2 * agree[r], n_full * r * (r - 1))
    pe = (ratio_or_nan(totals[r], (n_full * r)[:, None]) ** 2).sum(axis=1)
    kappa = ratio_or_nan(po - pe, 1 - pe)
    kappa[(1 - pe < EPS) | (n_full < 2) | (r < 2)] = np.nan
    out["complete"] = pd.DataFrame({"n": n_full.astype(np.int64), "observed": po,
                                    "chance": pe, "kappa": kappa})
    ms = np.arange(r + 1, dtype=float)
    n_two, n_one = issues[2:].sum(axis=0), issues[1:].sum(axis=0)
    pair_share = (agree[2:] * (2 / (ms[2:] * (ms[2:] - 1)))[:, None]).sum(axis=0)
    pa = ratio_or_nan(pair_share, n_two)
    shares = (totals[1:] / ms[1:, None, None]).sum(axis=0)
    pe = (ratio_or_nan(shares, n_one[:, None]) ** 2).sum(axis=1)
    kappa = ratio_or_nan(pa - pe, 1 - pe)
    kappa[(1 - pe < EPS) | (n_two < 2)] = np.nan
    out["generalised"] = pd.DataFrame({"n": n_two.astype(np.int64),
                                       "rated": n_one.astype(np.int64), "observed": pa,
                                       "chance": pe, "kappa": kappa})
    return out


def fleiss_by_group(codes: np.ndarray, groups: np.ndarray, n_groups: int,
                    n_categories: int) -> pd.DataFrame:
    """Fleiss' kappa per group on the issues rated by every annotator (the complete-rows
    estimator of :func:`kappas_by_group`)."""
    return kappas_by_group(codes, groups, n_groups, n_categories)["complete"]
