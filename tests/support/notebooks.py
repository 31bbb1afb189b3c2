"""Reading executed notebooks (``.ipynb``): the code cell that computes a value, and the
text it shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def shown(cell: dict) -> str:
    """What a code cell shows: its ``text/plain`` results and its printed text, joined."""
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append("".join(out["text"]))
        plain = out.get("data", {}).get("text/plain")
        if plain is not None:
            parts.append("".join(plain))
    return "\n".join(parts)


def cells_computing(notebook: Path, call: str) -> list[tuple[str, str]]:
    """The code cells of an executed notebook whose source contains ``call``: (source,
    what the cell shows) each."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return [("".join(c["source"]), shown(c)) for c in nb["cells"]
            if c["cell_type"] == "code" and call in "".join(c["source"])]


def numbers_on_line(text: str, label: str) -> list[float]:
    """The numbers on the lines of ``text`` that start with ``label`` (after an index)."""
    found = []
    for line in text.splitlines():
        words = line.split()
        if label in words[:2]:
            found += [float(n) for n in NUMBER.findall(line)]
    return found
