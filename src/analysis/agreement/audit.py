"""An audit of the annotation process: do the label columns behave like independent ratings?

The release has one label column per annotator and a final label; the paper says the
final label came from group discussion or a majority vote. Independent annotators who
err at their own rates leave recognisable traces, which this module measures and tests
without drawing conclusions: how often each annotator's label equals the final label
(:func:`agreement_with_final`), how many annotators dissent on each issue against
independent errors (:func:`dissent_distribution`, :func:`dissent_tests`), how often two
dissent together (:func:`co_dissent`), where dissenting labels go
(:func:`dissent_spread`), and how much the per-type kappas depend on each label column
(:func:`leave_one_out`, :func:`column_sensitivity`).

The independence models are listed with the fair one first: the final label is a strict
majority of the ratings, so at most ``(m - 1) // 2`` of ``m`` annotators can dissent on
an issue, and only the model conditioned on that (``expected_by_project_majority``) can
fit; the unconditional ones follow for comparison.

"Dissent" here means a rating that differs from the final label; missing ratings are
neither agreement nor dissent.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from analysis.agreement.estimators import finite_or_none, kappas_by_group
from analysis.agreement.ratings import (
    MISSING,
    Ratings,
    Scale,
    group_index,
    type_columns,
    type_range,
)


def dissent_matrix(codes: np.ndarray, final: np.ndarray) -> np.ndarray:
    """Boolean issues x annotators: the annotator rated and differs from the final label."""
    return (codes >= 0) & (codes != np.asarray(final)[:, None])


def column_sums(matrix: np.ndarray, strata: np.ndarray, n_strata: int) -> np.ndarray:
    """Strata x columns: how many true values each column has within each stratum (with few
    columns, from one ``bincount`` of the rows packed into integers)."""
    matrix = np.asarray(matrix, dtype=bool)
    r = matrix.shape[1]
    strata = np.asarray(strata, dtype=np.int64)
    if r > 16:
        return np.column_stack([np.bincount(strata, weights=col, minlength=n_strata)
                                for col in matrix.T]).astype(np.int64)
    key = strata << r
    for a in range(r):
        key |= matrix[:, a].astype(np.int64) << a
    counts = np.bincount(key, minlength=n_strata << r).reshape(n_strata, 1 << r)
    bits = (np.arange(1 << r)[:, None] >> np.arange(r)) & 1
    return counts @ bits


def agreement_with_final(ratings: Ratings, final: np.ndarray, strata: pd.Series,
                         order: Sequence[str] = ()) -> pd.DataFrame:
    """Share of each annotator's labels that equal the final label, overall and per stratum
    (e.g. per project). Long format: stratum, annotator, rated, equal, share, and the
    stratum's issues with at least one rating (``issues``)."""
    codes = ratings.codes
    rated = codes >= 0
    equal = rated & (codes == np.asarray(final)[:, None])
    index, names = group_index(strata, order)
    n_rated = column_sums(rated, index, len(names))
    n_equal = column_sums(equal, index, len(names))
    n_issues = column_sums(rated.any(axis=1)[:, None], index, len(names))[:, 0]
    n_rated = np.vstack([n_rated.sum(axis=0), n_rated])
    n_equal = np.vstack([n_equal.sum(axis=0), n_equal])
    n_issues = np.concatenate([[n_issues.sum()], n_issues])
    rows = []
    for i, g in enumerate(["all", *names]):
        for a, name in enumerate(ratings.annotators):
            rows.append({"stratum": g, "annotator": name, "rated": int(n_rated[i, a]),
                         "equal": int(n_equal[i, a]),
                         "share": float(n_equal[i, a] / n_rated[i, a]) if n_rated[i, a]
                         else None, "issues": int(n_issues[i])})
    return pd.DataFrame(rows)


def poisson_binomial(p: Sequence[float]) -> np.ndarray:
    """Distribution of the number of successes of independent trials with probabilities p."""
    pmf = np.array([1.0])
    for q in p:
        pmf = np.convolve(pmf, [1.0 - q, q])
    return pmf


