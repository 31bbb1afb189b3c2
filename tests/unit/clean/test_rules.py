"""The checks of one label-file row (:mod:`analysis.clean.rules`), on hand-made records."""

from __future__ import annotations

import pandas as pd

from analysis.clean.rules import label_rows
from analysis.core.taxonomy import load_taxonomy

HEADER = ["Issue_URL", "Label1", "Label2", "Final_Label"]
URL = "https://github.com/o/r/issues/1"


def test_label_rows_give_each_row_its_first_reason_and_flags():
    records = pd.DataFrame({"line": [2, 3, 4, 5, 6], "raw": ["r"] * 5, "fields": [
        [URL, "C.1", "C.1", "C.1"], [], [URL, "C.1"], ["nope", "C.1", "C.1", "C.1"],
        [f" {URL}", "C.1", "", "Z.9"]]})
    rows, anomalies = label_rows(records, HEADER, "Issue_URL", "Final_Label",
                                 {"Label1": 1, "Label2": 2}, load_taxonomy(), "p.csv")
    assert rows["reason"].tolist() == [None, "blank_row", "malformed_row", "invalid_url",
                                       "unknown_final_label"]
    assert rows.loc[0, "url"] == URL and rows.loc[4, "url"] == URL
    assert "whitespace" in rows.loc[4, "flags"]
    kinds = {a.kind for a in anomalies}
    assert {"malformed_row", "invalid_url", "unknown_final_label", "whitespace",
            "missing_rating"} <= kinds
