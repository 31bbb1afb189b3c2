"""The two views of a study (analysis.core.batches): the release's rows, as a run on the
release alone reads them, and the batches."""

from __future__ import annotations

import pandas as pd

from analysis.core.batches import batch_names, is_study, new_batches, release_rows


def release() -> pd.DataFrame:
    return pd.DataFrame({"project": ["p", "p", "q"], "final_label": ["A.1", "C.1", "C.2"],
                         "annotator_1": ["A.1", "C.1", None],  # a missing rating stays
                         "annotator_2": ["A.1", "C.1", "C.2"]})


def study() -> pd.DataFrame:
    """The release's rows, batch b's between them (extend appends per project), its own
    annotator column, the batch column last."""
    frame = release()
    frame["annotator_3"] = None
    frame["batch"] = "release"
    new = pd.DataFrame({"project": ["p"], "final_label": ["B.1"], "annotator_1": [None],
                        "annotator_2": [None], "annotator_3": ["B.1"], "batch": ["b"]})
    return pd.concat([frame.iloc[:2], new, frame.iloc[2:]], ignore_index=True)


def test_the_releases_rows_are_read_as_the_release_alone():
    assert release_rows(study()).equals(release())
    assert release_rows(release()) is not None and release_rows(release()).equals(release())


def test_categorical_columns_lose_the_batches_categories():
    frame = study().astype({"final_label": "category", "annotator_3": "category"})
    rows = release_rows(frame)
    assert list(rows["final_label"].cat.categories) == ["A.1", "C.1", "C.2"]
    assert "annotator_3" not in rows


def test_batches_in_order_the_release_first():
    frame = study()
    assert is_study(frame) and not is_study(release())
    assert batch_names(frame.iloc[::-1]) == ["release", "b"]
    assert new_batches(frame) == ["b"] and new_batches(release()) == []
