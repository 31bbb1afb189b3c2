"""Every table the pipeline writes, declared once: the stages' declarations, loaded.

Each stage declares the tables it writes as data, in its own folder
(``analysis/<stage>/schemas.yaml``, read by :func:`analysis.core.paths.stage_declaration`;
the format is documented in docs/adding-a-stage.md): each file's name and description,
and for a CSV its columns, each a kind of :data:`analysis.core.columns.BUILDERS` with a
description and the checks the writing code guarantees (words several stages share are in
``core/columns.yaml``). This module builds the pandera schemas from them
(:func:`stage_schemas`; a stage checks its tables against them when it writes them,
:func:`analysis.core.stage.write_outputs`), collects every stage's by path relative to the
project root (:func:`all_schemas`, :func:`schema_for`), and builds the website's data
dictionaries from them (:func:`data_dictionary`): column, type, meaning, example. The
meanings are the columns' descriptions, next to the checks, so documentation and data are
checked together; a column without a description is refused, so a stage cannot ship a new
column undocumented.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path, PurePath
from typing import Any

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.core import claims
from analysis.core.columns import (
    BUILDERS,
    INTEGER,
    TableSchemas,
    columns_named_by,
    table,
)
from analysis.core.paths import STAGES, stage_declaration
from analysis.core.pipeline import P, rel
from analysis.core.safeyaml import safe_load
from analysis.core.schemas import ANNOTATOR_DESCRIPTION, ISSUE_DESCRIPTIONS, ISSUE_URL_PATTERN

# --------------------------------------------------------------------------- declarations

# Words several stages' declarations share (``{NAME}`` in a description).
SHARED_WORDS = Path(__file__).with_name("columns.yaml")

# Words the code holds, for the declarations: the processed issues' meanings (the parquet
# schema's, :mod:`analysis.core.schemas`), the causes of a difference, the URL pattern.
CODE_WORDS: dict[str, str] = {
    **{f"ISSUE_{name.upper()}": about for name, about in ISSUE_DESCRIPTIONS.items()},
    "ANNOTATOR_DESCRIPTION": ANNOTATOR_DESCRIPTION,
    "CAUSES": "; ".join(f"`{k}`: {v}" for k, v in claims.CAUSES.items()),
    "ISSUE_URL_PATTERN": ISSUE_URL_PATTERN,
}

# Value lists the code holds, by the name a declaration's ``words:`` gives instead of a list.
CODE_LISTS: dict[str, tuple[str, ...]] = {
    "STATUSES": tuple(claims.STATUSES), "CAUSES": tuple(claims.CAUSES)}

_WORD = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


@cache
def shared_declarations() -> dict[str, Any]:
    """core/columns.yaml as data: its ``words`` and its ``fields``."""
    return safe_load(SHARED_WORDS.read_text(encoding="utf-8")) or {}


@cache
def shared_words() -> dict[str, str]:
    """The words of :data:`SHARED_WORDS` with those of :data:`CODE_WORDS`."""
    return {**CODE_WORDS, **(shared_declarations().get("words") or {})}


def shared_fields() -> dict[str, dict[str, Any]]:
    """The columns several stages' tables share (``fields`` of core/columns.yaml), each
    declared once with its kind, description and checks."""
    return shared_declarations().get("fields") or {}


def with_field(spec: Mapping[str, Any], fields: Mapping[str, Mapping[str, Any]],
               where: str) -> Mapping[str, Any]:
    """A column declaration with its shared field filled in.

    A stage declares a shared column as ``field: NAME`` (a field of core/columns.yaml);
    ``also: TEXT`` adds what is particular to its table to the field's description (after
    "; "), and any other key (``nullable``, ``low``, ...) overrides the field's. A column
    declared in full is returned as it is.
    """
    if "field" not in spec:
        return spec
    name = spec["field"]
    if name not in fields:
        raise ValueError(f"{where}: no field {name!r} in core/columns.yaml; fields: "
                         f"{', '.join(sorted(fields))}")
    declared = dict(fields[name])
    kind = next(k for k in declared if k in BUILDERS)
    if "also" in spec:
        declared[kind] = f"{declared[kind]}; {spec['also']}"
    return {**declared, **{k: v for k, v in spec.items() if k not in ("field", "also")}}


def expand(text: str, words: Mapping[str, str], where: str) -> str:
    """``text`` with every ``{NAME}`` replaced by the word ``NAME`` of ``words`` (whose own
    ``{NAME}``s are replaced in turn). Only upper-case names are words, so a regular
    expression's ``{4}`` stays as it is; an unknown name is a mistake of ``where``."""
    def word(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in words:
            raise ValueError(f"{where}: no word {{{name}}}; words: {', '.join(sorted(words))}")
        return expand(words[name], words, where)

    return _WORD.sub(word, text)


def column_of(spec: Mapping[str, Any], words: Mapping[str, str], where: str,
              regex: bool | None = None) -> pa.Column:
    """The pandera column a declaration's column ``spec`` describes: one key names its kind
    (a builder of :data:`~analysis.core.columns.BUILDERS`) and holds the description; the
    others are the builder's options (``words`` may name a list of :data:`CODE_LISTS`).
    ``regex`` overrides the spec's own. A shared column (``field:``) is filled in from
    core/columns.yaml first (:func:`with_field`)."""
    spec = with_field(spec, shared_fields(), where)
    kinds = [k for k in spec if k in BUILDERS]
    if len(kinds) != 1:
        raise ValueError(f"{where}: give one kind of {', '.join(BUILDERS)}; got {list(spec)}")
    options = {k: v for k, v in spec.items() if k != kinds[0]}
    if isinstance(options.get("words"), str):
        options["words"] = CODE_LISTS[options["words"]]
    if "pattern" in options:
        options["pattern"] = expand(options["pattern"], words, where)
    if regex is not None:
        options["regex"] = regex
    return BUILDERS[kinds[0]](expand(spec[kinds[0]], words, where), **options)


def table_of(key: str, spec: Mapping[str, Any], words: Mapping[str, str],
             names: list[str] | None = None) -> pa.DataFrameSchema:
    """The strict schema of the table ``key`` (its path relative to the project root) that
    a declaration's ``spec`` describes. A table whose columns are named by the values of
    one of its columns (``columns_named_by``) is checked for that; given the ``names`` (the
    values at hand), each is a column of its own in place of the regex column(s)."""
    columns: dict[str, pa.Column] = {}
    for name, col in spec["columns"].items():
        where = f"{key}: column {name}"
        if names is not None and col.get("regex"):
            columns.update({n: column_of(col, words, where, regex=False) for n in names})
        else:
            columns[name] = column_of(col, words, where)
    by = spec.get("columns_named_by")
    return table(key, expand(spec["description"], words, key), columns,
                 checks=[columns_named_by(by)] if by else [])


@cache
def stage_schemas(stage: str) -> TableSchemas:
    """The schemas of the CSVs the stage ``stage`` declares, by path relative to the
    project root, in the declaration's order (files without columns have none)."""
    declared = stage_declaration(stage)
    words = {**shared_words(), **(declared.get("words") or {})}
    paths = P.stage(stage)
    places = {"processed": paths.processed_file, "tables": paths.table}
    tables: dict[str, pa.DataFrameSchema] = {}
    frames = {}
    for section in declared:
        if section not in places:
            continue
        for name, spec in declared[section].items():
            if "columns" not in spec:
                continue
            key = rel(places[section](name))
            tables[key] = table_of(key, spec, words)
            if spec.get("columns_named_by"):
                frames[key] = _from_frame(key, spec, words)
    return TableSchemas(tables, frames)


def _from_frame(key: str, spec: Mapping[str, Any], words: Mapping[str, str]):
    """The exact schema of a table named by its rows, for the table at hand (None when it
    lacks the naming column)."""
    by = spec["columns_named_by"]

    def build(frame: pd.DataFrame) -> pa.DataFrameSchema | None:
        if by not in frame.columns:
            return None
        return table_of(key, spec, words, names=[str(v) for v in frame[by]])

    return build


@cache
def all_schemas() -> TableSchemas:
    """Every stage's schemas, in pipeline order (built on first use: a stage that checks
    its own tables needs only :func:`stage_schemas` of itself)."""
    return TableSchemas.collect(stage_schemas(stage) for stage in STAGES)


def schema_for(relpath: str | PurePath, frame: pd.DataFrame | None = None
               ) -> pa.DataFrameSchema | None:
    """The schema of a CSV given by its path relative to the project root, or None
    (:meth:`analysis.core.columns.TableSchemas.schema_for` over every stage's)."""
    return all_schemas().schema_for(relpath, frame)


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
    """A reader's word for the column's values (every declared column names it:
    :func:`analysis.core.columns.column`)."""
    return str(col.metadata["type"])


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
            "them in the schemas.yaml of the stage that writes the table")
    return pd.DataFrame(rows, columns=["column", "type", "meaning", "example"])
