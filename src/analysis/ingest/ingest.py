"""Ingest: copy the released data into ``data/raw/`` and record where it came from.

The source is a local folder in the upstream layout, a local ``.zip``/``.tar.gz``
archive, or an ``https://`` URL of such an archive (GitHub's archive of a commit, for
instance). Every file is checked against a SHA-256 manifest when one is given; archives
are extracted without letting any entry escape the target folder; operating-system junk
(``.DS_Store``, ``__MACOSX/``...) is ignored. The result is ``data/raw/`` plus a
provenance record (source, commit, per-file hashes; no timestamps, so it is byte-stable).

A dump is untrusted input. Before anything is copied, ingest refuses, with one message
naming the file: links (symbolic, and hard links of a folder source, which could bring in
a file from outside the dump), special files (FIFOs, sockets, devices: never opened, so
none can hang the run), names with control or formatting characters or too long for the
file system, two entries that would land on the same path, and more than
``ingest.max_files`` files and folders. Each file is then opened once, without following
links or waiting, and only if it is still the file that was checked; it is copied and
hashed in one pass, and the manifest is checked against (and the provenance records) the
hashes of the bytes copied. A refused or failed run leaves ``data/raw/`` as it was and no
temporary folder behind.

``python -m analysis.ingest fetch`` (:mod:`analysis.ingest.fetch`) first makes
``data/release/`` hold the pinned release, the default source. Run as
``python -m analysis.ingest --help``.
"""

from __future__ import annotations

import errno
import hashlib
import http.client
import itertools
import os
import re
import shutil
import ssl
import stat
import tarfile
import tempfile
import unicodedata
import urllib.error
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.core.artifacts import (
    disk_error,
    remove_stale,
    replace_folder,
    scratch_folder,
    sha256_file,
    sha256_stream,
)
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, ROOT, project_path
from analysis.core.textsafe import has_hidden, visible

JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini", ".gitkeep"}
JUNK_DIRS = {"__MACOSX", ".git", ".svn", ".hg"}
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
COMMIT_RE = re.compile(r"(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])")
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB unpacked: far above the real dump (5 MB)
DEFAULT_MAX_FILES = 10_000  # files and folders: far above the real dump (51 files, 12 folders)
CHUNK = 1 << 20
STAGING_PREFIX = ".ingest-"
# Used when the file system does not state its limits (os.pathconf): Linux's values.
FALLBACK_NAME_MAX = 255
FALLBACK_PATH_MAX = 4096
SPECIAL_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISCHR, "a character device"),
)


@dataclass(frozen=True)
class IngestResult:
    """What ingest produced: the files copied and the provenance record."""

    files: dict[str, dict]
    ignored: list[str]
    provenance: dict


def is_junk(rel: str) -> bool:
    """True for operating-system and VCS litter that is never part of a dump."""
    parts = PurePosixPath(rel).parts
    return (
        any(p in JUNK_DIRS for p in parts[:-1])
        or parts[-1] in JUNK_NAMES
        or parts[-1].startswith("._")
    )


@dataclass(frozen=True)
class NameLimits:
    """How long names may be where the dump is written, in bytes of their encoded form.

    ``name_bytes`` bounds each path component (the file system's NAME_MAX); ``path_bytes``
    bounds a relative path once joined to the longest folder it is written under (PATH_MAX
    less that folder, a separator and the terminating NUL). Checking both before copying
    turns a name the file system would reject half-way through into one clear message.
    """

    name_bytes: int = FALLBACK_NAME_MAX
    path_bytes: int = FALLBACK_PATH_MAX


def path_conf(folder: Path, name: str, fallback: int) -> int:
    """``os.pathconf(folder, name)``, or ``fallback`` where the system states no limit."""
    try:
        value = os.pathconf(folder, name)
    except (AttributeError, OSError, ValueError):  # AttributeError: no pathconf (Windows)
        return fallback
    return value if value > 0 else fallback


