"""The contract every analysis stage keeps: what it writes, and where.

A stage computes a result (its own dataclass) from its inputs, then its ``outputs`` module
turns that result into a :class:`StageOutputs` (``build(result)``), usually by functions
named as its fields (a stage without one of them leaves it out):

- ``processed``: file name -> DataFrame (Parquet or CSV by its suffix), processed data for
  later stages, into ``data/processed/<stage>/``;
- ``quality``: the quality report of the files the stage read (row accounting, anomalies),
  ``data/processed/<stage>/quality.json``;
- ``tables``: file name -> DataFrame (written as CSV) or text (Markdown/HTML), into
  ``report/tables/<stage>/``;
- ``figures``: figure name -> a function drawing it, into ``report/figures/<stage>/``;
- ``website_vars``: numbers and texts for the website, ``report/vars/<stage>.json``;
- ``claim_values``: the paper's numbers as reproduced, by claim id,
  ``data/reproduced/<stage>.json``;
- ``metrics``: headline numbers for ``dvc metrics``, ``metrics/<stage>.json``.

:func:`write_outputs` writes them, each atomically and deterministically (fixed float
precision, sorted keys), and checks that every file name is one the stage's paths list and
that every CSV has a schema in the stage's ``schemas.yaml`` (``schemas``, a
:class:`~analysis.core.columns.TableSchemas` built from it by
:func:`~analysis.core.table_schemas.stage_schemas`) and validates against it before it is
written: a table that breaks its schema is a bug of the stage, and fails the run with the
columns and checks it breaks, leaving the earlier outputs as they were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pandas as pd
from pandera.errors import SchemaErrors

from analysis.core.artifacts import write_csv, write_json, write_parquet, write_text
from analysis.core.columns import TableSchemas
from analysis.core.figures import save_figure
from analysis.core.paths import StagePaths


@dataclass
class StageOutputs:
    """What one run of a stage writes (see the module docstring)."""

    processed: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    quality: Mapping[str, object] | None = None
    tables: Mapping[str, pd.DataFrame | str] = field(default_factory=dict)
    figures: Mapping[str, Callable[[], object]] = field(default_factory=dict)
    website_vars: Mapping[str, object] | None = None
    claim_values: Mapping[str, object] | None = None
    metrics: Mapping[str, object] | None = None
    schemas: TableSchemas = field(default_factory=lambda: TableSchemas({}))


class TableSchemaError(ValueError):
    """A table a stage is about to write has no schema, or breaks it (a bug of the stage)."""


def check_table(schemas: TableSchemas, relpath: str, frame: pd.DataFrame) -> None:
    """Validate the CSV ``relpath`` (relative to the project root) against its schema.

    Raises :class:`TableSchemaError` naming the table when it has no schema, or naming
    every column and check it breaks (at most ten, with an example value each).
    """
    schema = schemas.schema_for(relpath, frame)
    if schema is None:
        raise TableSchemaError(f"{relpath}: no schema; declare its columns in the schemas.yaml of "
                               "the stage that writes it")
    try:
        schema.validate(frame, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases.drop_duplicates(["column", "check"]).head(10)
        broken = "; ".join(f"column {c.column}: {c.check} (e.g. {c.failure_case!r})"
                           for c in cases.itertuples())
        raise TableSchemaError(f"{relpath}: breaks its schema: {broken}") from None


def write_outputs(paths: StagePaths, out: StageOutputs) -> list[str]:
    """Write every output of a stage; return the paths written, relative to the root."""
    csvs = {target: frame for target, frame in (
        *((paths.processed_file(n), f) for n, f in out.processed.items()),
        *((paths.table(n), t) for n, t in out.tables.items()))
        if target.suffix == ".csv" and isinstance(frame, pd.DataFrame)}
    for target, frame in csvs.items():
        check_table(out.schemas, target.relative_to(paths.root).as_posix(), frame)
    written = []
    for name, frame in out.processed.items():
        target = paths.processed_file(name)
        written.append(write_parquet(target, frame) if name.endswith(".parquet")
                       else write_csv(target, frame))
    if out.quality is not None:
        written.append(write_json(paths.quality, out.quality))
    for name, table in out.tables.items():
        target = paths.table(name)
        if isinstance(table, pd.DataFrame):
            write_csv(target, table)
        else:
            write_text(target, table if table.endswith("\n") else table + "\n")
        written.append(target)
    for name, draw in out.figures.items():
        written += save_figure(draw(), paths.figure(name))
    for target, data in ((paths.vars, out.website_vars), (paths.reproduced, out.claim_values),
                         (paths.metrics, out.metrics)):
        if data is not None:
            written.append(write_json(target, data))
    return sorted(p.relative_to(paths.root).as_posix() for p in written)
