"""Sizes in bytes as people write them (``128MiB``, ``8GiB``) and as messages show them.

Limits on what a command reads (the longest line, the decompressed size of a file, the
uncompressed size of a workbook) are options a user may raise; they are given and shown
in binary units, the units ``ls -lh`` and ``du -h`` use.
"""

from __future__ import annotations

import re

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
