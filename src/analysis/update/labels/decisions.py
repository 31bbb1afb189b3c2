"""The adjudicators' decisions: an input of the merge, never an edit of its output.

    python -m analysis.update.labels merge SHEET ... --out BATCH --decisions FILE

``FILE`` is any CSV or Excel workbook (read as the sheets are:
:func:`analysis.update.labels.tables.read_table`) with the columns ``url`` and ``decision``;
the merge's own ``labels/adjudication.csv``, with its ``decision`` column filled in a
spreadsheet program, is one. A decision is a theme code of the taxonomy (``C.3``; written
in lower case, it is read as the code and counted) or ``excluded`` (the report is a false
positive); an empty cell leaves the report undecided. Other columns are not read.

Each problem is one line (file, line, column, what, what to do): a value that is neither
a code nor ``excluded``, one URL given two different decisions, and (checked by the merge,
:func:`unused_problems`) a decision for a URL no sheet lists or for a report that is not
on the adjudication list. Every problem of the file is reported in one run, each kind
cut after :data:`~analysis.update.labels.checks.MAX_LISTED` as the sheets' are. Because the
decisions are a file the merge reads, a rerun with ``--force`` gives the same batch, byte
for byte, and loses no decision.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis.core.errors import InputError
from analysis.update.labels.annotations import lowercase_codes, normalise_code
from analysis.update.labels.checks import capped
from analysis.update.labels.tables import read_table

EXCLUDED = "excluded"
KEYS = ("url", "decision")
FIX = ("write a theme code of sheets/codebook.csv (A.1 ... C.10), or excluded for a false "
       "positive, or leave the cell empty while undecided")


@dataclass
class Decisions:
    """The decisions of one file, by URL: (decision, line). ``path``: the file as the user
    named it (in messages); ``name``: its file name (in the merge's record)."""

    path: str
    name: str
    sha256: str
    rows: int = 0
    by_url: dict[str, tuple[str, int]] = field(default_factory=dict)
    lowercase_codes: int = 0
    problems: list[InputError] = field(default_factory=list)

    def get(self, url: str) -> str | None:
        found = self.by_url.get(url)
        return found[0] if found else None


def read_decisions(path: Path, codes: set[str], name: str | None = None,
                   raw: bytes | None = None) -> Decisions:
    """Read a decisions file (``raw``: its bytes, when read already); the problems of its
    rows are collected in ``Decisions.problems`` (the file itself unreadable is raised)."""
    table = read_table(Path(path), name, keys=KEYS, what="decisions file",
                       fix="give the adjudication list the merge wrote "
                           "(labels/adjudication.csv), its decision column filled", raw=raw)
    columns = table.columns
    url_i, decision_i = columns.index("url"), columns.index("decision")
    found = Decisions(table.name, Path(table.name).name, table.sha256, rows=len(table.body))
    kinds: dict[str, list[InputError]] = defaultdict(list)
    cells = []
    for line, fields in table.body:
        fields = fields + [""] * max(0, len(columns) - len(fields))
        url, raw = fields[url_i].strip(), fields[decision_i].strip()
        if not raw:
            continue
        cells.append(raw)
        decision = normalise_code(raw)
        if decision != EXCLUDED and decision not in codes:
            kinds["values that are no decision"].append(InputError(
                f"{raw!r} is neither a theme code nor {EXCLUDED}", file=table.name,
                line=line, column="decision", fix=FIX))
            continue
        if not url:
            kinds["decisions without a url"].append(InputError(
                "a decision without a url", file=table.name, line=line, column="url",
                fix="keep the url of the adjudication list"))
            continue
        earlier = found.by_url.get(url)
        if earlier and earlier[0] != decision:
            kinds["reports decided twice"].append(InputError(
                f"{url} is decided {earlier[0]} on line {earlier[1]} and {decision} here",
                file=table.name, line=line, column="decision",
                fix="keep one decision per report"))
            continue
        found.by_url.setdefault(url, (decision, line))
    found.problems = capped_by_kind(kinds, table.name)
    if cells:
        found.lowercase_codes = lowercase_codes(pd.Series(cells, dtype=object))
    return found


def unused_problems(decisions: Decisions, sheet_urls: set[str],
                    listed: set[str]) -> list[InputError]:
    """A decision for a URL no sheet lists, or for a report the merge did not put on the
    adjudication list (``listed``): one line each (:func:`capped_by_kind`)."""
    kinds: dict[str, list[InputError]] = defaultdict(list)
    for url, (_, line) in decisions.by_url.items():
        if url not in sheet_urls:
            kinds["decisions for urls in no sheet"].append(InputError(
                f"{url} is in no sheet", file=decisions.path, line=line, column="url",
                fix="decide only the reports of the adjudication list (copy its url cells "
                    "as they are)"))
        elif url not in listed:
            kinds["decisions for reports not on the adjudication list"].append(InputError(
                f"{url} is not on the adjudication list (its annotators agree)",
                file=decisions.path, line=line, column="decision",
                fix="remove the decision: only reports without a majority or with a split "
                    "on exclusion are decided"))
    return capped_by_kind(kinds, decisions.path)


def capped_by_kind(kinds: dict[str, list[InputError]], file: str) -> list[InputError]:
    """The problems of one file in the order of its lines, each kind cut after
    :data:`~analysis.update.labels.checks.MAX_LISTED`
    (:func:`~analysis.update.labels.checks.capped`), then one line per cut kind saying how
    many more there are."""
    listed = [p for what, found in kinds.items() for p in capped(found, file, what)]
    return (sorted((p for p in listed if p.line is not None), key=lambda p: p.line)
            + [p for p in listed if p.line is None])
