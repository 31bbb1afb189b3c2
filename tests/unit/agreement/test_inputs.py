"""Reading the agreement stage's input: the processed issues table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.agreement.inputs import REQUIRED, load_issues
from analysis.agreement.ratings import encode_ratings
from analysis.core import artifacts
from analysis.core.errors import InputError


def test_load_issues_errors(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_issues(tmp_path / "nope.parquet")
    path = tmp_path / "bad.parquet"
    artifacts.write_parquet(path, pd.DataFrame({"project": ["p"], "annotator_1": ["A.1"]}))
    with pytest.raises(InputError, match="missing columns"):
        load_issues(path)


def test_load_issues_reads_labels_as_categories(tmp_path, taxonomy, issues):
    path = tmp_path / "issues.parquet"
    artifacts.write_parquet(path, issues)
    loaded = load_issues(path)
    annotators = [c for c in issues.columns if c.startswith("annotator_")]
    assert list(loaded.columns) == [*REQUIRED, *annotators]  # only what the stage needs
    assert isinstance(loaded["annotator_1"].dtype, pd.CategoricalDtype)
    a = encode_ratings(loaded, taxonomy.codes)
    b = encode_ratings(issues, taxonomy.codes)
    assert np.array_equal(a.codes, b.codes)
