"""The files of a dump folder: found without opening any, then each opened once.

:func:`collect_files` walks a dump folder and applies :mod:`analysis.ingest.safety` to
every entry, looking at names and ``os.lstat`` only. :func:`copy_dump` then opens each
file once, without following links or waiting, and only if it is still the file that was
checked (:func:`open_dump_file`); it copies and hashes it in one pass, so that the
manifest is checked against (:func:`verify_against_manifest`), and the provenance records,
the bytes copied.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import re
import stat
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.core.artifacts import disk_error, sha256_stream
from analysis.core.errors import InputError
from analysis.core.params import DEFAULT_MAX_FILES
from analysis.core.textsafe import visible
from analysis.ingest.safety import (
    CHUNK,
    JUNK_DIRS,
    NameLimits,
    clash_problem,
    entry_problem,
    find_path_clash,
    is_junk,
    name_limits,
    name_problem,
    too_many_entries,
)


@dataclass(frozen=True)
class DumpFile:
    """A plain file of a dump folder, with the identity ``os.lstat`` gave it when checked."""

    path: Path
    device: int
    inode: int


# How a file of a dump is opened: never through a symbolic link (O_NOFOLLOW: a link put in
# its place since the check is refused by the system itself), and without waiting (a FIFO
# put in its place opens at once instead of blocking until a writer comes).
OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_BINARY", 0))


def before_open(rel: str, item: DumpFile) -> None:
    """Called between the check of a dump file (:func:`collect_files`) and its one opening
    (:func:`open_dump_file`); does nothing.

    It marks the moment in which someone else could replace the file, and is the hook the
    fault tests replace to do exactly that (a link to a file outside the dump, a FIFO, a
    device, another file) without depending on timing.
    """


def replaced(rel: str) -> InputError:
    """The refusal of a dump file that is no longer the file that was checked."""
    return InputError(
        "source file was replaced while ingest was reading the dump",
        file=visible(rel),
        fix="run ingest again on a dump nobody is changing",
    )


def unreadable(exc: OSError, path: Path) -> InputError:
    """The message for a file that cannot be opened or read."""
    return InputError(f"cannot read file ({exc.strerror})", file=str(path),
                      fix="check that the file exists and is readable")


@contextmanager
def open_dump_file(rel: str, item: DumpFile) -> Iterator:
    """Open a file found by :func:`collect_files` for reading, once, refusing it if it was
    replaced since.

    The walk checked the file without opening it. The one opening follows no symbolic link
    and does not block (:data:`OPEN_FLAGS`); the opened file must then be that same
    single-named regular file (the device and inode the walk saw), so the bytes read are
    the dump's, not those of a link, a FIFO, a device or another file put in its place.
    :func:`before_open` runs just before the opening.
    """
    before_open(rel, item)
    try:
        fd = os.open(item.path, OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
            raise replaced(rel) from exc
        raise unreadable(exc, item.path) from exc
    try:
        info = os.fstat(fd)
        if ((info.st_dev, info.st_ino) != (item.device, item.inode)
                or not stat.S_ISREG(info.st_mode) or info.st_nlink > 1):
            raise replaced(rel)
        if OPEN_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        fh = os.fdopen(fd, "rb")
    except OSError as exc:
        os.close(fd)
        raise unreadable(exc, item.path) from exc
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh


def sha256_dump_file(rel: str, item: DumpFile) -> str:
    """SHA-256 of a file found by :func:`collect_files` (see :func:`open_dump_file`)."""
    with open_dump_file(rel, item) as fh:
        try:
            return sha256_stream(fh)
        except OSError as exc:
            raise unreadable(exc, item.path) from exc


def copy_error(exc: OSError, source: Path, final: Path) -> Exception:
    """One message for a copy that could not be written: it names the source file and
    where the copy was going (``final``, not the staging folder, which is gone by the time
    the message is read); else ``exc``."""
    error = disk_error(exc, final)
    if not isinstance(error, InputError):
        return exc
    return InputError(f"{error.problem} the copy of {source}", file=str(final), fix=error.fix)


def copy_dump_file(rel: str, item: DumpFile, target: Path, final: Path | None = None) -> str:
    """Copy a file found by :func:`collect_files` to the new file ``target`` (see
    :func:`open_dump_file`: the file is opened once, and only if it is still the file that
    was checked) and return the SHA-256 of the bytes written, hashed as they are copied.

    ``final`` is where ``target`` will end up (``target`` itself by default); a full disk
    or an unwritable folder is one message naming the source file and ``final``.
    """
    final = final or target
    digest = hashlib.sha256()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise copy_error(exc, item.path, final) from exc
    with open_dump_file(rel, item) as src:
        try:
            out = target.open("xb")
        except OSError as exc:
            raise copy_error(exc, item.path, final) from exc
        with out:
            while True:
                try:
                    chunk = src.read(CHUNK)
                except OSError as exc:
                    raise unreadable(exc, item.path) from exc
                if not chunk:
                    return digest.hexdigest()
                digest.update(chunk)
                try:
                    out.write(chunk)
                except OSError as exc:
                    raise copy_error(exc, item.path, final) from exc


def list_folder(folder: Path, limit: int, rel: str) -> list[os.DirEntry]:
    """At most ``limit`` entries of ``folder`` (``rel`` in the dump), sorted by name.

    Reading stops at the limit, so a folder of millions of files costs no more than the
    limit (the caller refuses the dump once it is reached); nothing is opened but the folder.
    """
    try:
        with os.scandir(folder) as listing:
            entries = list(itertools.islice(listing, limit))
    except OSError as exc:
        raise InputError(f"cannot list folder ({exc.strerror})", file=visible(rel or "."),
                         fix="check that the folder exists and is readable") from exc
    return sorted(entries, key=lambda entry: entry.name)


def lstat_entry(entry: os.DirEntry, rel: str) -> os.stat_result:
    """``os.lstat`` of a listed entry (links not followed); a failure is one message."""
    try:
        return entry.stat(follow_symlinks=False)
    except OSError as exc:
        raise InputError(f"cannot read file information ({exc.strerror})", file=visible(rel),
                         fix="check that the file exists and is readable") from exc


def collect_files(
    root: Path, max_files: int = DEFAULT_MAX_FILES, limits: NameLimits | None = None,
) -> tuple[dict[str, DumpFile], list[str]]:
    """All plain files under ``root`` (relative POSIX path -> :class:`DumpFile`) and the
    ignored junk, checked without opening any of them.

    Refused, with a message naming the entry: more than ``max_files`` files and folders
    (the walk stops there), names that cannot be written as they are (see
    :func:`name_problem`), symbolic links, hard links and special files (see
    :func:`entry_problem`), and two paths that would land on the same path (see
    :func:`find_path_clash`).
    """
    limits = limits or NameLimits()
    files: dict[str, DumpFile] = {}
    folders: list[str] = []
    ignored: list[str] = []
    seen = 0
    pending = [""]
    while pending:
        prefix = pending.pop()
        subfolders = []
        for entry in list_folder(root / prefix, max_files + 1 - seen, prefix):
            seen += 1
            if seen > max_files:
                raise too_many_entries(str(root), max_files, "source")
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            problem = name_problem(rel, limits)
            if problem:
                raise InputError(problem[0], file=visible(rel), fix=problem[1])
            info = lstat_entry(entry, rel)
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in JUNK_DIRS:
                    subfolders.append(rel)
                continue
            if is_junk(rel):
                ignored.append(rel)
                continue
            problem = entry_problem(info)
            if problem:
                raise InputError(problem[0], file=visible(rel), fix=problem[1])
            files[rel] = DumpFile(Path(entry.path), info.st_dev, info.st_ino)
        folders.extend(subfolders)
        pending.extend(reversed(subfolders))
    clash = find_path_clash(
        [(rel, rel, True) for rel in folders] + [(rel, rel, False) for rel in files])
    if clash:
        raise InputError(clash_problem(clash, "source entries"), file=str(root),
                         fix="rename one of them in the dump")
    return files, sorted(ignored)


@dataclass(frozen=True)
class Copied:
    """What :func:`copy_dump` did: the files copied (relative path -> SHA-256 of the bytes
    copied), every plain file the dump holds, copied or not, and the junk it ignored."""

    hashes: dict[str, str]
    found: list[str]
    ignored: list[str]


def copy_dump(root: Path, staged: Path, final: Path, max_files: int = DEFAULT_MAX_FILES,
              only: Collection[str] | None = None) -> Copied:
    """Copy the files of the dump folder ``root`` (those in ``only``, or all) into the
    existing folder ``staged``, which is to become ``final``.

    The whole dump is checked first, no file opened (:func:`collect_files`, with names
    that must fit under ``staged`` and ``final``); then each file is opened once, copied
    and hashed in one pass (:func:`copy_dump_file`), in path order. A message about a
    copy names its place in ``final``.
    """
    files, ignored = collect_files(root, max_files=max_files,
                                   limits=name_limits(staged, staged, final))
    hashes = {rel: copy_dump_file(rel, files[rel], staged / rel, final=final / rel)
              for rel in sorted(files) if only is None or rel in only}
    return Copied(hashes, sorted(files), ignored)


def parse_manifest(text: str, name: str = "manifest") -> dict[str, str]:
    """Parse ``sha256sum`` output (``<hex>  ./path`` or ``<hex> *path``) into path -> hash."""
    entries: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^([0-9a-fA-F]{64}) [ *](.+)$", line)
        if not m:
            raise InputError(
                "not a `sha256sum` line (expected '<64 hex digits>  <path>')",
                file=name,
                line=lineno,
                fix="regenerate the manifest with `sha256sum`",
            )
        rel = m.group(2)
        rel = rel[2:] if rel.startswith("./") else rel
        entries[str(PurePosixPath(rel))] = m.group(1).lower()
    return entries


def verify_against_manifest(
    hashes: dict[str, str], manifest: dict[str, str], manifest_name: str
) -> list[str]:
    """Check file hashes against a manifest; return the files the manifest does not list.

    A hash mismatch or a listed file that is missing stops ingest with a message naming
    the file.
    """
    for rel, expected in sorted(manifest.items()):
        if rel not in hashes:
            raise InputError(
                f"file listed in the manifest is missing from the source: {rel!r}",
                file=manifest_name,
                fix="use a complete copy of the dump, or the manifest that belongs to it",
            )
        if hashes[rel] != expected:
            raise InputError(
                f"SHA-256 mismatch: expected {expected}, found {hashes[rel]}",
                file=rel,
                fix="the file differs from the released data; restore it or update the manifest",
            )
    return sorted(set(hashes) - set(manifest))


def verify_folder(folder: Path, manifest: dict[str, str], manifest_name: str,
                  max_files: int = DEFAULT_MAX_FILES) -> list[str]:
    """Check that the dump folder ``folder`` holds every file ``manifest`` lists, with its
    SHA-256 (:func:`verify_against_manifest`); return the files it holds that the manifest
    does not list. The folder is checked as a dump is (:func:`collect_files`) and its
    listed files hashed as they are copied (:func:`sha256_dump_file`)."""
    files, _junk = collect_files(folder, max_files=max_files)
    hashes = {rel: sha256_dump_file(rel, item) for rel, item in files.items()
              if rel in manifest}
    verify_against_manifest(hashes, manifest, manifest_name)
    return sorted(set(files) - set(manifest))
