"""The one check of an issue's creation date, shared by select, labels merge, labels
extend and ingest: what one of them accepts, the next accepts, and the clean stage can
hold.

Why a range: a date the clean stage cannot hold must be refused where it enters, in one
line, not found by the clean stage's schema after select, merge, extend and ingest
passed it. The processed issues' years must lie in 1970-2100 (the schema), pandas'
times in 1677-09-21 .. 2262-04-11, and a year of fewer than four digits would name a year
file no reader finds (``vllm_1.txt``). Issues on GitHub (2008) and Gitee (2013) are
younger than :data:`FIRST_YEAR`; :data:`LAST_YEAR` is the schema's bound.
"""

from __future__ import annotations

import datetime as dt
import re

FIRST_YEAR = 2008
LAST_YEAR = 2100
RANGE_TEXT = f"{FIRST_YEAR}-{LAST_YEAR}"
ISO_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def year_problem(year: int) -> str | None:
    """Why ``year`` cannot be an issue's year in a study (outside :data:`FIRST_YEAR` ..
    :data:`LAST_YEAR`); None when it can."""
    if FIRST_YEAR <= year <= LAST_YEAR:
        return None
    return f"the year {year} is outside the years an issue may have ({RANGE_TEXT})"


def date_problem(text: object) -> str | None:
    """Why ``text`` cannot be an issue's creation date (ISO: ``YYYY-MM-DD``, a time may
    follow): not such a date, a day that does not exist (``2024-02-30``), or a year
    outside :data:`FIRST_YEAR` .. :data:`LAST_YEAR`; None when it can be."""
    m = ISO_DATE_RE.match(text.strip()) if isinstance(text, str) else None
    if m is None:
        return f"{str(text)[:40]!r} is not an ISO date (YYYY-MM-DD)"
    year, month, day = map(int, m.groups())
    try:
        dt.date(year, month, day)
    except ValueError:
        return f"{m.group(0)} is not a day of the calendar"
    problem = year_problem(year)
    return None if problem is None else f"{m.group(0)}: {problem}"
