"""Study dumps: the release extended with batches of new labels (``python -m
analysis.update.labels extend``). Their label and excluded files name each row's batch (a
``Batch`` column), and ``labels/batches.json`` records the batches: their annotator
columns and whether they record their excluded candidates. A dump without that record
(the release) is read as before, and its outputs are the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.core.dumpfiles import DumpFiles, walked
from analysis.core.errors import InputError
from analysis.core.paths import DumpLayout

RELEASE_BATCH = "release"  # the batch name of rows without a Batch cell
READER = "the clean stage"  # who reads the dump, in messages about its files
LABELS = DumpLayout(Path()).labels.name  # the study's records, beside Issue Report/


def study_batches(raw_dir: Path | DumpFiles) -> list[dict] | None:
    """The batches a study dump records (``labels/batches.json``: name, annotator columns,
    counts, whether the batch records its exclusions), or None for a dump without that
    record (the release: nothing changes for it). An unreadable record is one line."""
    dump = walked(raw_dir, READER)
    rel = f"{LABELS}/batches.json"
    if not dump.is_file(rel):
        return None
    try:
        batches = json.loads(dump.read_bytes(rel).decode("utf-8"))["batches"]
        if not all(isinstance(b, dict) and isinstance(b.get("name"), str) for b in batches):
            raise ValueError("a batch without a name")
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"cannot read the study's batches ({exc})", file=rel,
                         fix="extend the study again (python -m analysis.update.labels extend)") \
            from exc
    return batches


def batch_columns(batches: list[dict]) -> dict[str, frozenset[int]]:
    """Each batch's annotator numbers (``annotator_columns``: ``Label8``.. -> 8..)."""
    return {b["name"]: frozenset(int(c.removeprefix("Label")) for c in
                                 b.get("annotator_columns") or () if c[5:].isdigit())
            for b in batches}


Person = tuple[str, str, str | None]  # (batch, label column ``Label<n>``, name or None)
PEOPLE_COLUMNS = ["batch", "label_column", "annotator", "name"]


def batch_people(batches: list[dict]) -> tuple[Person, ...]:
    """Who labelled in each batch's columns, as the study names them: (batch, label column,
    name) per column of ``annotator_columns`` in its order, the name the same place of
    ``annotator_names`` holds, None where it holds none (the release names nobody)."""
    people = []
    for batch in batches:
        names = batch.get("annotator_names") or []
        for k, column in enumerate(batch.get("annotator_columns") or ()):
            if not (isinstance(column, str) and column.startswith("Label")
                    and column[5:].isdigit()):
                continue
            name = names[k] if k < len(names) else None
            name = name.strip() if isinstance(name, str) and name.strip() else None
            people.append((batch["name"], f"Label{int(column[5:])}", name))
    return tuple(people)


def people_frame(people: tuple[Person, ...] | None) -> pd.DataFrame | None:
    """The study's people (:func:`batch_people`) as a table: ``batch``, ``label_column``
    (``Label<n>``), ``annotator`` (its column of the issues table, ``annotator_<n>``) and
    ``name`` (empty when the study names nobody there); None outside a study."""
    if people is None:
        return None
    return pd.DataFrame([{"batch": b, "label_column": c,
                          "annotator": f"annotator_{c.removeprefix('Label')}", "name": n}
                         for b, c, n in people], columns=PEOPLE_COLUMNS, dtype=object)


def adjudicated_urls(raw_dir: Path | DumpFiles, batches: list[dict]) -> frozenset[str]:
    """The URLs whose final label is an adjudicators' decision: the rows of each batch's
    kept adjudication list (``labels/<batch>/adjudication.csv``) with a decision."""
    urls: set[str] = set()
    dump = walked(raw_dir, READER)
    for batch in batches:
        rel = f"{LABELS}/{batch['name']}/adjudication.csv"
        if not dump.is_file(rel):
            continue
        try:
            text = dump.read_bytes(rel).decode("utf-8-sig")
            rows = [r for r in csv.reader(io.StringIO(text, newline=""))
                    if r and not r[0].startswith("#")]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"cannot read the batch's adjudication list ({exc})", file=rel,
                             fix="extend the study again (python -m analysis.update.labels "
                                 "extend), or re-save the file as UTF-8 CSV") from exc
        if not rows or "url" not in rows[0] or "decision" not in rows[0]:
            continue
        u, d = rows[0].index("url"), rows[0].index("decision")
        urls |= {r[u].strip() for r in rows[1:] if len(r) > d and r[d].strip()}
    return frozenset(urls)


@dataclass(frozen=True)
class Study:
    """What the rules need to know of a study dump (:func:`read_study`); the default is a
    dump without batches (the release)."""

    adjudicated: frozenset[str] = frozenset()  # URLs whose final label is a decision
    own_columns: dict[str, frozenset[int]] | None = None  # batch -> its annotator numbers
    recording: frozenset[str] | None = None  # batches that record their exclusions
    people: tuple[Person, ...] | None = None  # who labelled in each batch's columns

    def columns_of(self, batch: str | None) -> frozenset[int] | None:
        """The annotator numbers of ``batch`` (a row without one is the release's); None
        outside a study: every column is the row's own."""
        if self.own_columns is None:
            return None
        return self.own_columns.get(batch or RELEASE_BATCH)


def read_study(raw_dir: Path | DumpFiles) -> Study:
    """The study a dump records, or :class:`Study`'s default for one without batches."""
    dump = walked(raw_dir, READER)
    batches = study_batches(dump)
    if batches is None:
        return Study()
    return Study(adjudicated_urls(dump, batches), batch_columns(batches),
                 frozenset(b["name"] for b in batches if b.get("records_exclusions")),
                 batch_people(batches))


NO_STUDY = Study()  # a dump without batches (the release)
