"""The stage's agreement tables: every coefficient per group with its analytic and
bootstrap intervals (:func:`agreement_tables`), the agreement per theme
(:func:`category_table`) and Fleiss' kappa per issue type under candidate groupings
(:func:`grouping_candidates`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.agreement.bootstrap import percentile_interval, progress, resample_weights
from analysis.agreement.estimators import (
    STATISTICS,
    HeadlineSums,
    category_columns,
    category_from_sums,
    category_kappa_arrays,
    estimate,
    finite_or_none,
    kappas_by_group,
)
from analysis.agreement.ratings import (
    Features,
    Patterns,
    Ratings,
    Scale,
    group_index,
    label_patterns,
    type_columns,
    type_range,
)


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


def group_rows(f: Features, ft: Features, w: np.ndarray, draws: dict[str, np.ndarray],
               grouping: str, group: str, bootstrap_resamples: int, confidence_level: float,
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
        est = estimate("fleiss_kappa", ft, w, confidence_level) if name == "fleiss_kappa_type" \
            else estimate(name, f, w, confidence_level, q)
        low, high, undefined = percentile_interval(draws.get(name, np.empty(0)), confidence_level)
        left_out = n_total - complete if name in ("fleiss_kappa", "fleiss_kappa_type") \
            else n_total - est.n
        note = est.note
        if est.defined and undefined:
            note = f"{undefined} of {bootstrap_resamples} bootstrap resamples not defined"
        rows.append({
            "grouping": grouping, "group": group, "statistic": name,
            "level": "type" if name == "fleiss_kappa_type" else "theme",
            "value": est.value, "observed": est.observed, "chance": est.chance,
            "se": est.se, "ci_low": est.low, "ci_high": est.high,
            "boot_low": finite_or_none(low) if est.defined else None,
            "boot_high": finite_or_none(high) if est.defined else None,
            "issues": n_total, "issues_used": est.n, "issues_left_out": int(left_out),
            "note": note,
        })
    return rows


def agreement_tables(codes: np.ndarray, scale: Scale, groupings: dict[str, pd.Series],
                     bootstrap_resamples: int, seed: int, confidence_level: float = 0.95,
                     orders: dict[str, Sequence[str]] | None = None,
                     names: dict[str, str] | None = None,
                     ac1_categories: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The statistics table (every coefficient for all issues and for each group of each
    grouping, long) and the per-theme table; all bootstrap intervals come from the same
    resamples of issues. ``groupings`` maps a grouping name (``type``, ``project``,
    ``year``) to one group label per issue, ``orders`` a grouping to the display order of
    its groups; ``ac1_categories``: the categories AC1 assumes (default: the scale's)."""
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
    if bootstrap_resamples > 0 and joint.n_issues >= 2:
        chunks = resample_weights(w, bootstrap_resamples, seed)
        for W in progress(chunks, desc="bootstrap", total=-(-bootstrap_resamples // 250)):
            for grouping, group, idx in selections:
                for name, value in sums[(grouping, group)](W[:, idx]).items():
                    draws.setdefault((grouping, group), {}).setdefault(name, []).append(value)
            cat_draws.append(category_from_sums(W @ cat_columns, f.n_raters)["value"])
    rows: list[dict] = []
    for grouping, group, idx in selections:
        d = {n: np.concatenate(v) for n, v in draws.get((grouping, group), {}).items()}
        rows += group_rows(*sub[(grouping, group)], w[idx], d, grouping, group, bootstrap_resamples,
                           confidence_level, ac1_categories)
    statistics = pd.DataFrame(rows, columns=STAT_COLUMNS)
    cats = np.concatenate(cat_draws) if cat_draws else np.empty((0, k))
    return statistics, category_table(f, w, scale, cats, confidence_level, names)


def category_table(f: Features, w: np.ndarray, scale: Scale, draws: np.ndarray,
                   confidence_level: float = 0.95, names: dict[str, str] | None = None
                   ) -> pd.DataFrame:
    """Agreement per theme: Fleiss' per-category kappa (bootstrap interval), the share of
    ratings, and the specific agreement (agreeing pairs among pairs that involve it)."""
    k = len(scale.categories)
    point = category_kappa_arrays(w, f)
    low, high, _ = percentile_interval(draws, confidence_level)
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
            "boot_low": finite_or_none(low[j]) if defined else None,
            "boot_high": finite_or_none(high[j]) if defined else None,
            "specific_agreement": finite_or_none(point["specific"][0, j]),
            "note": "" if defined else "not defined: no rating or every rating in this "
                                       "category",
        })
    return pd.DataFrame(rows)



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
        full, gen = both["complete"], both["generalised"]
        for t in types:
            i = type_pos[t]
            rows.append({"grouping": name, "rule": rule, "type": t,
                         "issues": int(full["n"][i]), "observed": float(full["observed"][i]),
                         "chance": float(full["chance"][i]),
                         "kappa": finite_or_none(full["value"][i]),
                         "issues_generalised": int(gen["n"][i]),
                         "kappa_generalised": finite_or_none(gen["value"][i])})
    return pd.DataFrame(rows)
