"""Reading the pinned dependencies: ``name==version`` lines, each followed by the hashes of
its files (``requirements*.txt``).

``make venv`` installs these files (the Makefile's ``SETUP``); the website's pins table and
the tests read them here.
"""

from __future__ import annotations

import re
from pathlib import Path

# Kept by make venv in the environment's folder: one line, the installer that ran, its
# version and, when pip ran, why ("uv 0.13.9", "pip 24.0 (INSTALLER=pip)").
INSTALLER_RECORD = ".installer"
_HASH = re.compile(r"\s--hash=\S+")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*==\s*([^\s;]+)")


def _entries(text: str) -> list[str]:
    """The entries of a requirements file, one string each, hashes included: continuation
    lines joined, comments and blank lines left out."""
    entries = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if line:
            entries.append(line)
    return entries


def requirement_lines(text: str) -> list[str]:
    """The requirements of a requirements file as they would be written without hashes
    (``"coverage[toml]==7.6.1 \\ --hash=sha256:..."`` gives ``"coverage[toml]==7.6.1"``)."""
    return [_HASH.sub("", f" {entry}").strip() for entry in _entries(text)]


def pins(text: str) -> dict[str, str]:
    """``{name: version}`` of the ``name==version`` pins of a requirements file (extras,
    markers and hashes aside; names as written)."""
    return {m.group(1): m.group(2) for line in requirement_lines(text)
            if (m := _PIN.match(line))}


def hashes(text: str) -> dict[str, int]:
    """How many ``--hash`` options each pin carries (0 for a pin without hashes)."""
    return {m.group(1): len(_HASH.findall(f" {entry}")) for entry in _entries(text)
            if (m := _PIN.match(entry))}


def normalise(name: str) -> str:
    """A package name as PyPI compares them (PEP 503: ``Flufl.Lock`` is ``flufl-lock``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def installer(prefix: Path) -> str:
    """The installer that set up the environment at ``prefix``, as make venv recorded it
    (``"uv 0.13.9"``, or pip and why); "not recorded" when it did not."""
    record = prefix / INSTALLER_RECORD
    lines = record.read_text(encoding="utf-8").splitlines() if record.is_file() else []
    return lines[0] if lines else "not recorded"
