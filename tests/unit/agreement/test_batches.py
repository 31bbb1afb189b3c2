"""Agreement per batch of a study dump: each batch on its own annotators' columns (Fleiss'
kappa on complete rows defined), all batches with the generalised estimators only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from analysis.agreement.batches import ALL, COLUMNS, batch_agreement
from analysis.agreement.compute import make_scale


def study() -> pd.DataFrame:
    """Release rows rated in annotator_1..3, batch b's in annotator_4..5."""
    rng = np.random.default_rng(3)
    codes = ["A.1", "B.2", "C.3", "C.5"]
    rows = []
    for i in range(40):
        truth = codes[i % 4]
        release = [truth if rng.random() < 0.8 else rng.choice(codes) for _ in range(3)]
        rows.append([*release, None, None, truth, "release"])
    for i in range(12):
        truth = codes[i % 4]
        new = [truth if rng.random() < 0.7 else rng.choice(codes) for _ in range(2)]
        rows.append([None, None, None, *new, truth, "b"])
    frame = pd.DataFrame(rows, columns=[*(f"annotator_{k}" for k in range(1, 6)),
                                        "final_label", "batch"])
    frame["type"] = frame["final_label"].str[0].map({"A": "Question", "B": "Requirement",
                                                     "C": "Bug"})
    return frame


def test_each_batch_on_its_own_columns_and_all_with_the_generalised_estimator(taxonomy):
    issues = study()
    table = batch_agreement(issues, taxonomy, make_scale)
    assert list(table.columns) == COLUMNS
    rows = table.set_index("batch")
    assert list(rows.index) == ["release", "b", ALL]
    assert rows.loc["release", "annotators"] == 3 and rows.loc["b", "annotators"] == 2
    assert rows.loc["b", "label_columns"] == "Label4, Label5"
    release = issues[issues["batch"] == "release"][["annotator_1", "annotator_2",
                                                    "annotator_3"]]
    expected = fleiss_kappa(aggregate_raters(release.to_numpy())[0])
    assert rows.loc["release", "fleiss_kappa"] == pytest.approx(expected, abs=1e-9)
    assert rows.loc["release", "fleiss_kappa_generalised"] == pytest.approx(expected,
                                                                            abs=1e-9)
    # all batches: no row is rated in all five columns
    assert rows.loc[ALL, "issues_complete"] == 0 and pd.isna(rows.loc[ALL, "fleiss_kappa"])
    assert np.isfinite(rows.loc[ALL, "fleiss_kappa_generalised"])
    assert "fleiss_kappa: not defined" in rows.loc[ALL, "note"]
    assert batch_agreement(issues.drop(columns="batch"), taxonomy, make_scale) is None
