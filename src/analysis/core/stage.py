"""The contract every analysis stage keeps: what it writes, and where.

A stage computes a result (its own dataclass) from its inputs, then its ``outputs`` module
turns that result into the same things, by functions of the same names (a stage without
one of them leaves it out):

- ``processed(result)``     file name -> DataFrame (Parquet or CSV by its suffix), processed
                            data for later stages, into ``data/processed/<stage>/``;
- ``quality(result)``       the quality report of the files the stage read (row accounting,
                            anomalies), ``data/processed/<stage>/quality.json``;
- ``tables(result)``        file name -> DataFrame (written as CSV) or text (Markdown/HTML),
                            into ``report/tables/<stage>/``;
- ``figures(result)``       figure name -> a function drawing it, into
                            ``report/figures/<stage>/`` (SVG and PNG);
- ``website_vars(result)``  numbers and texts for the website, ``report/vars/<stage>.json``;
- ``claim_values(result)``  the paper's numbers as reproduced, by claim id,
                            ``data/reproduced/<stage>.json``;
- ``metrics(result)``       headline numbers for ``dvc metrics``, ``metrics/<stage>.json``.

:func:`write_outputs` writes them, each atomically and deterministically (fixed float
precision, sorted keys), and checks that every file name is one the stage's paths list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from analysis.core.artifacts import write_csv, write_json, write_parquet, write_text
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


def write_outputs(paths: StagePaths, out: StageOutputs) -> list[str]:
    """Write every output of a stage; return the paths written, relative to the root."""
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
