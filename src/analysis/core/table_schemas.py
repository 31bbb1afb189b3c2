"""Every table the pipeline writes, declared once: the stages' schemas, collected.

Each stage declares the pandera schemas of the CSVs it writes in its own ``schemas``
module (``analysis.<stage>.schemas.SCHEMAS``), and checks its tables against them when it
writes them (:func:`analysis.core.stage.write_outputs`). This module collects them, as
PUDL collects its resources, into one registry by path relative to the project root
(:data:`TABLE_SCHEMAS`, looked up by :func:`schema_for`), and builds the website's data
dictionaries from them (:func:`data_dictionary`): column, type, meaning, example. The
meanings are the ``description`` of every pandera column, next to the checks, so
documentation and data are checked together; :func:`data_dictionary` refuses a column
without a description, so a stage cannot ship a new column undocumented. The column kinds
and builders are :mod:`analysis.core.columns`'.
"""

from __future__ import annotations

from pathlib import PurePath

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.agreement import schemas as agreement
from analysis.clean import schemas as clean
from analysis.compare import schemas as compare
from analysis.core.columns import DECIMAL, INTEGER, TEXT, YES_NO, TableSchemas
from analysis.explorer import schemas as explorer
from analysis.findings import schemas as findings
from analysis.interviews import schemas as interviews
from analysis.keywords import schemas as keywords
from analysis.table1 import schemas as table1
from analysis.taxonomy import schemas as taxonomy

# Every stage's schemas, in pipeline order.
SCHEMAS = TableSchemas.collect(stage.SCHEMAS for stage in (
    clean, table1, taxonomy, agreement, interviews, compare, keywords, findings, explorer))

# Each CSV's schema, by the CSV's path relative to the project root.
TABLE_SCHEMAS = SCHEMAS.tables

# Tables whose schema is exact when the table itself is at hand (see schema_for).
FRAME_SCHEMAS = SCHEMAS.from_frame


def schema_for(relpath: str | PurePath, frame: pd.DataFrame | None = None
               ) -> pa.DataFrameSchema | None:
    """The schema of a CSV given by its path relative to the project root, or None
    (:meth:`analysis.core.columns.TableSchemas.schema_for` over every stage's)."""
    return SCHEMAS.schema_for(relpath, frame)


# --------------------------------------------------------------------------- dictionary


class UndocumentedColumnError(ValueError):
    """A column of a table that its schema does not describe."""


def describing_column(schema: pa.DataFrameSchema, name: str) -> pa.Column | None:
    """The schema column that describes the table column ``name``: the column of that
    name, else the first regex column whose pattern matches it (as pandera matches)."""
    col = schema.columns.get(name)
    if col is not None and not col.regex:
        return col
    for key, col in schema.columns.items():
        if col.regex and pd.Index([name]).str.match(key)[0]:
            return col
    return None


def reader_type(col: pa.Column) -> str:
    """A reader's word for the column's values (``metadata['type']``, else from the dtype)."""
    kind = (col.metadata or {}).get("type")
    if kind:
        return str(kind)
    dtype = str(col.dtype).lower() if col.dtype is not None else ""
    if "bool" in dtype:
        return YES_NO
    if "int" in dtype:
        return INTEGER
    if "float" in dtype:
        return DECIMAL
    return TEXT


def first_example(values: pd.Series, kind: str) -> str:
    """The first non-empty value of a column as a string ('' if there is none).

    A whole number that pandas read as a float (because the column has empty cells) is
    shown without its ``.0`` when the column holds integers.
    """
    for value in values:
        if value is None or (not isinstance(value, str) and pd.isna(value)) or value == "":
            continue
        if kind == INTEGER and isinstance(value, float | np.floating) and value.is_integer():
            return str(int(value))
        return str(value)
    return ""


def data_dictionary(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> pd.DataFrame:
    """The data dictionary of ``frame``: columns column, type, meaning, example, one row per
    column of the frame in its order.

    Raises :class:`UndocumentedColumnError` if a column has no description in ``schema``,
    so a table cannot ship a column nobody explained.
    """
    rows, missing = [], []
    for name in frame.columns:
        col = describing_column(schema, str(name))
        if col is None or not (col.description or "").strip():
            missing.append(str(name))
            continue
        kind = reader_type(col)
        rows.append({"column": str(name), "type": kind, "meaning": col.description,
                     "example": first_example(frame[name], kind)})
    if missing:
        raise UndocumentedColumnError(
            f"{schema.name or 'table'}: no description for column(s) {missing}; describe "
            "them in the schemas module of the stage that writes the table")
    return pd.DataFrame(rows, columns=["column", "type", "meaning", "example"])
