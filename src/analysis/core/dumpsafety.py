"""What a dump may not hold, and how each refusal is worded.

A dump is untrusted input. Its names must print as what they are and fit the file system
they are written to (:func:`name_problem`), no two entries may land on the same path
(:func:`find_path_clash`), a file of a folder source must be a single-named regular file
(:func:`entry_problem`: links and special files are never opened), and a dump has at most
``ingest.max_files`` files and folders and ``ingest.max_bytes`` bytes. The checks look at
names and ``os.lstat`` results only; :mod:`analysis.core.dumpfiles` applies them to a
dump folder (for ingest and for every other reader of a dump), :mod:`analysis.ingest.archives`
to archives.
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
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB unpacked: far above the real dump (5 MB)
DEFAULT_MAX_FILES = 10_000  # files and folders: far above the real dump (51 files, 12 folders)
CHUNK = 1 << 20  # bytes read and written at a time
SHOWN_NAME_CHARS = 120  # a longer name is shown in a message by its start and its length
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
    return (any(p in JUNK_DIRS for p in parts[:-1]) or parts[-1] in JUNK_NAMES
            or parts[-1].startswith("._"))


@dataclass(frozen=True)
class NameLimits:
    """How long names may be where the dump is written, in bytes of their encoded form:
    ``name_bytes`` each path component (NAME_MAX), ``path_bytes`` a relative path (PATH_MAX
    less the longest folder it is written under, a separator and the terminating NUL)."""

    name_bytes: int = FALLBACK_NAME_MAX
    path_bytes: int = FALLBACK_PATH_MAX


def path_conf(folder: Path, name: str, fallback: int) -> int:
    """``os.pathconf(folder, name)``, or ``fallback`` where the system states no limit."""
    try:
        value = os.pathconf(folder, name)
    except (OSError, ValueError):
        return fallback
    return value if value > 0 else fallback


def name_limits(folder: Path, *bases: Path) -> NameLimits:
    """The :class:`NameLimits` for relative paths written under each of ``bases``, all on
    the file system of the existing ``folder``."""
    longest_base = max((len(os.fsencode(str(base))) for base in bases), default=0)
    path_max = path_conf(folder, "PC_PATH_MAX", FALLBACK_PATH_MAX)
    return NameLimits(name_bytes=path_conf(folder, "PC_NAME_MAX", FALLBACK_NAME_MAX),
                      path_bytes=path_max - longest_base - 2)


def name_problem(rel: str, limits: NameLimits) -> tuple[str, str] | None:
    """Why the relative path ``rel`` cannot be written as it is, and the fix; None if it can.

    A control or formatting character (newline, escape, a bidirectional override...) makes
    a name print as something else in messages, listings and the provenance record; a name
    longer than the file system takes would fail half-way through the copy.
    """
    if has_hidden(rel):
        return ("name holds control or formatting characters (shown as ⟨U+...⟩)",
                "rename it in the dump with printable characters only")
    for part in rel.split("/"):
        size = len(os.fsencode(part))
        if size > limits.name_bytes:
            return (f"name is {size} bytes long, more than the file system's limit of "
                    f"{limits.name_bytes}", "shorten the name in the dump")
    size = len(os.fsencode(rel))
    if size > limits.path_bytes:
        return (f"path is {size:,} bytes long, more than the {limits.path_bytes:,} that fit in "
                "the target folder", "shorten the path in the dump (fewer or shorter folder "
                                     "names)")
    return None


def quoted_name(name: str) -> str:
    """``name`` quoted as a message shows it: visible (hidden characters as ``⟨U+...⟩``
    markers) and, past :data:`SHOWN_NAME_CHARS` characters, cut to its start followed by
    its length in bytes. An archive's header may declare a name of megabytes; the
    message naming it stays one readable line."""
    if len(name) <= SHOWN_NAME_CHARS:
        return f"'{visible(name)}'"
    size = len(name.encode("utf-8", "surrogatepass"))
    return f"'{visible(name[:SHOWN_NAME_CHARS])}…' ({size:,} bytes)"


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
    second_path: str | None = None  # where the second lands, spelled as it spells it


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
                             first_path == path, path)
    return None


def clash_problem(clash: PathClash, noun: str) -> str:
    """One line naming both entries of a :class:`PathClash` (``noun``: "archive entries"),
    and, for two spellings, how they differ (:func:`spelling_difference`)."""
    text = (f"{noun} {quoted_name(clash.first)} and {quoted_name(clash.second)} would land "
            f"on the same path {quoted_name(clash.path)}")
    if clash.first_is_folder != clash.second_is_folder:
        text += ", one as a file and one as a folder"
    if not clash.same_spelling:
        text += spelling_difference(clash.path, clash.second_path or clash.second)
    return text


def spelling_difference(first: str, second: str) -> str:
    """How two spellings of one landing path differ, as the end of a message: in letter case
    (one name where case is ignored), or in Unicode normalisation, where the two look the
    same, so the differing part is shown as code points (``e\\u0301`` vs ``\\u00e9``)."""
    nfc = [unicodedata.normalize("NFC", s) for s in (first, second)]
    if first.casefold() == second.casefold():
        return " on a case-insensitive file system (macOS, Windows)"
    a, b = (code_points(part) for part in differing_part(first, second))
    if nfc[0] == nfc[1]:
        return (f": they differ only in Unicode normalisation (NFC/NFD), `{a}` vs `{b}`, "
                "which a file system that normalises names (macOS) takes as one")
    return (f": they differ in letter case and in Unicode normalisation (NFC/NFD), `{a}` vs "
            f"`{b}`, which a case-insensitive file system that normalises names (macOS) "
            "takes as one")


def differing_part(first: str, second: str) -> tuple[str, str]:
    """The parts of two strings between their common start and end, widened so that no
    combining mark is parted from the letter it belongs to."""
    start = len(os.path.commonprefix([first, second]))
    while start and any(unicodedata.combining(s[start:start + 1] or " ")
                        for s in (first, second)):
        start -= 1
    end = 0
    while (end < min(len(first), len(second)) - start
           and first[len(first) - 1 - end] == second[len(second) - 1 - end]):
        end += 1
    while end and unicodedata.combining(first[len(first) - end]):
        end -= 1
    return first[start:len(first) - end], second[start:len(second) - end]


def code_points(text: str) -> str:
    """``text`` with every character but printable ASCII as its code point (``\\u00e9``)."""
    return "".join(c if c.isascii() and c.isprintable()
                   else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                   for c in text)


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
        return (f"source file is {special_kind(mode)}, not a regular file",
                "refusing to open it; remove it from the dump")
    if info.st_nlink > 1:
        return (f"source file is a hard link ({info.st_nlink} names for the same data, which "
                "may lie outside the dump)", "refusing to read it; replace it by a plain copy "
                                             "(e.g. copy the dump with `cp -r`)")
    return None


def too_many_entries(where: str, max_files: int, noun: str, setting: str | None = None
                     ) -> InputError:
    """The refusal of a dump holding more than ``max_files`` files and folders; ``setting``
    names the parameter that sets the limit, when one does."""
    if setting is None:
        return InputError(f"{noun} holds more than {max_files:,} files and folders",
                          file=where, fix="check that this is a dump: one holds a few dozen "
                                          "files (a label file and year files a project)")
    return InputError(f"{noun} holds more than {max_files:,} files and folders ({setting})",
                      file=where,
                      fix=f"check the source, or raise {setting} in params.yaml if it is genuine")