def name_limits(folder: Path, *bases: Path) -> NameLimits:
    """The :class:`NameLimits` for relative paths written under each of ``bases``, all on
    the file system of the existing ``folder``."""
    longest_base = max((len(os.fsencode(str(base))) for base in bases), default=0)
    path_max = path_conf(folder, "PC_PATH_MAX", FALLBACK_PATH_MAX)
    return NameLimits(
        name_bytes=path_conf(folder, "PC_NAME_MAX", FALLBACK_NAME_MAX),
        path_bytes=path_max - longest_base - 2,
    )


def name_problem(rel: str, limits: NameLimits) -> tuple[str, str] | None:
    """Why the relative path ``rel`` cannot be written as it is, and the fix; None if it can.

    A control or formatting character (newline, escape, a bidirectional override...) makes
    a name print as something else in messages, listings and the provenance record; a name
    longer than the file system takes would fail half-way through the copy.
    """
    if has_hidden(rel):
        return (
            "name holds control or formatting characters (shown as ⟨U+...⟩)",
            "rename it in the dump with printable characters only",
        )
    for part in rel.split("/"):
        size = len(os.fsencode(part))
        if size > limits.name_bytes:
            return (
                f"name is {size} bytes long, more than the file system's limit of "
                f"{limits.name_bytes}",
                "shorten the name in the dump",
            )
    size = len(os.fsencode(rel))
    if size > limits.path_bytes:
        return (
            f"path is {size:,} bytes long, more than the {limits.path_bytes:,} that fit in the "
            "target folder",
            "shorten the path in the dump (fewer or shorter folder names)",
        )
    return None


def landing_key(rel: str) -> str:
    """Where a relative path lands on any file system, including case-insensitive and
    Unicode-normalising ones (macOS, Windows): two paths with the same key are one file
    there, and the second copy would silently replace the first."""
    return unicodedata.normalize("NFC", rel).casefold()


@dataclass(frozen=True)
class PathClash:
    """Two entries of a dump that would be written to the same path."""

    first: str
    second: str
    path: str
    first_is_folder: bool
    second_is_folder: bool
    same_spelling: bool


def find_path_clash(entries: Iterable[tuple[str, str, bool]]) -> PathClash | None:
    """The first two entries that would be written to the same path, or None.

    ``entries`` are (name as the source lists it, safe relative path, is a folder). Every
    parent of a path is a folder too, so a file ``a`` clashes with an entry ``a/b``; two
    folders may coincide (they merge); paths equal up to letter case or Unicode
    normalisation clash (see :func:`landing_key`).
    """
    seen: dict[str, tuple[str, str, bool]] = {}  # landing key -> (name, path, is folder)
    for name, rel, is_folder in entries:
        parts = rel.split("/")
        paths = [("/".join(parts[:i]), True) for i in range(1, len(parts))]
        for path, as_folder in [*paths, (rel, is_folder)]:
            key = landing_key(path)
            if key not in seen:
                seen[key] = (name, path, as_folder)
                continue
            first, first_path, first_is_folder = seen[key]
            if first_is_folder and as_folder:
                continue
            return PathClash(first, name, first_path, first_is_folder, as_folder,
                             first_path == path)
    return None


def clash_problem(clash: PathClash, noun: str) -> str:
    """One line naming both entries of a :class:`PathClash` (``noun``: "archive entries")."""
    text = (
        f"{noun} '{visible(clash.first)}' and '{visible(clash.second)}' would land on the "
        f"same path '{visible(clash.path)}'"
    )
    if clash.first_is_folder != clash.second_is_folder:
        text += ", one as a file and one as a folder"
    if not clash.same_spelling:
        text += " on a case-insensitive file system (macOS, Windows)"
    return text


def special_kind(mode: int) -> str:
    """What a non-regular, non-link, non-folder file is, for a message."""
    for is_kind, kind in SPECIAL_FILE_KINDS:
        if is_kind(mode):
            return kind
    return "a special file"


