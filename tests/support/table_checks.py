"""Checks of the CSVs a pipeline run wrote against their schemas
(:mod:`analysis.core.table_schemas`): the unit tests read the current run with them, the
end-to-end tests a run on a synthetic dump."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pandera.errors import SchemaError, SchemaErrors

from analysis.core.columns import TableSchemas
from analysis.core.paths import Paths
from analysis.core.table_schemas import UndocumentedColumnError, data_dictionary, schema_for

# pandas' defaults (numbers, NaN for empty cells) and all-text (as the website reads them)
READ_MODES = {"default": {"low_memory": False},
              "text": {"dtype": str, "keep_default_na": False}}


def written_csvs(root: Path) -> list[str]:
    """The CSVs a pipeline run wrote under ``root``, relative to it."""
    paths = Paths(root)
    found = [*paths.tables.glob("*/*.csv"), *paths.processed.glob("*/*.csv")]
    return sorted(p.relative_to(root).as_posix() for p in found if p.is_file())


def validation_problems(schema, frame: pd.DataFrame, where: str) -> list[str]:
    """Every failure of ``frame`` under ``schema``, one line per column and check."""
    try:
        schema.validate(frame, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases.drop_duplicates(["column", "check"]).head(10)
        return [f"{where}: column {c.column}: {c.check} (e.g. {c.failure_case!r})"
                for c in cases.itertuples()]
    return []


def table_problems(root: Path, rel: str) -> list[str]:
    """What is wrong with one CSV against its schema, read both ways (empty if nothing).

    The schema is looked up without the table (every stage's schemas,
    :func:`~analysis.core.table_schemas.all_schemas`) and with it, as the website does
    (``schema_for(path, frame)``)."""
    if schema_for(rel) is None:
        return [f"{rel}: no schema in any stage's schemas.yaml"]
    problems = []
    for mode, options in READ_MODES.items():
        frame = pd.read_csv(root / rel, **options)
        problems += validation_problems(schema_for(rel), frame, f"{rel} ({mode})")
        schema = schema_for(rel, frame)
        problems += validation_problems(schema, frame, f"{rel} ({mode}, with the table)")
        try:
            dictionary = data_dictionary(schema, frame)
        except UndocumentedColumnError as exc:
            problems.append(str(exc))
            continue
        if list(dictionary["column"]) != [str(c) for c in frame.columns]:
            problems.append(f"{rel} ({mode}): the dictionary is not in the table's order")
        empty = dictionary.loc[dictionary["meaning"].str.strip() == "", "column"].tolist()
        problems += [f"{rel}: no meaning for {c}" for c in empty]
    return problems


def stage_csvs(stage: str) -> set[str]:
    """The CSVs an analysis stage's paths list (tables and processed files), relative to the
    project root."""
    paths = Paths(Path(".")).stage(stage)
    return {*(paths.table(n).as_posix() for n in paths.TABLES if n.endswith(".csv")),
            *(paths.processed_file(n).as_posix() for n in paths.PROCESSED
              if n.endswith(".csv"))}


def declared_problems(stage: str, schemas: TableSchemas) -> list[str]:
    """What is wrong with a stage's schemas: a CSV it writes without one, one for a CSV it
    does not write, a schema not named after its table, a column without a meaning."""
    problems = [f"{rel}: no schema" for rel in sorted(stage_csvs(stage) - set(schemas.tables))]
    problems += [f"{rel}: not written" for rel in sorted(set(schemas.tables) - stage_csvs(stage))]
    for rel, schema in schemas.tables.items():
        if schema.name != rel or not schema.strict:
            problems.append(f"{rel}: named {schema.name!r}, strict {schema.strict}")
        problems += [f"{rel}: {name} has no meaning" for name, col in schema.columns.items()
                     if not (col.description or "").strip()]
    return problems


def column_accepts(schemas: TableSchemas, rel: str, column: str, value: object) -> bool:
    """Whether the column ``column`` of the table ``rel`` accepts ``value``."""
    frame = pd.DataFrame({column: [value]})
    try:
        schemas.schema_for(rel).columns[column].validate(frame)
    except SchemaError:
        return False
    return True
