"""The files of a dump folder: found without opening any, then each opened once.

A dump is untrusted input, whoever reads it: ingest, ``labels extend`` (its base and its
batch), ``select --known``, ``analysis.tools.validate`` and the clean stage read it the
same way. :func:`walk_dump` walks the folder and applies :mod:`analysis.core.dumpsafety`
to every entry, looking at names and ``os.lstat`` only: symbolic links (to files or to
folders, the ``Issue Report`` folder or a project folder included), hard links and
special files are refused in one line naming them. :func:`open_dump_file` then opens a
file once, without following links or waiting, and only if it is still the file that was
checked. :class:`DumpFiles` is a walked folder, the one way the readers open its files.
"""

from __future__ import annotations

import errno
import hashlib
import itertools
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from analysis.core.artifacts import disk_error
from analysis.core.dumpsafety import (
    CHUNK,
    DEFAULT_MAX_FILES,
    JUNK_DIRS,
    NameLimits,
    clash_problem,
    entry_problem,
    find_path_clash,
    is_junk,
    name_problem,
    too_many_entries,
)
from analysis.core.errors import InputError
from analysis.core.textsafe import visible


@dataclass(frozen=True)
class DumpFile:
    """A plain file of a dump folder, with the identity ``os.lstat`` gave it when checked."""

    path: Path
    device: int
    inode: int


# How a file of a dump is opened: never through a symbolic link (O_NOFOLLOW: a link put in
# its place since the check is refused by the system itself), and without waiting (a FIFO
# put in its place opens at once instead of blocking until a writer comes).
OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def before_open(rel: str, item: DumpFile) -> None:
    """Called between the check of a dump file (:func:`walk_dump`) and its one opening
    (:func:`open_dump_file`); does nothing: the hook the fault tests replace to swap the
    file for another then, without depending on timing."""


def replaced(shown: str, reader: str) -> InputError:
    """The refusal of a dump file that is no longer the file that was checked (``shown``:
    how the message names it; ``reader``: the command that was reading)."""
    return InputError(f"source file was replaced while {reader} was reading the dump",
                      file=shown, fix=f"run {reader} again on a dump nobody is changing")


def unreadable(exc: OSError, path: Path) -> InputError:
    """The message for a file that cannot be opened or read."""
    return InputError(f"cannot read file ({exc.strerror})", file=str(path),
                      fix="check that the file exists and is readable")


