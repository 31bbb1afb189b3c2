"""Each annotator of a study followed from batch to batch.

A study (the release extended with batches of new labels by ``python -m
analysis.update.labels extend``) gives each person one label column, kept from batch to
batch (``labels/batches.json``; the clean stage's ``people.csv`` carries it here), so a
person's agreement can be read batch by batch. Per batch and person, on the batch's rows:

- against the **majority of the others**: on each issue the label more than half of the
  batch's other annotators who rated it gave (:func:`majority_of_others`; an issue where
  they have none is left out, and ``n`` says how many are left), Cohen's kappa of the
  person against it. The person's own label is not part of that reference, as it is of the
  final label;
- against the **final label** (the majority of all, or the adjudicators' decision):
  Cohen's kappa, as the release's ``annotator_final.csv`` computes it;
- and Cohen's kappa between every two of the batch's annotators (:func:`batch_pairs`).

Every kappa comes with its asymptotic normal interval (statsmodels' standard error, as
:func:`analysis.agreement.pairwise.cohen`), clipped to [-1, 1] (a batch of tens of
reports gives wide intervals; two raters who agree on every issue, none), and the number
of issues it is computed on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from statsmodels.stats.inter_rater import cohens_kappa

from analysis.agreement.batches import own_columns
from analysis.agreement.pairwise import cohen, cross_table
from analysis.agreement.ratings import MISSING, Ratings, category_order, encode_column
from analysis.core.batches import is_study, new_batches
from analysis.core.dump import BATCH

PERSON_COLUMNS = ["batch", "person", "label_column", "issues", "rated",
                  "final_agreement", "final_kappa", "final_ci_low", "final_ci_high",
                  "others_issues", "others_agreement", "others_kappa", "others_ci_low",
                  "others_ci_high", "note"]
PAIR_COLUMNS = ["batch", "person_a", "person_b", "label_column_a", "label_column_b", "n",
                "agreement", "kappa", "ci_low", "ci_high", "note"]


def label_column(annotator: str) -> str:
    """The label files' name of an issues-table column: ``annotator_8`` -> ``Label8``."""
    return annotator.replace("annotator_", "Label")


def person_names(people: pd.DataFrame | None, batch: str,
                 columns: list[str]) -> dict[str, str]:
    """Each of ``columns`` (``annotator_<n>``) of ``batch`` -> the person, as the study
    names them: the name ``people`` (the clean stage's ``people.csv``: batch, annotator,
    name) gives that column in the batch, else in any batch (a person keeps their column
    from batch to batch), else the label column (``Label<n>``: the release names
    nobody)."""
    here: dict[str, str] = {}
    anywhere: dict[str, str] = {}
    for row in () if people is None else people.itertuples(index=False):
        name = row.name.strip() if isinstance(row.name, str) else ""
        if not name:
            continue
        anywhere.setdefault(str(row.annotator), name)
        if str(row.batch) == batch:
            here[str(row.annotator)] = name
    return {c: here.get(c) or anywhere.get(c) or label_column(c) for c in columns}


def majority_of_others(codes: np.ndarray, a: int, n_categories: int) -> np.ndarray:
    """Per issue (row of ``codes``), the category more than half of the annotators other
    than column ``a`` who rated the issue gave, or ``MISSING`` when they have no such
    majority (a tie, or no rating)."""
    others = np.delete(np.asarray(codes), a, axis=1).astype(np.int64)
    n = len(others)
    counts = np.zeros((n, max(n_categories, 1)), dtype=np.int64)
    for col in others.T:
        rated = col >= 0
        np.add.at(counts, (np.nonzero(rated)[0], col[rated]), 1)
    raters = (others >= 0).sum(axis=1)
    best = counts.max(axis=1) if n else np.zeros(0, dtype=np.int64)
    return np.where(2 * best > raters, counts.argmax(axis=1), MISSING)


ROUND_OFF = 1e-12  # a variance this far below zero is zero, computed in floating point


def clipped_cohen(x: np.ndarray, y: np.ndarray, n_categories: int,
                  confidence_level: float) -> dict:
    """Cohen's kappa of ``x`` against ``y`` on the issues both have
    (:func:`~analysis.agreement.pairwise.cohen`: n, agreement, kappa, interval, note),
    the interval clipped to [-1, 1]. Where statsmodels' variance comes out a round-off
    below zero (two raters who agree on every issue; one who gives one label throughout),
    it is zero, on every machine alike, and the interval is the kappa itself; a variance
    clearly below zero gives no interval, and the note says so."""
    table = cross_table(x, y, n_categories)
    with np.errstate(invalid="ignore"):
        res = cohen(table, confidence_level)
        if res["kappa"] is None:
            return res
        if not (np.isfinite(res["ci_low"]) and np.isfinite(res["ci_high"])):
            if cohens_kappa(table).var_kappa < -ROUND_OFF:
                return {**res, "ci_low": None, "ci_high": None,
                        "note": "no interval: the variance is negative"}
            res = {**res, "ci_low": res["kappa"], "ci_high": res["kappa"]}
    return {**res, "ci_low": float(np.clip(res["ci_low"], -1.0, 1.0)),
            "ci_high": float(np.clip(res["ci_high"], -1.0, 1.0))}


