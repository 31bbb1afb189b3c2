"""How a stage declares its tables' schemas (:class:`analysis.core.columns.TableSchemas`)."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core.columns import TableSchemas, count, schema_key, table, text


def _counts():
    return table("report/tables/x/counts.csv", "counts", {"n": count("things")})


def _names():
    return table("report/tables/x/names.csv", "names", {"name": text("a name")})


def _exact(frame: pd.DataFrame):
    return table("report/tables/x/counts.csv", "exact", {c: count("a column") for c in frame})


def _of(*schemas, from_frame=None) -> TableSchemas:
    """The ``schemas`` by the path each names."""
    return TableSchemas({s.name: s for s in schemas}, from_frame or {})


def test_a_path_is_looked_up_in_any_spelling():
    schemas = _of(_counts())
    assert schema_key("./report\\tables/x/counts.csv") == "report/tables/x/counts.csv"
    assert schemas.schema_for("./report/tables/x/counts.csv").name == "report/tables/x/counts.csv"
    assert schemas.schema_for("report/tables/x/other.csv") is None


def test_a_frame_schema_is_used_only_with_the_frame():
    schemas = _of(_counts(), from_frame={"report/tables/x/counts.csv": _exact})
    frame = pd.DataFrame({"a": [1], "b": [2]})
    assert list(schemas.schema_for("report/tables/x/counts.csv", frame).columns) == ["a", "b"]
    assert list(schemas.schema_for("report/tables/x/counts.csv").columns) == ["n"]


def test_collect_refuses_a_table_declared_twice():
    one, two = _of(_counts()), _of(_counts(), _names())
    with pytest.raises(ValueError, match="declared twice: report/tables/x/counts.csv"):
        TableSchemas.collect([one, two])
    both = TableSchemas.collect([one, _of(_names())])
    assert set(both.tables) == {"report/tables/x/counts.csv", "report/tables/x/names.csv"}
