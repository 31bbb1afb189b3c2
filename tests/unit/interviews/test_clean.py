"""The interview files cleaned together: cross-file checks and the quality report."""

from __future__ import annotations

import pandas as pd

from analysis.interviews.clean import compare_files, type_counts
from tests.unit.interviews.synthetic import anomalies, clean


def test_group_sizes_are_compared_not_reconciled(data):
    # group sizes differ between the files: reported, not silently reconciled
    assert anomalies(data, "group_size_mismatch")
    assert len(anomalies(data, "no_shared_key")) == 1
    s = data.quality["summary"]
    assert s["by_type_background"] == {"User": 4, "Developer": 4, "Unknown": 1}
    assert s["by_type_codebook"] == {"User": 4, "Developer": 1}
    assert s["joined"] is False and s["private_columns"] == ["gender"]


def test_type_counts_and_compare_files():
    cb = pd.DataFrame({"participant": ["U1", "U1", "D1"], "type": ["User", "User",
                                                                    "Developer"]})
    bg = pd.DataFrame({"type": ["Developer", "User", "Other"]})
    assert type_counts(cb) == {"User": 1, "Developer": 1}
    assert list(type_counts(bg)) == ["User", "Developer", "Other"]
    found = compare_files(cb, bg, "c.csv", "b.xlsx")
    assert [a.kind for a in found] == ["no_shared_key", "group_size_mismatch"]
    assert found[1].value == "Other"


def test_rejected_rows_of_both_files(data):
    assert list(data.rejected.columns) == ["file", "line", "column", "value", "reason"]
    assert set(data.rejected["reason"]) == {"no_role", "missing_participant", "duplicate_node"}
    assert data.rejected.equals(data.rejected.sort_values(["file", "line"], kind="mergesort")
                                .reset_index(drop=True))


def test_without_a_guideline(inputs, taxonomy):
    cb, bg, _ = inputs
    data = clean(cb, bg, taxonomy)
    assert data.guideline_md == "" and "raw_html" not in data.quality["anomaly_counts"]
