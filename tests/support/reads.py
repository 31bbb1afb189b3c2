"""Which files an include opens, from Python's ``open`` audit events (:pep:`578`), to set
beside the artifacts it declares (:attr:`analysis.report.pages.base.Include.inputs`).

The trace sees every file opened through Python (``open``, ``Path.read_text``, pandas'
CSV reader, ``json``); a C library that opens files itself (pyarrow reading Parquet) is not
seen, and no include reads Parquet. An audit hook cannot be removed, so one hook is added
per process and records only inside :func:`recorded_opens`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.report.pages.base import Include, Inputs, Missing

_RECORDINGS: list[list[str]] = []  # the open paths of each active recording
_HOOKED: list[bool] = []


def _record(event: str, args: tuple) -> None:
    if event == "open" and _RECORDINGS and isinstance(args[0], str | bytes | os.PathLike):
        _RECORDINGS[-1].append(os.fsdecode(args[0]))


@contextmanager
def recorded_opens() -> Iterator[list[str]]:
    """The paths opened inside the block, in order."""
    if not _HOOKED:
        sys.addaudithook(_record)
        _HOOKED.append(True)
    opened: list[str] = []
    _RECORDINGS.append(opened)
    try:
        yield opened
    finally:
        _RECORDINGS.pop()


def artifacts_read(opened: Iterable[str], root: Path) -> set[str]:
    """The files of the project ``root`` among ``opened``, relative to it; the package's
    own code (``src/``, compiled modules) is no artifact."""
    root = root.resolve()
    out = set()
    for name in opened:
        path = (root / name).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if not rel.startswith("src/") and path.suffix not in (".py", ".pyc"):
            out.add(rel)
    return out


def undeclared_reads(includes: Iterable[Include], root: Path) -> dict[str, set[str]]:
    """Include name -> the artifacts of ``root`` it opened without declaring them, for
    every include that opened any. Each runs with every artifact in reach (an
    :class:`Inputs` without its declared list), so that the trace, not the include's own
    :class:`Inputs`, decides; an include whose input is missing is skipped."""
    out = {}
    for inc in includes:
        with recorded_opens() as opened:
            try:
                inc.make(Inputs(root))
            except Missing:
                continue
        extra = artifacts_read(opened, root) - set(inc.inputs)
        if extra:
            out[inc.name] = extra
    return out
