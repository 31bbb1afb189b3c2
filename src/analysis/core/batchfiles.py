"""A batch's records (``labels/<batch>/``) read as a dump is: regular files only, each
opened once without following links, each within the size limits of
:mod:`analysis.core.sizes`.

A batch's records are files anyone may commit: untrusted input, like a dump. The folder
is walked first (:func:`walk_records`, with :func:`analysis.core.dumpfiles.walk_dump`):
the folder itself or anything in it that is a symbolic link (to a file or to a folder),
a hard link, a FIFO, a socket or a device, a name with control characters, and a file
over its byte limit (:func:`byte_limit`) are refused in one line naming it, before any
file is opened. A file is then read once (:func:`read_record`), without following links,
only if it is still the file the walk checked, and never past its limit. The pipeline's
driver checks the whole ``labels/`` folder so before DVC hashes it (:func:`check_labels`):
DVC would block for ever on a FIFO there.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from analysis.core.dumpfiles import (
    DumpFiles,
    open_dump_file,
    plain_file,
    read_at_most,
    walk_dump,
)
from analysis.core.errors import InputError
from analysis.core.sizes import MAX_EXPORT_BYTES, MAX_RECORD_BYTES, over_limit
from analysis.core.textsafe import visible

RECORDS_MAX_FILES = 10_000  # files and folders of labels/ or of a batch: a batch has ~10
ONLY_FILES = ("a batch's records hold regular files only: put the file itself there (not a "
              "link, a FIFO or a device), or remove it")
SIZE_FIX = ("split the batch into smaller ones (select --out labels/<batch>), or check that "
            "this is the file the team wrote")


def byte_limit(rel: str) -> int:
    """The most bytes the file ``rel`` of a batch's records may hold: a Label Studio
    export (``studio/export.json``) is read whole, with the larger limit; every other
    file (sheets, decisions, candidates, records) the smaller."""
    path = PurePosixPath(rel)
    return MAX_EXPORT_BYTES if (path.parent.name, path.name) == ("studio", "export.json") \
        else MAX_RECORD_BYTES


def check_folder(folder: Path, shown: str) -> None:
    """Refuse a records folder that is a symbolic link or not a folder (``shown``: how
    messages name it); the ``OSError`` of a folder that is not there, for the caller."""
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode):
        raise InputError("the records' folder is a symbolic link", file=shown,
                         fix="put the records themselves in the folder, not a link to "
                             "them (links are never followed)")
    if not stat.S_ISDIR(info.st_mode):
        raise InputError("is not a folder", file=shown,
                         fix="a batch's records are a folder: labels/<batch>/")


def walk_records(folder: Path, reader: str, shown: str | None = None) -> DumpFiles:
    """The records' ``folder`` walked and checked (see the module docstring); messages
    name entries by their path under ``shown`` (default: ``folder`` as given), and
    ``reader``."""
    folder = Path(folder)
    shown = shown or str(folder)
    check_folder(folder, shown)
    try:
        found = walk_dump(folder, RECORDS_MAX_FILES, where=shown)
    except InputError as exc:
        special = any(w in exc.problem for w in ("link", "FIFO", "not a regular"))
        raise InputError(exc.problem.replace("source ", "", 1), file=exc.file,
                         fix=ONLY_FILES if special else exc.fix) from exc
    for rel, item in found.files.items():
        limit = byte_limit(rel)
        if os.lstat(item.path).st_size > limit:
            raise over_limit(f"{shown}/{visible(rel)}", "bytes", limit, SIZE_FIX)
    return DumpFiles(folder, found.files, frozenset(found.folders), tuple(found.ignored),
                     reader)


def read_record(walk: DumpFiles, path: Path | str) -> bytes:
    """The bytes of one file of the walked records, read once as checked, never past its
    limit (a file grown since the walk is refused as one over it)."""
    rel = walk.rel(path)
    limit = byte_limit(rel)
    with walk.open(rel) as fh:
        data = read_at_most(fh, walk.item(rel).path, limit)
    if data is None:
        raise over_limit(walk.shown(rel), "bytes", limit, SIZE_FIX)
    return data


def read_record_file(path: Path, reader: str, limit: int = MAX_RECORD_BYTES,
                     shown: str | None = None) -> bytes | None:
    """The bytes of one file named by a path (a sheet, a decisions file or an export
    given on the command line), read as a batch's records are: a single-named regular
    file (:func:`~analysis.core.dumpfiles.plain_file`), opened once without following
    links, never read past ``limit`` (None when it holds more). Messages name it as
    ``shown`` and ``reader``; the ``OSError`` of a file that is not there, for the
    caller."""
    item = plain_file(Path(path))
    with open_dump_file(Path(path).name, item, reader, shown or str(path)) as fh:
        return read_at_most(fh, item.path, limit)


def check_labels(root: Path, records: str = "labels") -> None:
    """Check the project's whole records folder (``root/records``, when there is one) as
    :func:`walk_records` checks a batch's: the folder DVC hashes for the ``batches``
    stage, every batch listed or not."""
    folder = root / records
    if folder.exists() or folder.is_symlink():
        walk_records(folder, "the pipeline", records)
