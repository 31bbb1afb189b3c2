"""The agreement stage's inputs: the processed issues table, read lean, and on a study
the clean stage's table of its people.

Only the columns the stage needs are read, and the label columns come dictionary-encoded
(categorical), so a dump of millions of issues costs little memory and no string work
before :func:`analysis.agreement.ratings.encode_ratings` turns them into integer codes.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from analysis.agreement.ratings import annotator_columns
from analysis.core.errors import InputError

REQUIRED = ("project", "year", "type", "final_label")


def load_issues(path: str | Path) -> pd.DataFrame:
    """The columns the stage needs (``REQUIRED`` and every ``annotator_<n>``), the label,
    type and project columns read as categoricals.

    A missing file or column is an :class:`InputError` saying which stage to rerun.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("processed issues table not found", file=str(path),
                         fix="run the clean stage first (`dvc repro clean`)")
    names = pq.read_schema(path).names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise InputError(f"missing columns {missing}", file=str(path),
                         fix="rebuild it with the clean stage of this version")
    annotators = annotator_columns(names, file=str(path))
    cats = [*annotators, "final_label", "type", "project"]
    batch = ["batch"] if "batch" in names else []  # a study dump's batch of each row
    table = pq.read_table(path, columns=[*REQUIRED, *annotators, *batch],
                          read_dictionary=cats)
    return table.to_pandas()


def load_people(path: str | Path) -> pd.DataFrame | None:
    """The clean stage's ``people.csv`` (a study's: batch, label_column, annotator, name,
    every cell text, an empty name ``""``), or None when it is absent (a dump without
    batches: the clean stage writes none)."""
    path = Path(path)
    if not path.is_file():
        return None
    return pd.read_csv(path, dtype=str, keep_default_na=False)