def entry_problem(info: os.stat_result) -> tuple[str, str] | None:
    """Why a (non-folder) entry of a folder source, as ``os.lstat`` describes it, must not
    be opened, and the fix; None for a plain file.

    A symbolic link could point anywhere on the machine; a hard link (a regular file with
    more than one name) could be another name of a file outside the dump; a FIFO or a
    device could block the run forever or stream without end when opened.
    """
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return "source contains a symbolic link", "replace the link by what it points to"
    if not stat.S_ISREG(mode):
        return (
            f"source file is {special_kind(mode)}, not a regular file",
            "refusing to open it; remove it from the dump",
        )
    if info.st_nlink > 1:
        return (
            f"source file is a hard link ({info.st_nlink} names for the same data, which may "
            "lie outside the dump)",
            "refusing to read it; replace it by a plain copy (e.g. copy the dump with `cp -r`)",
        )
    return None


def too_many_entries(where: str, max_files: int, noun: str) -> InputError:
    """The refusal of a dump holding more than ``max_files`` files and folders."""
    return InputError(
        f"{noun} holds more than {max_files:,} files and folders (ingest.max_files)",
        file=where,
        fix="check the source, or raise ingest.max_files in params.yaml if it is genuine",
    )


def source_kind(source: str, root: Path = ROOT) -> str:
    """Classify a source as ``url``, ``archive`` or ``dir`` (refusing anything else); a
    relative path is taken relative to ``root``."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", source):
        if not source.lower().startswith("https://"):
            raise InputError(
                f"refusing source URL {source!r}: only https:// URLs are accepted",
                file=str(PATHS.params.name),
                column="ingest.source",
                fix="use an https:// URL or a local path",
            )
        return "url"
    path = project_path(source, root)
    if path.is_dir():
        return "dir"
    if path.is_file() and source.lower().endswith(ARCHIVE_SUFFIXES):
        return "archive"
    if path.is_file():
        raise InputError(
            "source file is not a .zip, .tar.gz or .tar archive",
            file=source,
            fix="point ingest.source at a folder in the upstream layout or an archive",
        )
    raise InputError(
        "source not found",
        file=source,
        fix="set ingest.source in params.yaml to a folder, archive or https URL",
    )


def unreadable(exc: OSError, path: Path) -> InputError:
    """The message for a file that cannot be opened or read."""
    return InputError(f"cannot read file ({exc.strerror})", file=str(path),
                      fix="check that the file exists and is readable")


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


def _check_budget(total: int, max_bytes: int, archive: str) -> None:
    if total > max_bytes:
        raise InputError(
            f"archive unpacks to more than {max_bytes:,} bytes (decompression bomb?)",
            file=archive,
            fix="check the archive, or raise ingest.max_bytes if it is genuine",
        )


def _copy_limited(src, dest: Path, budget: list[int], max_bytes: int, archive: str) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with dest.open("xb") as out:  # "x": an entry never overwrites another one
        for chunk in iter(lambda: src.read(CHUNK), b""):
            budget[0] += len(chunk)
            _check_budget(budget[0], max_bytes, archive)
            out.write(chunk)


@dataclass(frozen=True)
class ArchiveEntry:
    """One member of an archive as checked before anything is extracted."""

    name: str  # as the archive spells it
    rel: str  # safe relative path (see safe_relpath); "" for the archive's root
    is_folder: bool
    member: zipfile.ZipInfo | tarfile.TarInfo


def zip_entries(zf: zipfile.ZipFile, archive: str, max_files: int,
                max_bytes: int) -> list[ArchiveEntry]:
    """The members of a zip archive, refusing too many members, sizes declared past
    ``max_bytes``, escaping paths and symbolic links."""
    infos = zf.infolist()
    if len(infos) > max_files:
        raise too_many_entries(archive, max_files, "archive")
    _check_budget(sum(i.file_size for i in infos if not i.is_dir()), max_bytes, archive)
    entries = []
    for info in infos:
        rel = safe_relpath(info.filename)
        if stat.S_ISLNK(info.external_attr >> 16):
            raise InputError(
                f"archive entry {info.filename!r} is a symbolic link",
                file=archive,
                fix="refusing to extract links; use an archive of plain files",
            )
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
        _check_budget(declared, max_bytes, archive)
    return members


def tar_entries(members: list[tarfile.TarInfo], archive: str) -> list[ArchiveEntry]:
    """Tar members as :class:`ArchiveEntry`, refusing escaping paths, links (symbolic and
    hard) and special files (devices, FIFOs)."""
    entries = []
    for member in members:
        rel = safe_relpath(member.name)
        if member.issym() or member.islnk():
            raise InputError(
                f"archive entry {member.name!r} is a link",
                file=archive,
                fix="refusing to extract links; use an archive of plain files",
            )
        if not (member.isdir() or member.isfile()) and rel:
            raise InputError(
                f"archive entry {member.name!r} is a special file",
                file=archive,
                fix="refusing to extract it; use an archive of plain files",
            )
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


class DownloadError(InputError):
    """A download that failed on the network (no connection, refused, HTTP error...)."""


def network_reason(exc: BaseException) -> str:
    """Why a download failed, in a few words: ``HTTP 404 Not Found``, ``[Errno 111]
    Connection refused``, ``[Errno -3] Temporary failure in name resolution``..."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        return str(reason) if isinstance(reason, str) else network_reason(reason)
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection closed before the end of the file"
    return str(exc) or type(exc).__name__


