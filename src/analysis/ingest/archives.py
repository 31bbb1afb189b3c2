"""Archives of a dump (.zip, .tar.gz, .tar): every entry checked before any is extracted.

An entry may not escape the target folder (absolute paths, ``..``), be a link, a special
file, a sparse file or an encrypted zip entry, hold a name :mod:`analysis.core.dumpsafety`
refuses or land on the path of another; an archive may not hold more than
``ingest.max_files`` entries, nor unpack to more than ``ingest.max_bytes`` (its headers
are checked first, the bytes written are counted while writing). Every refusal names the
archive, and a name in a message is shown by its start and length when it is long.

A tar header is checked before :mod:`tarfile` reads what it declares
(:class:`BoundedTarInfo`): tarfile reads a GNU long name or a pax header whole into
memory, so a header of a GiB in a tar.gz of a MB would take minutes and gigabytes. A long
name or link may declare at most :data:`MAX_LONG_NAME_BYTES`, a pax header
:data:`MAX_PAX_HEADER_BYTES`, at most :data:`MAX_HEADERS_IN_A_ROW` such headers may
precede one entry, and the header bytes count against ``ingest.max_bytes`` with the
entries' data.
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
from analysis.core.dumpsafety import (
    CHUNK,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_FILES,
    FALLBACK_PATH_MAX,
    JUNK_DIRS,
    NameLimits,
    clash_problem,
    find_path_clash,
    is_junk,
    name_limits,
    name_problem,
    quoted_name,
    too_many_entries,
)
from analysis.core.errors import InputError
from analysis.core.sizes import MiB, size_text

# The settings of the limits (params.yaml), named in the refusals.
MAX_FILES_SETTING = "ingest.max_files"
MAX_BYTES_SETTING = "ingest.max_bytes"
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_LONG_NAME_BYTES = FALLBACK_PATH_MAX
"""The most a GNU long-name or long-link header (``././@LongLink``) may declare: it holds
one path, and no file system takes a longer one than Linux's PATH_MAX (4096 bytes with
its terminating NUL)."""
MAX_PAX_HEADER_BYTES = MiB
"""The most a pax extended or global header may declare: its records are a path, a link
target, times, ids and owner names, a few KiB at most (GNU tar and bsdtar write well
under one)."""
MAX_HEADERS_IN_A_ROW = 8
"""The most extended headers (pax, GNU long name or link) before one entry: an archiver
writes at most a global header, a pax header and a long name and a long link; tarfile
reads a chain of them recursively, and a few hundred end in a RecursionError."""
EXTENDED_HEADERS = {
    tarfile.GNUTYPE_LONGNAME: ("a GNU long-name", MAX_LONG_NAME_BYTES),
    tarfile.GNUTYPE_LONGLINK: ("a GNU long-link", MAX_LONG_NAME_BYTES),
    tarfile.XHDTYPE: ("a pax extended", MAX_PAX_HEADER_BYTES),
    tarfile.XGLTYPE: ("a pax global", MAX_PAX_HEADER_BYTES),
    tarfile.SOLARIS_XHDTYPE: ("a Solaris extended", MAX_PAX_HEADER_BYTES),
}
HOSTILE_FIX = ("refusing to read it; use the dump's original archive (this one is damaged or "
               "crafted)")
SPARSE_FIX = "refusing to extract sparse files; use an archive of plain files"
ZIP_ENCRYPTED_FLAG = 0x1  # bit 0 of a zip entry's general purpose flags


def check_budget(total: int, max_bytes: int, archive: str) -> None:
    """Refuse an archive (or a download) once ``total`` bytes pass ``max_bytes``."""
    if total > max_bytes:
        raise InputError(f"archive unpacks to more than {max_bytes:,} bytes (decompression "
                         "bomb?)", file=archive,
                         fix=f"check the archive, or raise {MAX_BYTES_SETTING} if it is genuine")


def safe_relpath(name: str, archive: str | None = None) -> str:
    """Validate an archive member name; refuse absolute paths and ``..`` escapes (the
    message names ``archive``)."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or re.match(r"^[A-Za-z]:", posix):
        raise InputError(f"archive entry {quoted_name(name)} has an absolute path",
                         file=archive,
                         fix="refusing to extract it; use an archive with relative paths")
    parts = [p for p in PurePosixPath(posix).parts if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise InputError(f"archive entry {quoted_name(name)} points outside the target "
                         "folder", file=archive,
                         fix="refusing to extract it; use an archive without '..' in its paths")
    return "/".join(parts)


def header_problem(header: tarfile.TarInfo, in_a_row: int) -> tuple[str, str] | None:
    """Why :mod:`tarfile` must not read what the tar header ``header`` declares, and the
    fix; None if it may.

    ``in_a_row`` counts the extended headers read since the last entry, this one
    included. A sparse file's header is followed by blocks of its map that tarfile reads
    without end; an extended header larger than its kind allows (:data:`EXTENDED_HEADERS`)
    would be read whole into memory.
    """
    if header.type == tarfile.GNUTYPE_SPARSE:
        return f"archive entry {quoted_name(header.name)} is a sparse file", SPARSE_FIX
    if header.type not in EXTENDED_HEADERS:
        return None
    kind, limit = EXTENDED_HEADERS[header.type]
    if header.size > limit:
        return (f"{kind} header at byte {header.offset:,} of the unpacked archive declares "
                f"{size_text(header.size)}, more than such a header can need "
                f"({size_text(limit)})", HOSTILE_FIX)
    if in_a_row > MAX_HEADERS_IN_A_ROW:
        return (f"more than {MAX_HEADERS_IN_A_ROW} extended headers (pax, GNU long names) "
                f"in a row at byte {header.offset:,} of the unpacked archive", HOSTILE_FIX)
    return None


class BoundedTarInfo(tarfile.TarInfo):
    """A tar header checked (:func:`header_problem`) before tarfile reads what follows
    it.

    tarfile builds every header with the class its ``tarinfo`` argument names and hands
    it to ``_proc_member``, the hook its source names for subclasses; the check runs
    there, before a long name, a pax header or a sparse map is read. A sparse file in
    pax form (GNU sparse 1.0, whose map tarfile reads from the data without a bound) is
    refused where tarfile would read its map.
    """

    def _proc_member(self, tarfile_):
        in_a_row = tarfile_.headers_in_a_row + 1 if self.type in EXTENDED_HEADERS else 0
        tarfile_.headers_in_a_row = in_a_row
        problem = header_problem(self, in_a_row)
        if problem:
            raise InputError(problem[0], fix=problem[1])
        return super()._proc_member(tarfile_)

    def _proc_gnusparse_10(self, member, pax_headers, tarfile_):
        raise InputError(f"archive entry {quoted_name(member.name)} is a sparse file",
                         fix=SPARSE_FIX)


class BoundedTarFile(tarfile.TarFile):
    """A tar archive read through :class:`BoundedTarInfo` headers."""

    tarinfo = BoundedTarInfo

    def __init__(self, *args, **kwargs) -> None:
        self.headers_in_a_row = 0  # extended headers since the last entry
        super().__init__(*args, **kwargs)


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
    return InputError(f"archive entry {quoted_name(name)} is {kind}", file=archive,
                      fix=f"refusing to extract {refusing}; use an archive of plain files")


def zip_entries(zf: zipfile.ZipFile, archive: str, max_files: int,
                max_bytes: int) -> list[ArchiveEntry]:
    """The members of a zip archive, refusing too many members, sizes declared past
    ``max_bytes``, escaping paths, symbolic links and encrypted entries (their flag, before
    anything is extracted)."""
    infos = zf.infolist()
    if len(infos) > max_files:
        raise too_many_entries(archive, max_files, "archive", MAX_FILES_SETTING)
    check_budget(sum(i.file_size for i in infos if not i.is_dir()), max_bytes, archive)
    entries = []
    for info in infos:
        rel = safe_relpath(info.filename, archive)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise refused_entry(info.filename, "a symbolic link", archive)
        if info.flag_bits & ZIP_ENCRYPTED_FLAG:
            raise InputError(
                f"archive entry {quoted_name(info.filename)} is encrypted (password-protected)",
                file=archive, fix="extract the archive with its password and give the folder "
                                  "as the source, or make an archive without a password")
        entries.append(ArchiveEntry(info.filename, rel, info.is_dir(), info))
    return entries


def tar_members(tf: tarfile.TarFile, archive: str, max_files: int,
                max_bytes: int) -> list[tarfile.TarInfo]:
    """The members of a tar archive, read header by header, stopping as soon as there are
    more than ``max_files`` of them or the archive up to the end of one, headers and
    declared sizes, passes ``max_bytes`` (so a huge archive is refused before it is read
    to the end, let alone extracted). ``member.offset_data`` is where the member's data
    starts in the unpacked archive: every header and every earlier member lie before it."""
    members: list[tarfile.TarInfo] = []
    try:
        for member in tf:
            members.append(member)
            if len(members) > max_files:
                raise too_many_entries(archive, max_files, "archive", MAX_FILES_SETTING)
            check_budget(member.offset_data + (member.size if member.isfile() else 0),
                         max_bytes, archive)
    except ValueError as exc:
        raise unreadable_headers(exc, archive) from exc
    return members


def unreadable_headers(exc: ValueError, archive: str) -> InputError:
    """What tarfile's ValueError while reading headers means (a pax record whose length
    has thousands of digits passes int's limit), in one message."""
    return InputError(f"cannot read the archive's headers ({exc})", file=archive,
                      fix=HOSTILE_FIX)


def tar_entries(members: list[tarfile.TarInfo], archive: str) -> list[ArchiveEntry]:
    """Tar members as :class:`ArchiveEntry`, refusing escaping paths, links (symbolic and
    hard) and special files (devices, FIFOs)."""
    entries = []
    for member in members:
        rel = safe_relpath(member.name, archive)
        if member.issym() or member.islnk():
            raise refused_entry(member.name, "a link", archive)
        if member.sparse is not None:
            raise InputError(f"archive entry {quoted_name(member.name)} is a sparse file",
                             file=archive, fix=SPARSE_FIX)
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
            raise InputError(f"archive entry {quoted_name(entry.name)}: {problem[0]}",
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
        raise InputError(f"cannot read archive entry {quoted_name(entry.name)} ({exc})",
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
        raise InputError(f"cannot extract archive entry {quoted_name(entry.name)} ({exc})",
                         file=archive, fix="check the archive") from exc


def extract_archive(
    archive: Path, dest: Path, max_bytes: int = DEFAULT_MAX_BYTES,
    max_files: int = DEFAULT_MAX_FILES, limits: NameLimits | None = None,
) -> None:
    """Extract a zip or tar archive into ``dest``, every member checked first (see the
    module docstring; names against ``limits``, default those of ``dest``)."""
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
            tf = BoundedTarFile.open(archive)
        except tarfile.TarError as exc:
            raise InputError("not a readable .zip or .tar(.gz) archive", file=name,
                             fix="check the file") from exc
        except ValueError as exc:  # tarfile reads the first header on opening
            raise unreadable_headers(exc, name) from exc
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
    except InputError as exc:  # every refusal of an archive says which archive it is
        if exc.file:
            raise
        raise InputError(exc.problem, file=name, line=exc.line, row=exc.row,
                         column=exc.column, fix=exc.fix) from exc


def dump_root(folder: Path) -> Path:
    """The folder holding the dump: ``folder`` itself, or its single top-level folder (as
    GitHub's ``<repo>-<commit>/``; junk entries aside)."""
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
