"""Agreement per batch of a study dump (the release extended with new labels by
``python -m analysis.update.labels extend``).

Each batch was labelled by its own annotators, in its own label columns (the release's
seven in ``Label1..Label7``, a batch's in the columns after them), so the agreement of a
batch is computed on its rows and its own columns: Fleiss' kappa on the rows every one of
them rated, and Gwet's generalised estimator, Krippendorff's alpha and Gwet's AC1 on
every row with two or more ratings. Over all batches at once no row is rated by every
column, so only the generalised estimators are defined there: the overall row uses them
(irrCAC's ``fleiss()`` for unequal numbers of raters per issue).
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from analysis.agreement.ratings import Scale, annotator_columns, encode_ratings
from analysis.agreement.tables import agreement_tables
from analysis.core.taxonomy import Taxonomy

ScaleOf = Callable[[tuple[str, ...], Taxonomy], Scale]  # the stage's make_scale

ALL = "all batches"
STATISTICS = ("fleiss_kappa", "fleiss_kappa_generalised", "krippendorff_alpha", "gwet_ac1")
COLUMNS = ["batch", "issues", "annotators", "label_columns", "issues_complete",
           *[f"{s}{part}" for s in STATISTICS for part in ("", "_ci_low", "_ci_high")],
           "note"]


def own_columns(issues: pd.DataFrame) -> list[str]:
    """The annotator columns holding at least one rating among ``issues``."""
    return [c for c in annotator_columns(issues.columns) if issues[c].notna().any()]


def batch_row(issues: pd.DataFrame, name: str, taxonomy: Taxonomy, scale_of: ScaleOf,
              confidence_level: float, q: int | None) -> dict:
    """One line of the table: the coefficients of ``issues`` on their own columns, with
    their analytic intervals (no bootstrap: the stage's headline has those)."""
    columns = own_columns(issues)
    row: dict = {"batch": name, "issues": len(issues), "annotators": len(columns),
                 "label_columns": ", ".join(c.replace("annotator_", "Label")
                                            for c in columns)}
    ratings = encode_ratings(issues, taxonomy.codes, columns)
    stats, _ = agreement_tables(ratings.codes, scale_of(ratings.categories, taxonomy), {},
                                bootstrap_resamples=0, seed=0,
                                confidence_level=confidence_level, ac1_categories=q)
    stats = stats.set_index("statistic")
    row["issues_complete"] = int((ratings.codes >= 0).all(axis=1).sum())
    notes = []
    for s in STATISTICS:
        r = stats.loc[s]
        row[s], row[f"{s}_ci_low"], row[f"{s}_ci_high"] = r["value"], r["ci_low"], r["ci_high"]
        if r["value"] is None or pd.isna(r["value"]):
            notes.append(f"{s}: {r['note']}")
    row["note"] = "; ".join(notes)
    return row


def batch_agreement(issues: pd.DataFrame, taxonomy: Taxonomy, scale_of: ScaleOf,
                    confidence_level: float = 0.95, q: int | None = None) -> pd.DataFrame | None:
    """Per batch (in the order of the issues table: the release first), then all batches
    together: the agreement table (:data:`COLUMNS`), ``scale_of`` making the rating scale
    as the stage does; None for a dump without batches (the release alone)."""
    if "batch" not in issues.columns:
        return None
    names = list(dict.fromkeys(issues["batch"].astype(str)))
    rows = [batch_row(issues[issues["batch"].astype(str) == n], n, taxonomy, scale_of,
                      confidence_level, q) for n in names]
    rows.append(batch_row(issues, ALL, taxonomy, scale_of, confidence_level, q))
    return pd.DataFrame(rows, columns=COLUMNS)
