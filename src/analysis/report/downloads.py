"""The site's downloads: every table the pipeline wrote, safe to open in a spreadsheet,
each with a data dictionary.

Copied into ``report/downloads/``: the processed data (``data/processed/clean/issues.csv``,
``rejected.csv``, ``quality.json``; ``excluded.csv`` and ``exclusions.csv`` when the dump
records exclusions), the scorecard and every ``report/tables/*.csv``. A
CSV cell that a spreadsheet would run as a formula (one that begins with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return, and is not a plain number) gets a leading
apostrophe, the OWASP rule against CSV injection; the untouched files stay in
``data/processed/`` and ``report/tables/``. The Data page lists every file with its size,
full SHA-256 and a data dictionary (column, type, meaning, example) generated from the
pandera schemas of :mod:`analysis.core.table_schemas`.
"""

from __future__ import annotations

import csv
import io
import shutil
from itertools import repeat
from pathlib import Path, PurePath

import pandas as pd
import pandera.pandas as pa

from analysis.core.artifacts import atomic_folder, sha256_file, write_json
from analysis.core.csvtext import csv_line
from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load
from analysis.core.table_schemas import data_dictionary, schema_for
from analysis.core.textsafe import FORMULA_START, neutralise_cell
from analysis.report.datapackage import datapackage, resource
from analysis.report.htmlsafe import (
    breakable,
    details_block,
    details_html,
    esc,
    hash_html,
    html_table,
    raw_html_block,
)

PACKAGE_TITLE = ("Reproduction of Mu et al. (arXiv:2506.13114): processed labels, scorecard "
                 "and the analysis tables")
PACKAGE_DESCRIPTION = ("The downloads of the reproduction site: every file is a resource; "
                       "each CSV's table schema is derived from the pandera schema that "
                       "checks it in the pipeline (analysis.core.table_schemas).")
PACKAGE_WHAT = ("the Frictionless data package of these files: each CSV's columns with "
                "their types, meanings and constraints, and every file's size and SHA-256 "
                "(`frictionless validate datapackage.json` checks them)")


def processed_downloads(paths: Paths) -> list[tuple[Path, str, str]]:
    """(source, name under downloads/, what it holds) of the processed data and the
    scorecard; the excluded candidates and the per-project exclusions too when the dump
    records any (:func:`records_exclusions`; the paper's release records none)."""
    return [
        (paths.clean.processed_file("issues.csv"), "data/issues.csv",
         "one row per labelled issue: all annotators' labels, final label, type, theme, "
         "year, flags"),
        (paths.clean.processed_file("rejected.csv"), "data/rejected.csv",
         "rows set aside by the cleaning rules, with the reason"),
        *([(paths.clean.processed_file("excluded.csv"), "data/excluded.csv",
            "every candidate excluded as a false positive, as the dump records it"),
           (paths.clean.exclusions_csv, "data/exclusions.csv",
            "per project: the counts Table I's false-positive rate is computed from")]
          if records_exclusions(paths) else []),
        (paths.clean.quality, "data/quality.json",
         "the quality report: row accounting, every anomaly, the rules"),
        (paths.findings.table("scorecard.csv"), "scorecard.csv",
         "every number the paper prints beside ours, with the verdict"),
    ]


def records_exclusions(paths: Paths) -> bool:
    """Whether the clean stage counted excluded candidates (``excluded.csv`` has a row)."""
    path = paths.clean.processed_file("excluded.csv")
    if not path.is_file():
        return False
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        next(rows, None)  # the header
        return next(rows, None) is not None


def neutralise_csv(src: Path, dest: Path) -> int:
    """Copy a CSV with every cell neutralised; return the number of cells changed.

    Only a cell that starts like a formula can change, so a row without one (nearly
    all of them) is written as it was read, without looking at each cell again."""
    changed = 0
    with src.open(encoding="utf-8", newline="") as fin, \
            dest.open("w", encoding="utf-8", newline="") as fout:
        for row in csv.reader(fin):
            if any(map(str.startswith, row, repeat(FORMULA_START))):
                out = [neutralise_cell(c) for c in row]
                changed += sum(a != b for a, b in zip(row, out, strict=True))
                row = out
            fout.write(csv_line(row))
    return changed


def downloadable(paths: Paths) -> list[tuple[str, str, str]]:
    """(source relative to the root, name under downloads/, what it holds) of every file
    offered."""
    out = [(src.relative_to(paths.root).as_posix(), name, what)
           for src, name, what in processed_downloads(paths) if src.is_file()]
    for stage in paths.stages():
        for csv_path in sorted(stage.tables.glob("*.csv")) if stage.tables.is_dir() else []:
            if csv_path == paths.findings.table("scorecard.csv"):
                continue
            source = csv_path.relative_to(paths.root).as_posix()
            out.append((source, f"tables/{stage.name}/{csv_path.name}",
                        table_description(paths, source)))
    return out


