"""Fleiss' kappa in the steps of Fleiss (1971), as the agreement notebook shows them.

The paper's kappa of one issue type, step by step (each function is one step, and the
notebook shows each one's result):

1. :func:`rating_matrix`: the issues of the type, one row per issue and one column per
   annotator, holding the label (theme code) the annotator gave, empty where none.
2. :func:`complete_rows`: the issues every annotator rated; the paper's kappas are taken
   on these (Fleiss' kappa needs the same number of ratings per issue).
3. :func:`category_counts`: ``n_ij``, how many annotators put issue ``i`` in category
   ``j``.
4. :func:`issue_agreement`: ``P_i = (sum_j n_ij^2 - n) / (n (n - 1))``, the share of
   annotator pairs that agree on issue ``i`` (``n`` ratings per issue).
5. :func:`category_shares`: ``p_j = sum_i n_ij / (N n)``, the share of all ratings in
   category ``j`` (``N`` issues).
6. :func:`chance_agreement`: ``P_e = sum_j p_j^2``, the agreement expected by chance.
7. :func:`kappa`: ``(P_bar - P_e) / (1 - P_e)``, with ``P_bar`` the mean of ``P_i``.

:func:`fleiss_steps` runs the seven steps on one type and :func:`kappa_table` on every
type. The stage's tables take the same kappa from sums over label patterns
(:mod:`analysis.agreement.estimators`, which the bootstrap needs to be fast); the notebook
checks that the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.core import schemas

# 1 - chance agreement below this counts as zero: kappa is not defined (as in estimators).
EPS = 1e-12
KAPPA_TABLE_COLUMNS = ["type", "issues", "issues_complete", "annotators", "observed",
                       "chance", "kappa"]


def rating_matrix(issues: pd.DataFrame, issue_type: str) -> pd.DataFrame:
    """The ratings of one issue type: one row per issue (the issues table's index), one
    column per annotator (``annotator_<n>``, in numeric order), the label as a string or
    missing (NaN) where the annotator gave none."""
    columns = schemas.annotator_columns(issues.columns)
    rows = issues.loc[(issues["type"].astype(str) == issue_type).to_numpy(), columns]
    return rows.astype(object).where(rows.notna(), np.nan).map(
        lambda v: v if isinstance(v, float) else str(v))


def complete_rows(matrix: pd.DataFrame) -> pd.DataFrame:
    """The rows of a rating matrix that every annotator filled."""
    return matrix[matrix.notna().all(axis=1).to_numpy()]


def category_counts(matrix: pd.DataFrame, categories: Sequence[str] = ()) -> pd.DataFrame:
    """``n_ij``: per issue (row of ``matrix``) the number of ratings in each category.

    Columns are the categories that hold at least one rating: those of ``categories`` in
    its order, then any other label found, sorted. (A category nobody chose adds nothing
    to kappa, so it is left out.)"""
    long = matrix.stack()  # one entry per rating given; the missing ones are dropped
    found = set(long.astype(str))
    columns = [c for c in categories if c in found] + sorted(found - set(categories))
    if long.empty:
        return pd.DataFrame(0, index=matrix.index, columns=columns, dtype="int64")
    codes = pd.Categorical(long.astype(str).to_numpy(), categories=columns)
    rows = matrix.index.get_indexer(long.index.get_level_values(0))
    counts = np.zeros((len(matrix), len(columns)), dtype=np.int64)
    np.add.at(counts, (rows, codes.codes), 1)
    return pd.DataFrame(counts, index=matrix.index, columns=pd.Index(columns, name="label"))


def ratings_per_issue(counts: pd.DataFrame) -> int:
    """``n``, the number of ratings of every issue of ``counts``; a ValueError when the
    issues have different numbers (Fleiss' kappa needs one number) or none."""
    per_issue = np.unique(counts.to_numpy().sum(axis=1))
    if len(per_issue) != 1:
        raise ValueError(f"Fleiss' kappa needs the same number of ratings per issue; "
                         f"found {per_issue.tolist()}: take complete_rows first")
    return int(per_issue[0])


def issue_agreement(counts: pd.DataFrame) -> pd.Series:
    """``P_i``: per issue, the share of its annotator pairs that gave the same label."""
    n = ratings_per_issue(counts)
    if n < 2:
        return pd.Series(np.nan, index=counts.index, name="P_i")
    sq = (counts.to_numpy(dtype=float) ** 2).sum(axis=1)
    return pd.Series((sq - n) / (n * (n - 1)), index=counts.index, name="P_i")


def category_shares(counts: pd.DataFrame) -> pd.Series:
    """``p_j``: per category, its share of all ratings in ``counts``."""
    totals = counts.sum(axis=0).astype(float)
    whole = float(totals.sum())
    return (totals / whole if whole else totals * np.nan).rename("p_j")


def chance_agreement(shares: pd.Series) -> float:
    """``P_e``: the probability that two ratings drawn at random agree."""
    return float((shares.to_numpy(dtype=float) ** 2).sum())


def kappa(agreement: pd.Series, chance: float) -> float:
    """Fleiss' kappa from the issues' ``P_i`` and ``P_e``: the observed agreement's excess
    over chance, as a share of the most it could be; NaN when it is not defined (fewer
    than two issues, or chance agreement 1)."""
    if len(agreement) < 2 or 1 - chance < EPS or agreement.isna().any():
        return float("nan")
    observed = float(agreement.mean())
    return (observed - chance) / (1 - chance)


@dataclass(frozen=True)
class FleissSteps:
    """Every intermediate result of Fleiss' kappa on one rating matrix."""

    matrix: pd.DataFrame  # rating_matrix
    complete: pd.DataFrame  # complete_rows
    counts: pd.DataFrame  # category_counts: n_ij
    agreement: pd.Series  # issue_agreement: P_i
    shares: pd.Series  # category_shares: p_j
    chance: float  # chance_agreement: P_e
    kappa: float  # kappa

    @property
    def observed(self) -> float:
        """``P_bar``, the mean of ``P_i``."""
        return float(self.agreement.mean()) if len(self.agreement) else float("nan")


def fleiss_steps(matrix: pd.DataFrame, categories: Sequence[str] = ()) -> FleissSteps:
    """Steps 2 to 7 on one rating matrix (see the module docstring)."""
    complete = complete_rows(matrix)
    counts = category_counts(complete, categories)
    agreement = issue_agreement(counts) if len(counts) else pd.Series(dtype=float,
                                                                      name="P_i")
    shares = category_shares(counts)
    chance = chance_agreement(shares)
    return FleissSteps(matrix, complete, counts, agreement, shares, chance,
                       kappa(agreement, chance))


def kappa_table(issues: pd.DataFrame, types: Sequence[str],
                categories: Sequence[str] = ()) -> pd.DataFrame:
    """Fleiss' kappa of each issue type in ``types`` (that has issues), by
    :func:`fleiss_steps`: the type, its issues, those every annotator rated, the number of
    annotators, ``P_bar`` (observed), ``P_e`` (chance) and kappa."""
    rows = []
    for name in types:
        matrix = rating_matrix(issues, name)
        if matrix.empty:
            continue
        s = fleiss_steps(matrix, categories)
        rows.append((name, len(matrix), len(s.complete), matrix.shape[1], s.observed,
                     s.chance, s.kappa))
    return pd.DataFrame(rows, columns=KAPPA_TABLE_COLUMNS)