def cache_name(url: str) -> str:
    """The file name a downloaded archive is kept under (the URL's last part, made safe)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", url.rsplit("/", 1)[-1]) or "archive"


def download(
    url: str, dest: Path, sha256: str | None = None, cafile: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = 60.0,
) -> Path:
    """Download an https URL to ``dest`` (atomically), checking its SHA-256 when given.

    A network failure is a :class:`DownloadError` "download failed (<reason>)" whose cause
    is the original error. Certificates are checked against the system's (``SSL_CERT_FILE``
    is honoured) or ``cafile``.
    """
    source_kind(url)  # refuses anything but https
    context = ssl.create_default_context(cafile=cafile)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    digest = hashlib.sha256()
    total = 0
    try:
        with urllib.request.urlopen(url, timeout=timeout, context=context) as resp, tmp.open(
            "wb"
        ) as out:
            for chunk in iter(lambda: resp.read(CHUNK), b""):
                total += len(chunk)
                _check_budget(total, max_bytes, url)
                digest.update(chunk)
                out.write(chunk)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        tmp.unlink(missing_ok=True)
        error = disk_error(exc, tmp) if isinstance(exc, OSError) else exc
        if isinstance(error, InputError):
            raise error from exc
        raise DownloadError(
            f"download failed ({network_reason(exc)})",
            file=url,
            fix="check the network or use a local copy of the archive as ingest.source",
        ) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sha256 and digest.hexdigest() != sha256.lower():
        tmp.unlink(missing_ok=True)
        raise InputError(
            f"downloaded archive has SHA-256 {digest.hexdigest()}, expected {sha256}",
            file=url,
            fix="the archive changed or was tampered with; check ingest.archive_sha256",
        )
    os.replace(tmp, dest)
    return dest


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


def detect_commit(*candidates: str | None) -> str | None:
    """The first 40-hex commit id found in the given strings (URL, archive folder name)."""
    for text in candidates:
        if text:
            m = COMMIT_RE.search(text)
            if m:
                return m.group(1)
    return None


def positive_int_param(cfg: dict, key: str, default: int, params_file: str) -> int:
    """``ingest.<key>`` as a whole number of at least 1; ``default`` when it is unset."""
    value = cfg.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(
            f"ingest.{key} must be a whole number of at least 1, not {value!r}",
            file=params_file,
            fix=f"set ingest.{key} to a number such as {default}, or remove it for the default",
        )
    return value


def staging_folder(dest: Path) -> Path:
    """A new, empty folder to stage ``dest`` in, in the :func:`scratch_folder` of its
    parent (where what a killed ingest left is removed first); an unwritable or full disk
    is one message naming ``dest``."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        scratch = scratch_folder(dest.parent)
        if scratch != dest.parent.absolute():
            remove_stale(scratch, f"{STAGING_PREFIX}*")
        return Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=scratch))
    except OSError as exc:
        raise disk_error(exc, dest) from exc


