"""The two views of a study dump, never mixed.

A study dump is the release extended with batches of new labels (``python -m
analysis.update.labels extend``); its processed issues name each row's batch (a ``batch``
column: ``release`` for the base's rows). It is read two ways:

- *the paper, reproduced*: every number the paper is judged by is computed on the
  release's rows only (:func:`release_rows`), so a batch never changes a verdict;
- *the study now*: the release beside each batch (:func:`batch_names`).

A dump without the column is the release alone: both views are then the same rows.
"""

from __future__ import annotations

import re

import pandas as pd

from analysis.core.dump import BATCH

RELEASE = "release"  # the base's batch: the rows the paper is judged on
ANNOTATOR = re.compile(r"^annotator_\d+$")


def is_study(issues: pd.DataFrame) -> bool:
    """Whether the processed issues are a study's (they name each row's batch)."""
    return BATCH in issues.columns


def batch_names(issues: pd.DataFrame) -> list[str]:
    """The study's batches, the release first, then the others in the issues' order;
    empty for a dump without batches."""
    if not is_study(issues):
        return []
    names = list(dict.fromkeys(issues[BATCH].astype(str)))
    return sorted(names, key=lambda n: n != RELEASE)


def new_batches(issues: pd.DataFrame) -> list[str]:
    """The batches other than the release (:func:`batch_names`)."""
    return [n for n in batch_names(issues) if n != RELEASE]


def release_rows(issues: pd.DataFrame) -> pd.DataFrame:
    """The release's rows as a run on the release alone reads them: the other batches'
    rows dropped, and with them the ``batch`` column and the label columns that only those
    batches fill (each batch's annotators have columns of their own); unused categories of
    categorical columns are dropped too. So the paper's numbers come out the same, byte
    for byte, whatever batches the study holds. A dump without batches is returned as it
    is."""
    if not is_study(issues):
        return issues
    mine = issues[BATCH].astype(str) == RELEASE
    rows = issues[mine.to_numpy()]
    others = issues[~mine.to_numpy()]
    theirs = [c for c in issues.columns if ANNOTATOR.match(str(c))
              and rows[c].isna().all() and others[c].notna().any()]
    out = rows.drop(columns=[BATCH, *theirs]).reset_index(drop=True)
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].cat.remove_unused_categories()
    return out
