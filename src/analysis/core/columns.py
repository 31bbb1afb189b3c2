"""The columns of the pandera schemas of every CSV the pipeline writes: kinds, checks, builders
(the declarations that use them, and the data dictionaries built from their descriptions:
:mod:`analysis.core.table_schemas`).

The schemas must accept the tables of *any* dump (other projects, years, annotators,
participants, missing values), so they are loose on purpose:

- a column has a *kind* (integer, decimal number, yes/no, text) that is checked on its
  values whatever dtype pandas gave them: a frame read with pandas' defaults (numbers,
  ``NaN`` for empty cells, booleans) and a frame read as text (``dtype=str,
  keep_default_na=False``, as the website reads them) validate alike, and an empty cell is
  a missing value in both; no dtype is imposed and nothing is coerced;
- columns whose *names* come from the data (years, issue types, rating categories,
  participant ids, annotators) are regex columns with one description each;
- value checks only where the writing code guarantees them: counts are >= 0, shares lie in
  [0, 1] or [0, 100] as the code writes them, p-values in [0, 1], and words from a fixed
  list (statuses, rules) are in that list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

import numpy as np
import pandas as pd
import pandera.pandas as pa

from analysis.core.pipeline import rel

# A reader's words for the kinds of values (the ``type`` of a data dictionary).
INTEGER = "integer"
DECIMAL = "decimal number"
TEXT = "text"
YES_NO = "yes/no"
KINDS = (INTEGER, DECIMAL, TEXT, YES_NO)


# --------------------------------------------------------------------------- value checks


def present(values: pd.Series) -> pd.Series:
    """Cells that hold a value: neither missing (NaN, None) nor the empty string.

    Why: read with pandas' defaults an empty CSV cell is NaN; read as text it is ``""``.
    """
    return values.notna() & (values.astype(str) != "")


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_)


def as_numbers(values: pd.Series) -> pd.Series:
    """Each cell as a float (NaN where it is missing or not a number).

    Numbers read as text (``"12"``, ``"0.5"``, ``"1e-05"``) count as numbers; booleans do
    not, so a yes/no column cannot pass as a count.
    """
    if pd.api.types.is_bool_dtype(values.dtype):
        return pd.Series(np.nan, index=values.index)
    if pd.api.types.is_numeric_dtype(values.dtype):
        return pd.Series(values.to_numpy(dtype=float, na_value=np.nan), index=values.index)
    cells = values.where(present(values) & ~values.map(_is_bool))
    return pd.to_numeric(cells, errors="coerce").astype(float)


def _kind_ok(kind: str, values: pd.Series) -> pd.Series:
    """Per cell: the value is of ``kind`` (missing cells pass; any value is text)."""
    if kind == TEXT:
        return pd.Series(True, index=values.index)
    if kind == YES_NO:
        ok = values.map(lambda v: _is_bool(v) or str(v) in ("True", "False"))
    else:
        numbers = as_numbers(values)
        ok = numbers.notna()
        if kind == INTEGER:
            ok &= np.isfinite(numbers) & (numbers % 1 == 0)
    return ok | ~present(values)


def kind_check(kind: str) -> pa.Check:
    """Every value of the column is of ``kind`` (integer, decimal number, yes/no, text)."""
    return pa.Check(lambda s: _kind_ok(kind, s), name=f"values_are_{kind.replace(' ', '_')}",
                    error=f"a value that is not of the kind {kind!r}")


def range_check(low: float | None = None, high: float | None = None) -> pa.Check:
    """Every number of the column lies in [low, high] (an open end when None)."""
    def ok(s: pd.Series) -> pd.Series:
        numbers = as_numbers(s)
        inside = pd.Series(True, index=s.index)
        if low is not None:
            inside &= numbers >= low
        if high is not None:
            inside &= numbers <= high
        return inside | numbers.isna()

    return pa.Check(ok, name=f"in_range_{low}_{high}", error=f"a number outside [{low}, {high}]",
                    statistics={"minimum": low, "maximum": high})


def one_of(words: Iterable[str]) -> pa.Check:
    """Every value of the column is one of ``words`` (compared as text)."""
    allowed = frozenset(str(w) for w in words)
    return pa.Check(lambda s: s.astype(str).isin(allowed) | ~present(s),
                    name="one_of", error=f"a value outside {sorted(allowed)}",
                    statistics={"enum": sorted(allowed)})


def matches(pattern: str) -> pa.Check:
    """Every value of the column matches the regular expression ``pattern``."""
    return pa.Check(lambda s: s.astype(str).str.match(pattern) | ~present(s),
                    name="matches", error=f"a value not matching {pattern}",
                    statistics={"pattern": pattern})


def no_empty_cells() -> pa.Check:
    """No cell of the column is the empty string: pandera's ``nullable=False`` catches NaN,
    but a frame read as text writes a missing value as ``""``."""
    return pa.Check(present, name="no_empty_cells",
                    error="an empty cell in a column that always has a value")


# --------------------------------------------------------------------------- columns


def column(kind: str, description: str, *, nullable: bool = False,
           checks: Iterable[pa.Check] = (), regex: bool = False) -> pa.Column:
    """A documented column of a reader's ``kind``: no dtype imposed, nothing coerced.

    ``nullable`` says whether a cell may be empty (a missing value); a regex column (whose
    names come from the data) is optional, as another dump may have none of them.
    """
    if not description.strip():
        raise ValueError("every column needs a description")
    all_checks = [kind_check(kind), *checks]
    if not nullable:
        all_checks.append(no_empty_cells())
    return pa.Column(None, all_checks, nullable=nullable, coerce=False, regex=regex,
                     required=not regex, description=description, metadata={"type": kind})


def text(description: str, *, nullable: bool = False, words: Iterable[str] | None = None,
         pattern: str | None = None, regex: bool = False) -> pa.Column:
    """Text, optionally limited to a fixed list of ``words`` or to a ``pattern``."""
    checks = [one_of(words)] if words is not None else []
    checks += [matches(pattern)] if pattern is not None else []
    return column(TEXT, description, nullable=nullable, checks=checks, regex=regex)


def count(description: str, *, nullable: bool = False, regex: bool = False,
          low: int = 0, high: int | None = None) -> pa.Column:
    """A whole number of things (issues, ratings, rows): an integer >= ``low``."""
    return column(INTEGER, description, nullable=nullable, regex=regex,
                  checks=[range_check(low, high)])


def integer(description: str, *, nullable: bool = False) -> pa.Column:
    """A whole number that may be negative (a change between runs)."""
    return column(INTEGER, description, nullable=nullable)


def decimal(description: str, *, nullable: bool = True, low: float | None = None,
            high: float | None = None, regex: bool = False) -> pa.Column:
    """A decimal number, checked against [low, high] only where the code guarantees it."""
    checks = [range_check(low, high)] if low is not None or high is not None else []
    return column(DECIMAL, description, nullable=nullable, checks=checks, regex=regex)


def share(description: str, *, nullable: bool = True, top: float = 1.0,
          regex: bool = False) -> pa.Column:
    """A share as the code writes it: in [0, 1], or in [0, 100] for percentages."""
    return decimal(description, nullable=nullable, low=0.0, high=top, regex=regex)


def percent(description: str, *, nullable: bool = False, regex: bool = False) -> pa.Column:
    """A percentage in [0, 100]."""
    return share(description, nullable=nullable, top=100.0, regex=regex)


def yes_no(description: str, *, nullable: bool = False) -> pa.Column:
    """True/False, written ``True`` or ``False``."""
    return column(YES_NO, description, nullable=nullable)


# The builders by the name a table declaration gives a column's kind (``schemas.yaml``).
BUILDERS: dict[str, Callable[..., pa.Column]] = {
    "text": text, "count": count, "integer": integer, "decimal": decimal, "share": share,
    "percent": percent, "yes_no": yes_no}


def columns_named_by(key: str) -> pa.Check:
    """The table's other columns are named by the values of its column ``key``, in row
    order (a square table whose rows and columns are the same categories), so no other
    column can pass as one of them."""
    def ok(frame: pd.DataFrame) -> bool:
        names = [str(c) for c in frame.columns if str(c) != key]
        return names == [str(v) for v in frame[key]]

    return pa.Check(ok, name="columns_are_the_rows",
                    error="the category columns differ from the rows")


def table(path: str | PurePath, description: str, columns: dict[str, pa.Column],
          checks: Iterable[pa.Check] = ()) -> pa.DataFrameSchema:
    """A strict schema (an undescribed column fails validation) named after its file, the
    path relative to the project root."""
    return pa.DataFrameSchema(columns, checks=list(checks), name=rel(path),
                              description=description, strict=True, coerce=False)


# --------------------------------------------------------------------------- declarations

FrameSchemaFactory = Callable[[pd.DataFrame], "pa.DataFrameSchema | None"]


def schema_key(relpath: str | PurePath) -> str:
    """A table's path relative to the project root as a schema key (``/`` separators, no
    leading ``./``)."""
    return PurePath(str(relpath).replace("\\", "/")).as_posix().removeprefix("./")


@dataclass(frozen=True)
class TableSchemas:
    """The schemas of a set of CSVs, by path relative to the project root.

    ``tables`` maps each path to its schema; ``from_frame`` maps the paths of tables whose
    column names are listed in their own rows to a function building the exact schema from
    the table at hand (None when it cannot).
    """

    tables: Mapping[str, pa.DataFrameSchema]
    from_frame: Mapping[str, FrameSchemaFactory] = field(default_factory=dict)

    @classmethod
    def collect(cls, parts: Iterable[TableSchemas]) -> TableSchemas:
        """One set of the schemas of ``parts``; a path declared twice is a mistake."""
        tables: dict[str, pa.DataFrameSchema] = {}
        frames: dict[str, FrameSchemaFactory] = {}
        for part in parts:
            twice = sorted(set(tables) & set(part.tables))
            if twice:
                raise ValueError(f"tables declared twice: {', '.join(twice)}")
            tables.update(part.tables)
            frames.update(part.from_frame)
        return cls(tables, frames)

    def schema_for(self, relpath: str | PurePath, frame: pd.DataFrame | None = None
                   ) -> pa.DataFrameSchema | None:
        """The schema of a CSV given by its path relative to the project root, or None.

        With ``frame`` (the table as read), a table whose column names are listed in its own
        rows gets a schema naming exactly those columns (:attr:`from_frame`); every other
        schema is the same with or without it.
        """
        key = schema_key(relpath)
        if frame is not None and key in self.from_frame:
            schema = self.from_frame[key](frame)
            if schema is not None:
                return schema
        return self.tables.get(key)
