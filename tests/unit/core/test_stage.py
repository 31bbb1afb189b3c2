"""Write-time validation of a stage's tables (:func:`analysis.core.stage.write_outputs`)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.columns import TableSchemas, count, table
from analysis.core.paths import Paths
from analysis.core.stage import StageOutputs, TableSchemaError, check_table, write_outputs


def _counts():
    return table("report/tables/keywords/counts.csv", "counts", {"n": count("things")})


SCHEMAS = TableSchemas({_counts().name: _counts()})


def test_a_valid_table_passes():
    check_table(SCHEMAS, "report/tables/keywords/counts.csv", pd.DataFrame({"n": [0, 3]}))


def test_a_table_breaking_its_schema_is_named_with_the_check():
    with pytest.raises(TableSchemaError, match=r"counts.csv: breaks its schema: column n: "
                                               r"a number outside \[0, None\] \(e\.g\. -1\)"):
        check_table(SCHEMAS, "report/tables/keywords/counts.csv", pd.DataFrame({"n": [-1]}))


def test_a_table_without_a_schema_is_refused():
    with pytest.raises(TableSchemaError, match="lists.csv: no schema"):
        check_table(SCHEMAS, "report/tables/keywords/lists.csv", pd.DataFrame({"n": [1]}))


def test_nothing_is_written_when_a_table_breaks_its_schema(tmp_path):
    paths = Paths(tmp_path).keywords
    good = StageOutputs(tables={"counts.csv": pd.DataFrame({"n": [1]})}, schemas=SCHEMAS)
    assert write_outputs(paths, good) == ["report/tables/keywords/counts.csv"]
    before = paths.table("counts.csv").read_bytes()
    bad = StageOutputs(tables={"counts.csv": pd.DataFrame({"n": [-1]})},
                       website_vars={"x": 1}, schemas=SCHEMAS)
    with pytest.raises(TableSchemaError):
        write_outputs(paths, bad)
    assert paths.table("counts.csv").read_bytes() == before
    assert not paths.vars.exists()
