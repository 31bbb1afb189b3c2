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
from pathlib import Path

import pandas as pd

from analysis.core.artifacts import atomic_folder, sha256_file
from analysis.core.paths import Paths
from analysis.core.table_schemas import data_dictionary, schema_for
from analysis.core.textsafe import neutralise_cell
from analysis.report.htmlsafe import esc, html_table, raw_html_block


def processed_downloads(paths: Paths) -> list[tuple[Path, str, str]]:
    """(source, name under downloads/, what it holds) of the processed data and the
    scorecard; the excluded candidates and the per-project exclusions too when the dump
    records any (:func:`records_exclusions`; the paper's release records none)."""
    return [
        (paths.clean.issues_csv, "data/issues.csv",
         "one row per labelled issue: all annotators' labels, final label, type, theme, "
         "year, flags"),
        (paths.clean.rejected_csv, "data/rejected.csv",
         "rows set aside by the cleaning rules, with the reason"),
        *([(paths.clean.excluded_csv, "data/excluded.csv",
            "every candidate excluded as a false positive, as the dump records it"),
           (paths.clean.exclusions_csv, "data/exclusions.csv",
            "per project: the counts Table I's false-positive rate is computed from")]
          if records_exclusions(paths) else []),
        (paths.clean.quality, "data/quality.json",
         "the quality report: row accounting, every anomaly, the rules"),
        (paths.findings.scorecard, "scorecard.csv",
         "every number the paper prints beside ours, with the verdict"),
    ]


def records_exclusions(paths: Paths) -> bool:
    """Whether the clean stage counted excluded candidates (``excluded.csv`` has a row)."""
    path = paths.clean.excluded_csv
    if not path.is_file():
        return False
    with path.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle)
        next(rows, None)  # the header
        return next(rows, None) is not None


def neutralise_csv(src: Path, dest: Path) -> int:
    """Copy a CSV with every cell neutralised; return the number of cells changed."""
    changed = 0
    with src.open(encoding="utf-8", newline="") as fin, \
            dest.open("w", encoding="utf-8", newline="") as fout:
        writer = csv.writer(fout, lineterminator="\n")
        for row in csv.reader(fin):
            out = [neutralise_cell(c) for c in row]
            changed += sum(a != b for a, b in zip(row, out, strict=True))
            writer.writerow(out)
    return changed


def downloadable(paths: Paths) -> list[tuple[str, str, str]]:
    """(source relative to the root, name under downloads/, what it holds) of every file
    offered."""
    out = [(src.relative_to(paths.root).as_posix(), name, what)
           for src, name, what in processed_downloads(paths) if src.is_file()]
    for stage in paths.stages():
        for csv_path in sorted(stage.tables.glob("*.csv")) if stage.tables.is_dir() else []:
            if csv_path == paths.findings.scorecard:
                continue
            out.append((csv_path.relative_to(paths.root).as_posix(),
                        f"tables/{stage.name}/{csv_path.name}",
                        f"a table of the {stage.name} stage"))
    return out


def dictionary_html(paths: Paths, source: str) -> str:
    """The data dictionary of one CSV as an escaped table (empty if it has no schema)."""
    frame = pd.read_csv(paths.root / source, dtype=str, keep_default_na=False, nrows=200)
    schema = schema_for(source, frame)
    if schema is None:
        return ""
    return html_table(data_dictionary(schema, frame), numeric=[],
                      classes="table compact dictionary")


def write_downloads(paths: Paths, dest: Path) -> str:
    """Fill ``dest`` (replaced whole) and return the Data page's include listing it."""
    rows, dictionaries, neutralised = [], [], 0
    with atomic_folder(dest) as tmp:
        for source, name, what in downloadable(paths):
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".csv"):
                neutralised += neutralise_csv(paths.root / source, target)
                dictionary = dictionary_html(paths, source)
                if dictionary:
                    dictionaries.append((name, dictionary))
            else:
                shutil.copyfile(paths.root / source, target)
            rows.append({"file": f'<a href="downloads/{esc(name)}" download>{esc(name)}</a>',
                         "what it holds": esc(what),
                         "bytes": f"{target.stat().st_size:,}",
                         "SHA-256": f'<code class="hash">{sha256_file(target)}</code>'})
    return downloads_include(rows, dictionaries, neutralised)


def downloads_include(rows: list[dict], dictionaries: list[tuple[str, str]],
                      neutralised: int) -> str:
    frame = pd.DataFrame(rows, columns=["file", "what it holds", "bytes", "SHA-256"])
    out = io.StringIO()
    out.write(raw_html_block(html_table(frame, numeric=["bytes"],
                                        classes="table compact downloads",
                                        raw_columns=("file", "what it holds", "SHA-256"))))
    out.write(raw_html_block(
        f"<p>Cells that a spreadsheet would run as a formula (beginning with <code>=</code>, "
        f"<code>+</code>, <code>-</code>, <code>@</code>, a tab or a carriage return, and "
        f"not a number) are written with a leading apostrophe in these copies "
        f"({neutralised:,} cells in this build); the untouched files are "
        f"<code>data/processed/</code>, <code>report/tables/</code> and "
        f"<code>report/tables/findings/scorecard.csv</code> of a run of the pipeline.</p>"))
    for name, dictionary in dictionaries:
        out.write(raw_html_block(
            f'<details class="callout callout-note dictionary"><summary class="callout-title">'
            f"Data dictionary of {esc(name)}</summary><div class=\"callout-body\">"
            f"{dictionary}</div></details>"))
    return out.getvalue()
