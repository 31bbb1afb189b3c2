"""The one table the merge works on: every annotation of every annotator, whatever it was
read from.

Each reader turns its input into this table: a filled sheet
(:func:`analysis.update.labels.readers.read_sheet`: one annotator) and a Label Studio export
(:func:`analysis.update.labels.studio.read_export`: every annotator of the project). One row is
one annotator's answer on one issue (:data:`COLUMNS`):

    url, project, created_at, title    the issue (as the sheet or the task holds it)
    annotator      the annotator's name, ``#k`` for annotators given by number
    label          a theme code, or empty (excluded without a label, or unsure)
    excluded       True for a false positive
    unsure         True when the annotator could not decide (no theme: never a rating)
    confidence     low, medium, high, or empty
    comment        the annotator's comment
    seconds        the time spent (a sheet's minutes, Label Studio's lead time), or None
    selection      the selection the row says it is of
    where          where the row is, for messages (``line 5``, ``task 12``)

A :class:`Read` is what one input gave: its table, the cells of columns an annotator added
(kept as comments), the :class:`Source` (what the file was: kind, SHA-256, encoding...),
and its problems, one message each. The merge (:mod:`analysis.update.labels.merge`) checks the
tables together (:mod:`analysis.update.labels.checks`) and combines them; nothing in it depends
on which reader a row came from, so the same answers give the same batch from sheets or
from Label Studio.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import pandas as pd

from analysis.core.errors import InputError
from analysis.update.labels.codebook import CONFIDENCE, EXCLUDED, UNSURE

COLUMNS = ["url", "project", "created_at", "title", "annotator", "label", "excluded",
           "unsure", "confidence", "comment", "seconds", "selection", "where"]
EXTRA_COLUMNS = ["project", "url", "annotator", "column", "text"]
TRUE_WORDS = frozenset({"x", "yes", "y", "true", "1", EXCLUDED})
FALSE_WORDS = frozenset({"", "no", "n", "false", "0"})
CODE_RE = re.compile(r"[A-Za-z]\.\d+")
CODE_NAME_RE = re.compile(r"([A-Za-z]\.\d+)\s+[^\d\s].*", re.S)  # a code and its name
LOWER_CODE_RE = re.compile(r"[a-z]\.\d+")
ISO_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass
class Source:
    """One input as read: a filled sheet (one annotator) or a Label Studio export (its
    project's annotators). ``facts``: how it was saved or exported (encoding, delimiter,
    rows, blank rows, codes in lower case, added columns, cancelled annotations...)."""

    name: str  # the file as the user named it
    kind: str  # csv | xlsx | label-studio
    sha256: str
    annotators: list[str] = field(default_factory=list)
    selection: str = ""
    facts: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass
class Read:
    """What one reader gave: the annotations, the cells of added columns, the source and
    the problems of its rows (the merge writes nothing while there is one)."""

    source: Source
    table: pd.DataFrame
    extras: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=EXTRA_COLUMNS))
    problems: list[InputError] = field(default_factory=list)


def empty_table() -> pd.DataFrame:
    return pd.DataFrame(columns=COLUMNS)


def parse_excluded(value: str) -> bool | None:
    """An ``excluded`` cell as a yes/no (case and spaces ignored); None if unreadable."""
    word = value.strip().casefold()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    return None


def normalise_code(value: str) -> str:
    """A label cell as a theme code: spaces trimmed, the type letter upper-case (``c.3``
    is ``C.3``), a code followed by its theme's name (a workbook's drop-down) the code,
    ``Excluded``/``UNSURE`` as the words; anything else is kept as written for the
    checks to judge."""
    code = value.strip()
    if code.casefold() in (EXCLUDED, UNSURE):
        return code.casefold()
    named = CODE_NAME_RE.fullmatch(code)  # a workbook's drop-down: "A.1 Unclear ..."
    code = named.group(1) if named else code
    return code[:1].upper() + code[1:] if CODE_RE.fullmatch(code) else code


def lowercase_codes(labels: pd.Series) -> int:
    """How many label cells hold a code written in lower case (``c.3``)."""
    return int(labels.str.strip().str.fullmatch(LOWER_CODE_RE.pattern).sum())


def parse_confidence(value: str) -> str | None:
    """A confidence cell: low, medium, high (any case) or empty; None if unreadable."""
    word = value.strip().casefold()
    return word if word in ("", *CONFIDENCE) else None


def parse_minutes(value: str) -> int | None | bool:
    """A minutes cell as whole seconds (``1.5`` and ``1,5`` are 90), None when empty,
    False when it is no number of minutes (negative, not a number)."""
    text = value.strip().replace(",", ".")
    if not text:
        return None
    try:
        minutes = float(text)
    except ValueError:
        return False
    if not minutes >= 0 or minutes == float("inf"):
        return False
    return round(minutes * 60)


def answer(label: str, excluded: bool) -> dict:
    """A label cell (normalised) and an exclusion mark as the table's answer: ``excluded``
    written as the label excludes; ``unsure`` is no label."""
    if label == EXCLUDED:
        return {"label": "", "excluded": True, "unsure": False}
    if label == UNSURE:
        return {"label": "", "excluded": excluded, "unsure": True}
    return {"label": label, "excluded": excluded, "unsure": False}


def created_at_by_url(table: pd.DataFrame) -> dict[str, set[str]]:
    """url -> the ISO creation dates the inputs give it (a spreadsheet program may have
    reformatted the column in some sheets; those values are not ISO and are not used)."""
    found: dict[str, set[str]] = defaultdict(set)
    for url, created in zip(table["url"], table["created_at"].str.strip(), strict=True):
        found[url]  # noqa: B018 (every URL gets an entry, even without a date)
        if ISO_DATE_RE.match(created):
            found[url].add(created)
    return dict(found)
