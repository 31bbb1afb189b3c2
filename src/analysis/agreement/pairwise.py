"""Agreement between pairs of raters: Cohen's kappa between every two annotators and
between each annotator and the final label, and the pairs of themes annotators mix up.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa

from analysis.agreement.estimators import EPS
from analysis.agreement.ratings import Ratings, Scale, label_patterns


def cross_table(x: np.ndarray, y: np.ndarray, n_categories: int) -> np.ndarray:
    """K x K table of two raters' labels on the issues both rated."""
    ok = (x >= 0) & (y >= 0)
    if not ok.all():
        x, y = x[ok], y[ok]
    flat = x.astype(np.int32) * n_categories + y
    return np.bincount(flat, minlength=n_categories ** 2).reshape(n_categories, n_categories)


def cohen(table: np.ndarray, confidence_level: float = 0.95) -> dict:
    """Cohen's kappa of a K x K table via statsmodels, with its asymptotic (normal) interval
    from statsmodels' standard error."""
    n = int(table.sum())
    if n == 0:
        return {"n": 0, "agreement": None, "kappa": None, "ci_low": None, "ci_high": None,
                "note": "not defined: no issue rated by both"}
    po = float(np.trace(table) / n)
    pe = float((table.sum(0) @ table.sum(1)) / n ** 2)
    if 1 - pe < EPS:
        return {"n": n, "agreement": po, "kappa": None, "ci_low": None, "ci_high": None,
                "note": "not defined: all labels in one category"}
    res = cohens_kappa(table)
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    kappa, se = float(res.kappa), float(res.std_kappa)
    return {"n": n, "agreement": po, "kappa": kappa, "ci_low": kappa - z * se,
            "ci_high": kappa + z * se, "note": ""}


def pairwise_cohen(ratings: Ratings, confidence_level: float = 0.95) -> pd.DataFrame:
    """Cohen's kappa between every pair of annotators (both orders, for a heatmap)."""
    rows = []
    k = ratings.n_categories
    for a, name_a in enumerate(ratings.annotators):
        for b, name_b in enumerate(ratings.annotators):
            if a >= b:
                continue
            res = cohen(cross_table(ratings.codes[:, a], ratings.codes[:, b], k), confidence_level)
            rows.append({"annotator_a": name_a, "annotator_b": name_b, **res})
            rows.append({"annotator_a": name_b, "annotator_b": name_a, **res})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    order = {n: i for i, n in enumerate(ratings.annotators)}
    return frame.sort_values(["annotator_a", "annotator_b"],
                             key=lambda s: s.map(order)).reset_index(drop=True)


def versus_reference(ratings: Ratings, reference: np.ndarray,
                     confidence_level: float = 0.95) -> pd.DataFrame:
    """Each annotator against the final label: raw agreement and Cohen's kappa."""
    rows = []
    for a, name in enumerate(ratings.annotators):
        res = cohen(cross_table(ratings.codes[:, a], reference, ratings.n_categories),
                    confidence_level)
        rows.append({"annotator": name, **res})
    return pd.DataFrame(rows)


def confusions(codes: np.ndarray, scale: Scale) -> pd.DataFrame:
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
    return frame.sort_values(["rater_pairs", "label_a", "label_b"], ascending=[False, True, True],
                             kind="mergesort").reset_index(drop=True)