@contextmanager
def open_dump_file(rel: str, item: DumpFile, reader: str,
                   shown: str | None = None) -> Iterator[BinaryIO]:
    """Open a file found by :func:`walk_dump` for reading, once (:data:`OPEN_FLAGS`),
    refusing it unless it is still the single-named regular file the walk saw (its device
    and inode): the bytes read are the dump's, not those of a link, a FIFO, a device or
    another file put in its place (a folder above it swapped for a link included). A
    refusal names the file as ``shown`` (default: ``rel``, its path in the dump) and
    ``reader``."""
    before_open(rel, item)
    shown = visible(rel) if shown is None else shown
    try:
        fd = os.open(item.path, OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symbolic link
            raise replaced(shown, reader) from exc
        raise unreadable(exc, item.path) from exc
    try:
        info = os.fstat(fd)
        if ((info.st_dev, info.st_ino) != (item.device, item.inode)
                or not stat.S_ISREG(info.st_mode) or info.st_nlink > 1):
            raise replaced(shown, reader)
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


def read_all(fh: BinaryIO, path: Path) -> bytes:
    """What is left to read in an opened dump file; a failure is one message."""
    try:
        return fh.read()
    except OSError as exc:
        raise unreadable(exc, path) from exc


def read_at_most(fh: BinaryIO, path: Path, limit: int | None) -> bytes | None:
    """What is left to read in an opened dump file, or None when it is more than ``limit``
    bytes (None: no limit): never more than ``limit`` + 1 bytes are read, however large the
    file has grown since it was checked."""
    if limit is None:
        return read_all(fh, path)
    try:
        data = fh.read(limit + 1)
    except OSError as exc:
        raise unreadable(exc, path) from exc
    return None if len(data) > limit else data


def sha256_dump_file(rel: str, item: DumpFile, reader: str) -> str:
    """SHA-256 of a file found by :func:`walk_dump` (see :func:`open_dump_file`;
    ``reader``: the command reading it, in messages)."""
    with open_dump_file(rel, item, reader) as fh:
        try:
            return hashlib.file_digest(fh, "sha256").hexdigest()
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


def copy_dump_file(rel: str, item: DumpFile, target: Path, reader: str,
                   final: Path | None = None, shown: str | None = None) -> str:
    """Copy a file found by :func:`walk_dump` to the new file ``target`` (opened as
    :func:`open_dump_file` opens it) and return the SHA-256 of the bytes written, hashed as
    they are copied. ``final`` is where ``target`` will end up (``target`` itself by
    default); a full disk or an unwritable folder is one message naming both files."""
    final = final or target
    digest = hashlib.sha256()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise copy_error(exc, item.path, final) from exc
    with open_dump_file(rel, item, reader, shown) as src:
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


def list_folder(folder: Path, limit: int | None, shown: str) -> list[os.DirEntry]:
    """At most ``limit`` entries of ``folder`` (None: all), sorted by name (reading stops
    there: a folder of millions of files costs no more); ``shown`` names it in a message."""
    try:
        with os.scandir(folder) as listing:
            entries = list(itertools.islice(listing, limit))
    except OSError as exc:
        raise InputError(f"cannot list folder ({exc.strerror})", file=shown,
                         fix="check that the folder exists and is readable") from exc
    return sorted(entries, key=lambda entry: entry.name)


@dataclass(frozen=True)
class Walk:
    """What :func:`walk_dump` found: the plain files (relative POSIX path ->
    :class:`DumpFile`), every folder below the root and the junk it ignored."""

    files: dict[str, DumpFile]
    folders: list[str]
    ignored: list[str]


def walk_dump(root: Path, max_files: int | None = DEFAULT_MAX_FILES,
              limits: NameLimits | None = None, where: str | None = None,
              setting: str | None = None) -> Walk:
    """Every plain file and folder under ``root``, checked without opening any of them by
    :mod:`analysis.core.dumpsafety` (names, links and special files, clashing paths) and
    refused past ``max_files`` files and folders (None: no limit; ``setting``: the
    parameter that sets it); operating-system and VCS junk is ignored (listed). Messages
    name an entry by its path in the dump, or under ``where`` when given."""
    limits = limits or NameLimits()

    def shown(rel: str) -> str:
        if where is None:
            return visible(rel or ".")
        return f"{where}/{visible(rel)}" if rel else where

    files: dict[str, DumpFile] = {}
    folders: list[str] = []
    ignored: list[str] = []
    seen = 0
    pending = [""]
    while pending:
        prefix = pending.pop()
        left = None if max_files is None else max_files + 1 - seen
        subfolders = []
        for entry in list_folder(root / prefix, left, shown(prefix)):
            seen += 1
            if max_files is not None and seen > max_files:
                raise too_many_entries(where or str(root), max_files, "source", setting)
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            problem = name_problem(rel, limits)
            if problem:
                raise InputError(problem[0], file=shown(rel), fix=problem[1])
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise InputError(f"cannot read file information ({exc.strerror})",
                                 file=shown(rel), fix="check that the file exists and is "
                                                      "readable") from exc
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in JUNK_DIRS:
                    subfolders.append(rel)
                continue
            if is_junk(rel):
                ignored.append(rel)
                continue
            problem = entry_problem(info)
            if problem:
                raise InputError(problem[0], file=shown(rel), fix=problem[1])
            files[rel] = DumpFile(Path(entry.path), info.st_dev, info.st_ino)
        folders.extend(subfolders)
        pending.extend(reversed(subfolders))
    clash = find_path_clash(
        [(rel, rel, True) for rel in folders] + [(rel, rel, False) for rel in files])
    if clash:
        raise InputError(clash_problem(clash, "source entries"), file=where or str(root),
                         fix="rename one of them in the dump")
    return Walk(files, sorted(folders), sorted(ignored))


@dataclass(frozen=True)
class DumpFiles:
    """A dump folder as a reader sees it: walked and checked once (:func:`walk_dump`), its
    files then opened only as checked (:func:`open_dump_file`). Messages name entries by
    their path under ``root`` and the command reading (``reader``).

    Paths are given as relative POSIX paths or as paths under ``root``.
    """

    root: Path
    files: dict[str, DumpFile]
    folders: frozenset[str]
    ignored: tuple[str, ...]
    reader: str

    @classmethod
    def walk(cls, root: Path, reader: str,
             max_files: int | None = DEFAULT_MAX_FILES) -> DumpFiles:
        """Walk and check the dump folder ``root`` (see :func:`walk_dump`)."""
        root = Path(root)
        found = walk_dump(root, max_files, where=str(root))
        return cls(root, found.files, frozenset(found.folders), tuple(found.ignored), reader)

    def rel(self, path: Path | str) -> str:
        """``path`` as a relative POSIX path in the dump."""
        if isinstance(path, Path):
            try:
                return path.relative_to(self.root).as_posix()
            except ValueError:
                pass
        return PurePosixPath(path).as_posix()

    def shown(self, path: Path | str) -> str:
        """How a message names a file of the dump: its path under ``root``."""
        return f"{self.root}/{visible(self.rel(path))}"

    def is_file(self, path: Path | str) -> bool:
        """Whether the dump holds the plain file ``path``."""
        return self.rel(path) in self.files

    def is_dir(self, path: Path | str) -> bool:
        """Whether the dump holds the folder ``path`` (``""``: the root)."""
        rel = self.rel(path)
        return rel in ("", ".") or rel in self.folders

    def listing(self, folder: Path | str) -> tuple[list[str], list[str]]:
        """The names of the folders and of the plain files directly in ``folder``,
        sorted."""
        rel = self.rel(folder)
        prefix = "" if rel in ("", ".") else f"{rel}/"

        def inside(paths) -> list[str]:
            return sorted(p[len(prefix):] for p in paths
                          if p.startswith(prefix) and "/" not in p[len(prefix):])

        return inside(self.folders), inside(self.files)

    def item(self, path: Path | str) -> DumpFile:
        """The checked file ``path``; one message when the dump holds no such file."""
        rel = self.rel(path)
        if rel not in self.files:
            raise InputError("no such plain file in the dump", file=self.shown(rel),
                             fix="check the dump's layout (docs/your-own-dump.md)")
        return self.files[rel]

    @contextmanager
    def open(self, path: Path | str) -> Iterator[BinaryIO]:
        """The file ``path``, opened once for reading, as checked (:func:`open_dump_file`)."""
        rel = self.rel(path)
        with open_dump_file(rel, self.item(rel), self.reader, self.shown(rel)) as fh:
            yield fh

    def read_bytes(self, path: Path | str) -> bytes:
        """The bytes of the file ``path`` (see :meth:`open`)."""
        with self.open(path) as fh:
            return read_all(fh, self.item(path).path)

    def copy(self, path: Path | str, target: Path) -> None:
        """Copy the file ``path`` to the new file ``target`` (see :func:`copy_dump_file`)."""
        rel = self.rel(path)
        copy_dump_file(rel, self.item(rel), target, reader=self.reader, shown=self.shown(rel))


def walked(dump: Path | DumpFiles, reader: str,
           max_files: int | None = DEFAULT_MAX_FILES) -> DumpFiles:
    """``dump`` as :class:`DumpFiles`: the folder walked (:meth:`DumpFiles.walk`), or the
    walk given."""
    return dump if isinstance(dump, DumpFiles) else DumpFiles.walk(dump, reader, max_files)


def plain_file(path: Path) -> DumpFile:
    """The file ``path`` checked as a dump's files are (a single-named regular file, not
    a link or a special file; ``os.lstat`` only), ready for :func:`open_dump_file`; the
    ``OSError`` of a file that is not there, for the caller to word."""
    info = os.lstat(path)
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a folder, not a file", file=str(path), fix="give a file")
    problem = entry_problem(info)
    if problem:
        raise InputError(problem[0], file=str(path), fix=problem[1])
    return DumpFile(path, info.st_dev, info.st_ino)


def read_plain_file(path: Path, reader: str) -> bytes:
    """The bytes of a file found in a folder of untrusted input (a selection's
    candidates, say), read as a dump's files are: checked (:func:`plain_file`: an
    ``OSError`` when it is not there), then opened once without following links
    (:func:`open_dump_file`)."""
    path = Path(path)
    item = plain_file(path)
    with open_dump_file(path.name, item, reader, str(path)) as fh:
        return read_all(fh, path)
