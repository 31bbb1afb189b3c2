"""Archives of a dump (.zip, .tar.gz, .tar): every entry checked before any is extracted.

An entry may not escape the target folder (absolute paths, ``..``), be a link or a
special file, hold a name :mod:`analysis.ingest.safety` refuses or land on the path of
another; an archive may not hold more than ``ingest.max_files`` entries, nor unpack to
more than ``ingest.max_bytes`` (its headers are checked first, the bytes written are
counted while writing).
"""

from __future__ import annotations

import re
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.core.artifacts import disk_error
from analysis.core.errors import InputError
from analysis.core.params import DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES
from analysis.core.textsafe import visible
from analysis.ingest.safety import (
    CHUNK,
    JUNK_DIRS,
    NameLimits,
    check_budget,
    clash_problem,
    find_path_clash,
    is_junk,
    name_limits,
    name_problem,
    too_many_entries,
)

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")


def safe_relpath(name: str) -> str:
    """Validate an archive member name; refuse absolute paths and ``..`` escapes."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        raise InputError(
            f"archive entry {name!r} has an absolute path",
            fix="refusing to extract it; use an archive with relative paths",
        )
    parts = [p for p in PurePosixPath(posix).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise InputError(
            f"archive entry {name!r} points outside the target folder",
            fix="refusing to extract it; use an archive without '..' in its paths",
        )
    return "/".join(parts)


def _copy_limited(src, dest: Path, budget: list[int], max_bytes: int, archive: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("xb") as out:  # "x": an entry never overwrites another one
        for chunk in iter(lambda: src.read(CHUNK), b""):
            budget[0] += len(chunk)
            check_budget(budget[0], max_bytes, archive)
            out.write(chunk)


@dataclass(frozen=True)
class ArchiveEntry:
    """One member of an archive as checked before anything is extracted."""

    name: str  # as the archive spells it
    rel: str  # safe relative path (see safe_relpath); "" for the archive's root
    is_folder: bool
    member: zipfile.ZipInfo | tarfile.TarInfo


def refused_entry(name: str, kind: str, archive: str, refusing: str = "links") -> InputError:
    """The refusal of the archive entry ``name``, which is ``kind`` (a link, a special
    file): ``refusing`` names what is not extracted."""
    return InputError(f"archive entry {name!r} is {kind}", file=archive,
                      fix=f"refusing to extract {refusing}; use an archive of plain files")


def zip_entries(zf: zipfile.ZipFile, archive: str, max_files: int,
                max_bytes: int) -> list[ArchiveEntry]:
    """The members of a zip archive, refusing too many members, sizes declared past
    ``max_bytes``, escaping paths and symbolic links."""
    infos = zf.infolist()
    if len(infos) > max_files:
        raise too_many_entries(archive, max_files, "archive")
    check_budget(sum(i.file_size for i in infos if not i.is_dir()), max_bytes, archive)
    entries = []
    for info in infos:
        rel = safe_relpath(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise refused_entry(info.filename, "a symbolic link", archive)
        entries.append(ArchiveEntry(info.filename, rel, info.is_dir(), info))
    return entries


def tar_members(tf: tarfile.TarFile, archive: str, max_files: int,
                max_bytes: int) -> list[tarfile.TarInfo]:
    """The members of a tar archive, read header by header, stopping as soon as there are
    more than ``max_files`` of them or their declared sizes pass ``max_bytes`` (so a huge
    archive is refused before it is read to the end, let alone extracted)."""
    members: list[tarfile.TarInfo] = []
    declared = 0
    for member in tf:
        members.append(member)
        if len(members) > max_files:
            raise too_many_entries(archive, max_files, "archive")
        declared += member.size if member.isfile() else 0
        check_budget(declared, max_bytes, archive)
    return members


def tar_entries(members: list[tarfile.TarInfo], archive: str) -> list[ArchiveEntry]:
    """Tar members as :class:`ArchiveEntry`, refusing escaping paths, links (symbolic and
    hard) and special files (devices, FIFOs)."""
    entries = []
    for member in members:
        rel = safe_relpath(member.name)
        if member.issym() or member.islnk():
            raise refused_entry(member.name, "a link", archive)
        if not (member.isdir() or member.isfile()) and rel:
            raise refused_entry(member.name, "a special file", archive, refusing="it")
        entries.append(ArchiveEntry(member.name, rel, member.isdir(), member))
    return entries


def check_entry_names(entries: list[ArchiveEntry], archive: str, limits: NameLimits) -> None:
    """Refuse an archive with a name that cannot be written as it is (see
    :func:`name_problem`) or two entries that would land on the same path."""
    for entry in entries:
        problem = name_problem(entry.rel, limits)
        if problem:
            raise InputError(f"archive entry '{visible(entry.name)}': {problem[0]}",
                             file=archive, fix=problem[1])
    clash = find_path_clash((e.name, e.rel, e.is_folder) for e in entries if e.rel)
    if clash:
        raise InputError(clash_problem(clash, "archive entries"), file=archive,
                         fix="refusing to extract either; rename one of them in the archive")


def open_zip_entry(zf: zipfile.ZipFile, entry: ArchiveEntry, archive: str):
    """Open a zip entry for reading; an encrypted entry or an unknown compression method is
    one message."""
    try:
        return zf.open(entry.member)
    except (RuntimeError, NotImplementedError) as exc:
        raise InputError(f"cannot read archive entry '{visible(entry.name)}' ({exc})",
                         file=archive, fix="use an unencrypted .zip or a .tar.gz") from exc


def extract_entry(entry: ArchiveEntry, src, dest: Path, budget: list[int], max_bytes: int,
                  archive: str) -> None:
    """Write one checked archive entry under ``dest``; a failure is one message."""
    target = dest / entry.rel
    try:
        with src:
            _copy_limited(src, target, budget, max_bytes, archive)
    except OSError as exc:
        error = disk_error(exc, target)
        if isinstance(error, InputError):
            raise error from exc
        raise InputError(f"cannot extract archive entry '{visible(entry.name)}' ({exc})",
                         file=archive, fix="check the archive") from exc


def extract_archive(
    archive: Path, dest: Path, max_bytes: int = DEFAULT_MAX_BYTES,
    max_files: int = DEFAULT_MAX_FILES, limits: NameLimits | None = None,
) -> None:
    """Extract a zip or tar archive into ``dest`` safely.

    Every member is checked before anything is written: more than ``max_files`` members,
    absolute paths, ``..`` components, links, special files, names that cannot be written
    as they are (see :func:`name_problem`, with ``limits`` or those of ``dest``) and two
    entries landing on the same path are refused. Writing stops once more than
    ``max_bytes`` have been written (counted while writing, not trusted from the
    archive's own headers, which are also checked first).
    """
    name = str(archive)
    budget = [0]
    dest.mkdir(parents=True, exist_ok=True)
    limits = limits or name_limits(dest, dest)
    damaged = (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                entries = zip_entries(zf, name, max_files, max_bytes)
                check_entry_names(entries, name, limits)
                for entry in entries:
                    if entry.rel and not entry.is_folder:
                        extract_entry(entry, open_zip_entry(zf, entry, name), dest, budget,
                                      max_bytes, name)
            return
        try:
            tf = tarfile.open(archive)
        except tarfile.TarError as exc:
            raise InputError(
                "not a readable .zip or .tar(.gz) archive", file=name, fix="check the file"
            ) from exc
        with tf:
            entries = tar_entries(tar_members(tf, name, max_files, max_bytes), name)
            check_entry_names(entries, name, limits)
            for entry in entries:
                if entry.rel and not entry.is_folder:
                    src = tf.extractfile(entry.member)
                    if src is not None:
                        extract_entry(entry, src, dest, budget, max_bytes, name)
    except damaged as exc:
        raise InputError(f"cannot read the archive, it is damaged ({exc})", file=name,
                         fix="download or copy the archive again") from exc


def dump_root(folder: Path) -> Path:
    """The folder holding the dump: ``folder`` itself, or its single top-level folder.

    GitHub archives wrap everything in ``<repo>-<commit>/``; junk entries are ignored
    when deciding.
    """
    entries = [p for p in folder.iterdir() if not is_junk(p.name) and p.name not in JUNK_DIRS]
    if len(entries) == 1 and entries[0].is_dir() and not (folder / "Issue Report").exists():
        return entries[0]
    return folder


def unpack(archive: Path, folder: Path, max_bytes: int = DEFAULT_MAX_BYTES,
           max_files: int = DEFAULT_MAX_FILES) -> Path:
    """Extract ``archive`` into the new folder ``folder`` (:func:`extract_archive`, names
    limited to what fits there) and return the folder that holds the dump
    (:func:`dump_root`)."""
    extract_archive(archive, folder, max_bytes=max_bytes, max_files=max_files,
                    limits=name_limits(folder.parent, folder))
    return dump_root(folder)