def ingest(
    source: str,
    dest: Path,
    manifest: str | None = None,
    commit: str | None = None,
    archive_sha256: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    download_dir: Path | None = None,
    cafile: str | None = None,
    max_files: int = DEFAULT_MAX_FILES,
) -> IngestResult:
    """Materialise ``source`` as ``dest`` (replacing it), verified and with provenance.

    Everything is staged in a temporary folder (the :func:`scratch_folder` of ``dest``'s
    parent: ``build/tmp/`` in the project) and moved into place only when complete; any
    failure removes that folder and leaves ``dest`` as it was. Each file of the dump is
    opened once, copied and hashed in one pass (:func:`copy_dump_file`); the manifest is
    checked against, and the provenance records, the hashes of the bytes copied.
    """
    kind = source_kind(source)
    dest = Path(dest)
    work = staging_folder(dest)
    try:
        staged = work / "raw"
        top_name = None
        archive_digest = None
        if kind == "dir":
            root = project_path(source)
        else:
            if kind == "url":
                archive = (download_dir or PATHS.downloads_cache) / cache_name(source)
                if not archive.exists() or (
                    archive_sha256 and sha256_file(archive) != archive_sha256.lower()
                ):
                    download(source, archive, archive_sha256, cafile=cafile, max_bytes=max_bytes)
            else:
                archive = project_path(source)
                if archive_sha256 and sha256_file(archive) != archive_sha256.lower():
                    raise InputError(
                        "archive SHA-256 does not match ingest.archive_sha256",
                        file=source,
                        fix="use the right archive or correct the checksum",
                    )
            archive_digest = sha256_file(archive)
            unpacked = work / "unpacked"
            unpacked.mkdir()
            extract_archive(archive, unpacked, max_bytes=max_bytes, max_files=max_files,
                            limits=name_limits(work, unpacked))
            root = dump_root(unpacked)
            top_name = root.name if root != unpacked else None
        files, ignored = collect_files(root, max_files=max_files,
                                       limits=name_limits(work, staged, dest))
        if not files:
            raise InputError("source holds no files", file=source, fix="check ingest.source")
        manifest_info = None
        unlisted: list[str] = []
        if manifest:
            mpath = project_path(manifest)
            if not mpath.is_file():
                raise InputError(
                    "manifest not found", file=manifest, fix="fix ingest.manifest or set it to null"
                )
            entries = parse_manifest(mpath.read_text(encoding="utf-8"), manifest)
            manifest_info = {
                "path": manifest,
                "sha256": sha256_file(mpath),
                "files_listed": len(entries),
            }
        hashes = {rel: copy_dump_file(rel, files[rel], staged / rel, final=dest / rel)
                  for rel in sorted(files)}
        if manifest_info:
            unlisted = verify_against_manifest(hashes, entries, manifest)
        sizes = {rel: (staged / rel).stat().st_size for rel in hashes}
        replace_folder(staged, dest, aside=work / "previous")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    detected = detect_commit(source if kind != "dir" else None, top_name)
    record = {
        "source": source,
        "source_kind": kind,
        "archive_sha256": archive_digest,
        "commit": detected or commit,
        "commit_from": "source" if detected else ("params" if commit else None),
        "commit_declared": commit,
        "manifest": manifest_info,
        "verified": manifest_info is not None,
        "files": {
            rel: {
                "sha256": hashes[rel],
                "bytes": sizes[rel],
                "in_manifest": (rel not in unlisted) if manifest_info else None,
            }
            for rel in sorted(hashes)
        },
        "not_in_manifest": unlisted,
        "ignored": ignored,
        "file_count": len(hashes),
    }
    record["total_bytes"] = sum(f["bytes"] for f in record["files"].values())
    return IngestResult(files=record["files"], ignored=ignored, provenance=record)
