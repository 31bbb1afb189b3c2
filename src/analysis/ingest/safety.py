"""What a dump may not hold, and how each refusal is worded.

A dump is untrusted input. Its names must print as what they are and fit the file system
they are written to (:func:`name_problem`), no two entries may land on the same path
(:func:`find_path_clash`), a file of a folder source must be a single-named regular file
(:func:`entry_problem`: links and special files are never opened), and a dump has at most
``ingest.max_files`` files and folders and ``ingest.max_bytes`` bytes. The checks look at
names and ``os.lstat`` results only; :mod:`analysis.ingest.files` and
:mod:`analysis.ingest.archives` apply them to folders and archives.
"""

from __future__ import annotations

import os
import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.core.errors import InputError
from analysis.core.textsafe import has_hidden, visible

JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini", ".gitkeep"}
JUNK_DIRS = {"__MACOSX", ".git", ".svn", ".hg"}
CHUNK = 1 << 20  # bytes read and written at a time
# Used when the file system does not state its limits (os.pathconf): Linux's values.
FALLBACK_NAME_MAX = 255
FALLBACK_PATH_MAX = 4096
SPECIAL_FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISCHR, "a character device"),
)


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


def check_budget(total: int, max_bytes: int, archive: str) -> None:
    """Refuse an archive (or a download) once ``total`` bytes pass ``max_bytes``."""
    if total > max_bytes:
        raise InputError(
            f"archive unpacks to more than {max_bytes:,} bytes (decompression bomb?)",
            file=archive,
            fix="check the archive, or raise ingest.max_bytes if it is genuine",
        )