def table_description(paths: Paths, source: str) -> str:
    """What a table holds: its schema's description, else the file's name."""
    schema, _ = csv_schema(paths, source)
    return (schema is not None and (schema.description or "").strip()
            or f"the table {PurePath(source).name}")


def csv_schema(paths: Paths, source: str) -> tuple[pa.DataFrameSchema | None, pd.DataFrame]:
    """The pandera schema of a CSV of the pipeline (None if it has none) and the first rows
    it was looked up with (a few schemas name the columns a table lists in its rows)."""
    frame = pd.read_csv(paths.root / source, dtype=str, keep_default_na=False, nrows=200)
    return schema_for(source, frame), frame


def dictionary_html(schema: pa.DataFrameSchema | None, frame: pd.DataFrame) -> str:
    """The data dictionary of one CSV as an escaped table (empty if it has no schema)."""
    if schema is None:
        return ""
    return html_table(data_dictionary(schema, frame), numeric=[],
                      classes="table compact dictionary cards")


def write_downloads(paths: Paths, dest: Path) -> str:
    """Fill ``dest`` (replaced whole) with the downloads and their data package
    (``datapackage.json``), and return the Data page's include listing them."""
    rows, dictionaries, neutralised, resources = [], [], 0, []

    def row(name: str, target: Path, what: str) -> dict:
        return {"name": name,
                "file": f'<a href="downloads/{esc(name)}" download>{breakable(name)}</a>',
                "what it holds": esc(what), "bytes": f"{target.stat().st_size:,}",
                "SHA-256": hash_html(sha256_file(target))}

    with atomic_folder(dest) as tmp:
        for source, name, what in downloadable(paths):
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            schema = None
            if name.endswith(".csv"):
                neutralised += neutralise_csv(paths.root / source, target)
                schema, head = csv_schema(paths, source)
                dictionary = dictionary_html(schema, head)
                if dictionary:
                    dictionaries.append((name, dictionary))
            else:
                shutil.copyfile(paths.root / source, target)
            resources.append(resource(name, target, what, schema))
            rows.append(row(name, target, what))
        package = write_json(tmp / "datapackage.json", datapackage(
            resources, PACKAGE_TITLE, PACKAGE_DESCRIPTION, read_yaml_or_empty(paths.citation),
            read_yaml_or_empty(paths.provenance)))
        rows.append(row("datapackage.json", package, PACKAGE_WHAT))
    return downloads_include(rows, dictionaries, neutralised)


def read_yaml_or_empty(path: Path) -> dict:
    """A YAML (or JSON) mapping, empty when the file is missing (a dump's test project)."""
    return (safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}


def download_groups(rows: list[dict]) -> list[tuple[str | None, list[dict]]]:
    """The download rows by group, in their order: the files outside ``tables/`` first
    (group None), then one group per stage (``tables/<stage>/...``)."""
    groups: dict[str | None, list[dict]] = {None: []}
    for row in rows:
        parts = row["name"].split("/")
        stage = parts[1] if parts[0] == "tables" and len(parts) > 2 else None
        groups.setdefault(stage, []).append(row)
    return [(k, v) for k, v in groups.items() if v]


def downloads_include(rows: list[dict], dictionaries: list[tuple[str, str]],
                      neutralised: int) -> str:
    """The Data page's listing: the processed data, scorecard and data package, then each
    stage's tables folded behind their count, the spreadsheet rule, and the data
    dictionaries (those of a stage's tables folded together)."""
    out = io.StringIO()
    for stage, mine in download_groups(rows):
        frame = pd.DataFrame(mine, columns=["file", "what it holds", "bytes", "SHA-256"])
        block = html_table(frame, numeric=["bytes"], classes="table compact downloads cards",
                           raw_columns=("file", "what it holds", "SHA-256"))
        if stage is None:
            out.write(raw_html_block(block))
        else:
            out.write(details_block(f"Tables of the {stage} stage ({len(mine):,} files)",
                                    block))
    out.write(raw_html_block(
        f"<p>Cells that a spreadsheet would run as a formula (beginning with <code>=</code>, "
        f"<code>+</code>, <code>-</code>, <code>@</code>, a tab or a carriage return, and "
        f"not a number) are written with a leading apostrophe in these copies "
        f"({neutralised:,} cells in this build); the untouched files are "
        f"<code>data/processed/</code>, <code>report/tables/</code> and "
        f"<code>report/tables/findings/scorecard.csv</code> of a run of the pipeline.</p>"))
    by_stage = download_groups([{"name": n, "html": d} for n, d in dictionaries])
    for stage, mine in by_stage:
        blocks = "".join(details_html(f"Data dictionary of {d['name']}", d["html"],
                                      "callout callout-note dictionary") for d in mine)
        if stage is None:
            out.write(raw_html_block(blocks))
        else:
            out.write(details_block(f"Data dictionaries of the {stage} stage's tables "
                                    f"({len(mine):,})", blocks, classes="dictionaries"))
    return out.getvalue()
