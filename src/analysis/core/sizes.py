"""Sizes in bytes as people write them (``128MiB``, ``8GiB``) and as messages show them.

Limits on what a command reads (the longest line, the decompressed size of a file, the
uncompressed size of a workbook) are options a user may raise; they are given and shown
in binary units, the units ``ls -lh`` and ``du -h`` use.
"""

from __future__ import annotations

import re

from analysis.core.errors import InputError

KiB = 1 << 10
MiB = 1 << 20
GiB = 1 << 30
TiB = 1 << 40
UNITS = {"": 1, "b": 1, "k": KiB, "kib": KiB, "m": MiB, "mib": MiB, "g": GiB, "gib": GiB,
         "t": TiB, "tib": TiB}
SIZE_RE = re.compile(r"^\s*(\d+)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes from ``text``: a whole number, optionally with a binary unit (``K``/``KiB``,
    ``M``/``MiB``, ``G``/``GiB``, ``T``/``TiB``; any letter case). ValueError (with what is
    accepted) for anything else or for less than one byte."""
    m = SIZE_RE.match(text)
    unit = UNITS.get(m.group(2).lower()) if m else None
    if unit is None or int(m.group(1)) < 1:
        raise ValueError(f"not a size: {text!r} (write e.g. 134217728, 128MiB or 8GiB)")
    return int(m.group(1)) * unit


def size_text(n: int) -> str:
    """``n`` bytes in the largest binary unit that divides it (``128 MiB``), else bytes."""
    for unit, name in ((TiB, "TiB"), (GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit:,} {name}"
    return f"{n:,} bytes"


# What one file of a batch's records (labels/<batch>/: a sheet, a decisions file, the
# candidates) may hold, whichever reader reads it; Excel's own bounds for rows and columns,
# so a CSV holds no more than the .xlsx it could be saved as. docs/guarantees.md states them.
MAX_RECORD_BYTES = 64 * MiB  # a sheet of 10,000 reports with 4,000-character titles: ~45 MB
MAX_EXPORT_BYTES = 512 * MiB  # a Label Studio export (read task by task): 10,000 tasks ~150 MB
MAX_COLUMNS = 16_384  # Excel's columns, A to XFD
MAX_ROWS = 1_048_576  # Excel's rows
MAX_CELLS = 5_000_000  # 500,000 rows of 10 columns


def over_limit(file: str, what: str, limit: int, fix: str) -> InputError:
    """The one-line refusal of a file over one of the limits above (``what``: "bytes",
    "columns"...; the limit shown in binary units for bytes)."""
    shown = size_text(limit) if what == "bytes" else f"{limit:,} {what}"
    return InputError(f"holds more than {shown}, the limit for a file of a batch's records",
                      file=file, fix=fix)