def max_dissent(m: int) -> int:
    """Most dissenters that still leave the final label a strict majority of m ratings."""
    return max((m - 1) // 2, 0)


def strata_masks(strata: np.ndarray, rated: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """Distinct (stratum, which annotators rated) combinations and how many issues have each.

    Rows are packed into one integer first, so millions of issues cost one sort."""
    r = rated.shape[1]
    if r > 40:
        uniq, counts = np.unique(np.column_stack([strata, rated]), axis=0, return_counts=True)
        return uniq[:, 0], uniq[:, 1:].astype(bool), counts
    key = np.asarray(strata, dtype=np.int64) << r
    for a in range(r):
        key |= rated[:, a].astype(np.int64) << a
    keys, counts = np.unique(key, return_counts=True)
    masks = ((keys[:, None] >> np.arange(r)) & 1).astype(bool)
    return keys >> r, masks, counts


def stratum_rates(dissent: np.ndarray, rated: np.ndarray, strata: np.ndarray) -> np.ndarray:
    """Strata x annotators: each annotator's dissent rate within each stratum."""
    n = int(strata.max()) + 1 if strata.size else 0
    d, m = column_sums(dissent, strata, n), column_sums(rated, strata, n)
    return np.divide(d, m, out=np.zeros(d.shape), where=m > 0)


def expected_dissent(codes: np.ndarray, final: np.ndarray, strata: np.ndarray,
                     given_majority: bool = False) -> np.ndarray:
    """Expected number of issues with k dissenters (k = 0..R) under independent errors.

    Each annotator's dissent rate is estimated per stratum; issues are further split by
    which annotators rated them, so missing ratings are respected. With
    ``given_majority`` the distribution of each issue is conditioned on the final label
    being a strict majority of its ratings (k <= (m - 1) // 2), as it is on every issue
    when the final label is the majority vote.
    """
    r = codes.shape[1]
    rated = codes >= 0
    strata, _ = group_index(strata)
    rates = stratum_rates(dissent_matrix(codes, final), rated, strata)
    expected = np.zeros(r + 1)
    for s, mask, count in zip(*strata_masks(strata, rated), strict=True):
        pmf = poisson_binomial(rates[s][mask])
        if given_majority:
            head = pmf[: max_dissent(int(mask.sum())) + 1]
            pmf = head / head.sum() if head.sum() > 0 else head
        expected[: len(pmf)] += count * pmf
    return expected


# The independence models, the one that can fit first (see the module docstring):
# expected-count column -> the model in words.
MODELS = {
    "expected_by_project_majority": "independent errors, rates per project, final label a "
                                    "majority",
    "expected_by_project": "independent errors, rates per project",
    "expected_pooled": "independent errors, pooled rates",
}


def dissent_distribution(codes: np.ndarray, final: np.ndarray,
                         strata: pd.Series) -> pd.DataFrame:
    """Observed issues per number of dissenters next to three independence models (in the
    order of :data:`MODELS`): per-stratum rates given the final label is the majority,
    per-stratum rates, and pooled rates."""
    r = codes.shape[1]
    k = dissent_matrix(codes, final).sum(axis=1)
    labels, _ = group_index(strata)  # integer strata: no string work per issue
    one = np.zeros(len(k), dtype=int)
    return pd.DataFrame({
        "dissenters": np.arange(r + 1),
        "observed": np.bincount(k, minlength=r + 1)[: r + 1],
        "expected_by_project_majority": expected_dissent(codes, final, labels,
                                                         given_majority=True),
        "expected_by_project": expected_dissent(codes, final, labels),
        "expected_pooled": expected_dissent(codes, final, one),
    })


def merge_small_bins(observed: np.ndarray, expected: np.ndarray,
                     minimum: float = 5.0) -> tuple[np.ndarray, np.ndarray]:
    """Pool the tail bins from the top until every expected count is at least ``minimum``
    (the usual condition for the chi-square approximation), then from the bottom."""
    obs, exp = list(map(float, observed)), list(map(float, expected))
    while len(exp) > 1 and exp[-1] < minimum:
        last_exp, last_obs = exp.pop(), obs.pop()
        exp[-1] += last_exp
        obs[-1] += last_obs
    while len(exp) > 1 and exp[0] < minimum:
        first_exp, first_obs = exp.pop(0), obs.pop(0)
        exp[0] += first_exp
        obs[0] += first_obs
    return np.array(obs), np.array(exp)


def goodness_of_fit(observed: np.ndarray, expected: np.ndarray) -> dict:
    """Pearson chi-square of observed against expected counts (tail bins pooled).

    The rates behind ``expected`` were estimated from the same data, so the p-value is
    approximate (the degrees of freedom are not reduced for them)."""
    obs, exp = merge_small_bins(np.asarray(observed), np.asarray(expected))
    if len(exp) < 2:
        return {"chi2": None, "dof": 0, "p_value": None, "bins": len(exp)}
    exp = exp * obs.sum() / exp.sum()  # equal totals, as scipy requires
    res = stats.chisquare(obs, exp)
    return {"chi2": float(res.statistic), "dof": len(exp) - 1, "p_value": float(res.pvalue),
            "bins": len(exp)}


def dispersion(counts: np.ndarray) -> tuple[float, float]:
    """Mean and variance of a distribution given as counts per value 0, 1, 2, ..."""
    counts = np.asarray(counts, dtype=float)
    k = np.arange(len(counts))
    n = counts.sum()
    mean = float(counts @ k / n)
    return mean, float(counts @ (k - mean) ** 2 / n)


def dissent_tests(dist: pd.DataFrame) -> pd.DataFrame:
    """One row per independence model (in the order of :data:`MODELS`, the one that can fit
    first): chi-square test, variance ratio, zero-dissent share."""
    obs = dist["observed"].to_numpy()
    _, var_obs = dispersion(obs)
    top = int(np.flatnonzero(obs).max()) if obs.any() else 0
    rows = []
    for col, model in MODELS.items():
        exp = dist[col].to_numpy()
        _, var_exp = dispersion(exp)
        fit = goodness_of_fit(obs, exp)
        rows.append({
            "model": model, "column": col, **fit,
            "variance_observed": var_obs, "variance_expected": var_exp,
            "variance_ratio": var_obs / var_exp if var_exp > 0 else None,
            "no_dissent_observed": int(obs[0]), "no_dissent_expected": float(exp[0]),
            "max_observed": top,
            "expected_above_max_observed": float(exp[top + 1:].sum()),
        })
    return pd.DataFrame(rows)


def co_dissent(ratings: Ratings, final: np.ndarray, strata: pd.Series) -> pd.DataFrame:
    """Issues on which two annotators both dissent, against two independence models with
    rates per stratum: unconditional, and given that the final label is a strict majority
    (which caps the number of dissenters on an issue)."""
    d = dissent_matrix(ratings.codes, final)
    rated = ratings.codes >= 0
    labels, _ = group_index(strata)
    rates = stratum_rates(d, rated, labels)
    r = d.shape[1]
    cols = np.ascontiguousarray(d.T)
    both_exp = np.zeros((r, r))
    both_maj = np.zeros((r, r))
    for s, mask, count in zip(*strata_masks(labels, rated), strict=True):
        idx = np.flatnonzero(mask)
        top = max_dissent(len(idx))
        p_all = poisson_binomial(rates[s][idx])[: top + 1].sum()
        for i, a in enumerate(idx):
            for b in idx[i + 1:]:
                joint = count * rates[s][a] * rates[s][b]
                both_exp[a, b] += joint
                if top >= 2 and p_all > 0:
                    rest = poisson_binomial(rates[s][[x for x in idx if x not in (a, b)]])
                    both_maj[a, b] += joint * rest[: top - 1].sum() / p_all
    rows = []
    names = ratings.annotators
    for a in range(r):
        for b in range(a + 1, r):
            obs = int(np.count_nonzero(cols[a] & cols[b]))
            exp, maj = both_exp[a, b], both_maj[a, b]
            rows.append({"annotator_a": names[a], "annotator_b": names[b],
                         "both_dissent": obs, "expected": float(exp),
                         "ratio": float(obs / exp) if exp > 0 else None,
                         "expected_majority": float(maj),
                         "ratio_majority": float(obs / maj) if maj > 0 else None})
    return pd.DataFrame(rows)


def dissent_targets(codes: np.ndarray, final: np.ndarray, n_categories: int) -> np.ndarray:
    """K x K counts: rows the final label, columns the dissenting label given instead."""
    d = dissent_matrix(codes, final)
    rows = np.broadcast_to(np.asarray(final)[:, None], codes.shape)[d].astype(np.int64)
    flat = rows * n_categories + codes[d]
    return np.bincount(flat, minlength=n_categories ** 2).reshape(n_categories, n_categories)


def normalised_entropy(counts: np.ndarray) -> float | None:
    """Shannon entropy of counts divided by its maximum (1 = perfectly even)."""
    counts = np.asarray(counts, dtype=float)
    if counts.size < 2 or counts.sum() == 0:
        return None
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum() / np.log(counts.size))


def dissent_spread(matrix: np.ndarray, scale: Scale,
                   names: dict[str, str] | None = None) -> pd.DataFrame:
    """For each final theme: where its dissenting labels go.

    Within the same issue type, the alternatives are the type's other themes; the table
    gives the share of dissent that stays within the type, the most frequent alternative
    and its share, the evenness (normalised entropy) over the alternatives, and a
    chi-square test of "every alternative equally likely"."""
    names = names or {}
    cats, tidx = scale.categories, scale.type_index
    rows = []
    for i, code in enumerate(cats):
        total = int(matrix[i].sum())
        same = np.flatnonzero((tidx == tidx[i]) & (np.arange(len(cats)) != i))
        alt = matrix[i, same]
        within = int(alt.sum())
        row = {"final_label": code, "type": scale.types[tidx[i]], "name": names.get(code, ""),
               "dissenting_labels": total, "within_type": within,
               "within_type_share": within / total if total else None,
               "alternatives": len(same), "top_alternative": None, "top_share": None,
               "even_share": 1 / len(same) if len(same) else None,
               "evenness": normalised_entropy(alt), "chi2": None, "p_value": None}
        if within:
            top = int(np.argmax(alt))
            row["top_alternative"] = cats[same[top]]
            row["top_share"] = float(alt[top] / within)
            if len(same) > 1:
                res = stats.chisquare(alt)
                row["chi2"], row["p_value"] = float(res.statistic), float(res.pvalue)
        rows.append(row)
    return pd.DataFrame(rows)


def spread_summary(spread: pd.DataFrame, min_labels: int = 100) -> dict:
    """Dissent-weighted evenness and how many themes reject "evenly spread" at 5 %, over
    the themes with at least ``min_labels`` dissenting labels within their type (the test
    is approximate for fewer); also the same count over every theme the table gives a
    p-value, so that a text can name both."""
    tested = spread[spread["p_value"].notna()]
    sel = tested[tested["within_type"] >= min_labels]
    out = {"min_labels": min_labels, "themes_with_p": int(len(tested)),
           "themes_with_p_uneven_5pct": int((tested["p_value"] < 0.05).sum())}
    if sel.empty:
        return {**out, "themes_tested": 0, "evenness_weighted": None, "themes_uneven_5pct": 0}
    w = sel["within_type"].to_numpy(float)
    return {
        **out,
        "themes_tested": int(len(sel)),
        "evenness_weighted": float((sel["evenness"].to_numpy(float) * w).sum() / w.sum()),
        "themes_uneven_5pct": int((sel["p_value"] < 0.05).sum()),
        "within_type_share": float(sel["within_type"].sum()
                                   / sel["dissenting_labels"].sum()),
    }


def type_disagreement(codes: np.ndarray, type_index: np.ndarray) -> int:
    """Issues on which the annotators do not all give the same issue type."""
    lo, hi = type_range(type_columns(codes, type_index))
    return int(((hi >= 0) & (lo != hi)).sum())


# --------------------------------------------------------------------------- sensitivity


def always_final(final_by_project: pd.DataFrame) -> pd.DataFrame:
    """(project, column) pairs where the column's label equals the final label on every
    report of the project it rated (from :func:`agreement_with_final`), with the number
    of reports."""
    f = final_by_project
    sel = f[(f["stratum"] != "all") & (f["rated"] > 0) & (f["equal"] == f["rated"])]
    return pd.DataFrame({"project": sel["stratum"].astype(str).to_numpy(),
                         "annotator": sel["annotator"].astype(str).to_numpy(),
                         "issues": sel["rated"].astype(int).to_numpy()})


def mask_cells(codes: np.ndarray, strata: pd.Series, annotators: Sequence[str],
               pairs: pd.DataFrame) -> np.ndarray:
    """A copy of ``codes`` with the ratings of each (project, annotator) pair of ``pairs``
    set missing."""
    out = np.array(codes, copy=True)
    col = {a: j for j, a in enumerate(annotators)}
    values = pd.Series(strata).astype(str).to_numpy()
    for project, annotator in zip(pairs["project"], pairs["annotator"], strict=True):
        out[values == project, col[annotator]] = MISSING
    return out


def kappa_rows(codes: np.ndarray, groups: np.ndarray, names: Sequence[str],
               n_categories: int) -> list[dict]:
    """Both Fleiss' kappa estimators per group (``groups``: index into ``names``) and over
    all issues, one row each: type, issues, kappa, issues_generalised, kappa_generalised
    (on all the label columns: the baseline of :func:`leave_one_out` and
    :func:`column_sensitivity`)."""
    both = kappas_by_group(codes, groups, len(names), n_categories, with_total=True)
    rows = []
    full, gen = both["complete"], both["generalised"]
    for i, name in enumerate([*names, "all issues"]):  # the last row: all issues
        rows.append({"type": name, "issues": int(full["n"][i]),
                     "kappa": finite_or_none(full["value"][i]),
                     "issues_generalised": int(gen["n"][i]),
                     "kappa_generalised": finite_or_none(gen["value"][i])})
    return rows


def leave_one_out(ratings: Ratings, groups: np.ndarray, names: Sequence[str],
                  baseline: list[dict]) -> pd.DataFrame:
    """Fleiss' kappa per group (the issue type of the final label) and over all issues,
    with all label columns (``baseline``, :func:`kappa_rows` of all the columns) and with
    each column left out in turn: how much each kappa depends on each column. Both
    estimators (complete rows and Gwet's generalised one); ``change`` is a kappa minus its
    value with all columns."""
    k = ratings.n_categories
    rows = []
    for j, left in [(None, "none"), *enumerate(ratings.annotators)]:
        codes = ratings.codes if j is None else np.delete(ratings.codes, j, axis=1)
        kappas = baseline if j is None else kappa_rows(codes, groups, names, k)
        rows += _changes({"left_out": left, "annotators": codes.shape[1]}, kappas, baseline)
    return pd.DataFrame(rows)


def column_sensitivity(ratings: Ratings, strata: pd.Series, groups: np.ndarray,
                       names: Sequence[str], pairs: pd.DataFrame,
                       baseline: list[dict]) -> pd.DataFrame:
    """Fleiss' kappa per group without the label columns that equal the final label on
    every report of a project (``pairs``, from :func:`always_final`), two ways:

    - ``all columns``: ``baseline`` (:func:`kappa_rows` of all the columns), the reference;
    - ``without in those projects``: the column's ratings set missing in those projects
      only (their issues then have one rating fewer, so the generalised estimator uses
      them and the complete-rows one drops them);
    - ``without everywhere``: the column(s) dropped from every project.

    Empty when no column equals the final label on every report of a project."""
    if pairs.empty:
        return pd.DataFrame(columns=["scenario", "columns", "type", "issues", "kappa",
                                     "issues_generalised", "kappa_generalised", "change",
                                     "change_generalised"])
    k = ratings.n_categories
    flagged = sorted(set(pairs["annotator"]), key=list(ratings.annotators).index)
    keep = [j for j, a in enumerate(ratings.annotators) if a not in set(flagged)]
    scenarios = [("all columns", "", baseline),
                 ("without in those projects", ", ".join(flagged),
                  kappa_rows(mask_cells(ratings.codes, strata, ratings.annotators, pairs),
                             groups, names, k)),
                 ("without everywhere", ", ".join(flagged),
                  kappa_rows(ratings.codes[:, keep], groups, names, k))]
    rows = []
    for scenario, columns, kappas in scenarios:
        rows += _changes({"scenario": scenario, "columns": columns}, kappas, baseline)
    return pd.DataFrame(rows)


def _changes(lead: dict, kappas: list[dict], baseline: list[dict]) -> list[dict]:
    """``kappas`` (:func:`kappa_rows`) after ``lead``, each with its changes from
    ``baseline``'s row of the same type (None where either is not defined)."""
    base = {r["type"]: r for r in baseline}

    def diff(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else a - b

    return [{**lead, **row, "change": diff(row["kappa"], base[row["type"]]["kappa"]),
             "change_generalised": diff(row["kappa_generalised"],
                                        base[row["type"]]["kappa_generalised"])}
            for row in kappas]


def top_confusions(confusions: pd.DataFrame) -> pd.DataFrame:
    """The pair of themes annotators confused most often (most disagreeing rater pairs,
    then by label): over all reports (``scope`` ``all``) and, for each issue type, among
    the pairs of two themes of that type (``scope`` the type). ``confusions`` is the
    confusion table (:func:`~analysis.agreement.pairwise.confusions`)."""
    cols = ["label_a", "label_b", "type_a", "type_b", "rater_pairs", "issues"]
    c = confusions.sort_values(["rater_pairs", "label_a", "label_b"],
                               ascending=[False, True, True], kind="mergesort")
    rows = [{"scope": "all", **c.iloc[0][cols].to_dict()}] if len(c) else []
    same = c[c["type_a"] == c["type_b"]]
    for kind in sorted(set(same["type_a"].astype(str))):
        rows.append({"scope": kind, **same[same["type_a"] == kind].iloc[0][cols].to_dict()})
    return pd.DataFrame(rows, columns=["scope", *cols])