def batch_ratings(issues: pd.DataFrame, known_codes: list[str] | tuple[str, ...]
                  ) -> tuple[Ratings, np.ndarray]:
    """The coded ratings of a batch's rows on its own columns (those holding a rating,
    :func:`~analysis.agreement.batches.own_columns`) and its coded final labels, both on
    one scale: ``known_codes`` then any other label of the ratings or final labels."""
    columns = own_columns(issues)
    values = [v for c in [*columns, "final_label"] for v in pd.unique(issues[c].dropna())]
    categories = tuple(category_order(values, known_codes))
    codes = (np.column_stack([encode_column(issues[c], categories) for c in columns])
             if len(issues) and columns else np.empty((len(issues), len(columns)), np.int8))
    return (Ratings(codes, categories, tuple(columns)),
            encode_column(issues["final_label"], categories))


def _note(what: str, res: dict) -> list[str]:
    return [f"{what}: {res['note']}"] if res["note"] else []


def batch_persons(ratings: Ratings, final: np.ndarray, names: dict[str, str], batch: str,
                  confidence_level: float = 0.95) -> pd.DataFrame:
    """One row per annotator of a batch (:data:`PERSON_COLUMNS`): how many of its issues
    they rated, their Cohen's kappa against the final label and against the majority of
    the others (:func:`majority_of_others`), each with its interval and n."""
    rows = []
    k = ratings.n_categories
    for a, column in enumerate(ratings.annotators):
        mine = ratings.codes[:, a]
        final_res = clipped_cohen(mine, final, k, confidence_level)
        others_res = clipped_cohen(mine, majority_of_others(ratings.codes, a, k), k,
                                   confidence_level)
        rows.append({
            "batch": batch, "person": names.get(column, label_column(column)),
            "label_column": label_column(column), "issues": len(mine),
            "rated": int((mine >= 0).sum()),
            "final_agreement": final_res["agreement"], "final_kappa": final_res["kappa"],
            "final_ci_low": final_res["ci_low"], "final_ci_high": final_res["ci_high"],
            "others_issues": others_res["n"], "others_agreement": others_res["agreement"],
            "others_kappa": others_res["kappa"], "others_ci_low": others_res["ci_low"],
            "others_ci_high": others_res["ci_high"],
            "note": "; ".join(_note("final label", final_res)
                              + _note("majority of the others", others_res))})
    return pd.DataFrame(rows, columns=PERSON_COLUMNS)


def batch_pairs(ratings: Ratings, names: dict[str, str], batch: str,
                confidence_level: float = 0.95) -> pd.DataFrame:
    """Cohen's kappa between every two annotators of a batch, each pair once, in the
    order of their columns (:data:`PAIR_COLUMNS`)."""
    rows = []
    cols = ratings.annotators
    for a in range(len(cols)):
        for b in range(a + 1, len(cols)):
            res = clipped_cohen(ratings.codes[:, a], ratings.codes[:, b],
                                ratings.n_categories, confidence_level)
            rows.append({"batch": batch, "person_a": names.get(cols[a], label_column(cols[a])),
                         "person_b": names.get(cols[b], label_column(cols[b])),
                         "label_column_a": label_column(cols[a]),
                         "label_column_b": label_column(cols[b]), **res})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def annotators_by_batch(issues: pd.DataFrame, people: pd.DataFrame | None,
                        known_codes: list[str] | tuple[str, ...],
                        confidence_level: float = 0.95
                        ) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """Every batch of a study (in the issues' order: the release first), every person of
    it: :func:`batch_persons` and :func:`batch_pairs` over all batches, one table each;
    None for a dump without batches (the release alone: nothing is written)."""
    if not is_study(issues):
        return None
    persons, pairs = [], []
    batch_of = issues[BATCH].astype(str)
    for batch in dict.fromkeys(batch_of):
        rows = issues[(batch_of == batch).to_numpy()]
        ratings, final = batch_ratings(rows, known_codes)
        names = person_names(people, batch, list(ratings.annotators))
        persons.append(batch_persons(ratings, final, names, batch, confidence_level))
        pairs.append(batch_pairs(ratings, names, batch, confidence_level))
    return (pd.concat(persons, ignore_index=True) if persons
            else pd.DataFrame(columns=PERSON_COLUMNS),
            pd.concat(pairs, ignore_index=True) if pairs
            else pd.DataFrame(columns=PAIR_COLUMNS))


@dataclass(frozen=True)
class Walkthrough:
    """The first annotator of a study's first new batch, step by step (:func:`walkthrough`:
    what the stage's notebook shows before the whole tables)."""

    batch: str
    person: str
    labels: pd.DataFrame  # per issue: each person's label, the first's reference, the final
    kappa: dict  # the first person against the majority of the others (clipped_cohen)


def walkthrough(issues: pd.DataFrame, people: pd.DataFrame | None,
                known_codes: list[str] | tuple[str, ...],
                confidence_level: float = 0.95) -> Walkthrough | None:
    """The steps of :func:`batch_persons` for one person: the first new batch's ratings on
    its own columns under each person's name, beside them the majority of the others for
    the first person (empty where the others tie) and the final label, and the first
    person's Cohen's kappa against that majority; None without a new batch."""
    later = new_batches(issues)
    if not later:
        return None
    rows = issues[(issues[BATCH].astype(str) == later[0]).to_numpy()]
    ratings, _ = batch_ratings(rows, known_codes)
    names = person_names(people, later[0], list(ratings.annotators))
    first = names[ratings.annotators[0]]
    reference = majority_of_others(ratings.codes, 0, ratings.n_categories)
    labels = rows[list(ratings.annotators)].rename(columns=names).reset_index(drop=True)
    labels[f"majority of the others (for {first})"] = [
        ratings.categories[c] if c >= 0 else None for c in reference]
    labels["final label"] = rows["final_label"].astype(str).to_numpy()
    return Walkthrough(later[0], first, labels,
                       clipped_cohen(ratings.codes[:, 0], reference, ratings.n_categories,
                                     confidence_level))
