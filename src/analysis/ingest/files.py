"""Ingest's copy of a dump folder, and its manifest.

:func:`copy_dump` checks the whole dump first (:func:`analysis.core.dumpfiles.walk_dump`:
names and ``os.lstat`` only, links and special files refused), then opens each file once,
without following links or waiting, and only if it is still the file that was checked
(:func:`analysis.core.dumpfiles.open_dump_file`); it copies and hashes it in one pass, so
that the manifest is checked against (:func:`verify_against_manifest`), and the provenance
records, the bytes copied.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from analysis.core.dates import year_problem
from analysis.core.dump import ISSUE_DIR, YEAR_FILE_RE
from analysis.core.dumpfiles import copy_dump_file, sha256_dump_file, walk_dump
from analysis.core.dumpsafety import DEFAULT_MAX_FILES, name_limits
from analysis.core.errors import InputError
from analysis.ingest.archives import MAX_FILES_SETTING

READER = "ingest"  # the command reading the dump, in messages


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
    existing folder ``staged``, which is to become ``final``: the whole dump checked first
    (:func:`walk_dump`, names fitting under both), then each file copied and hashed in one
    pass (:func:`copy_dump_file`), in path order."""
    walk = walk_dump(root, max_files, name_limits(staged, staged, final),
                     setting=MAX_FILES_SETTING)
    if (problem := year_file_problem(walk.files)) is not None:
        raise problem
    hashes = {rel: copy_dump_file(rel, walk.files[rel], staged / rel, final=final / rel,
                                 reader=READER)
              for rel in sorted(walk.files) if only is None or rel in only}
    return Copied(hashes, sorted(walk.files), walk.ignored)


def year_file_problem(rels: Collection[str]) -> InputError | None:
    """The refusal of the first project year file (``Issue Report/<P>/<P>_<year>.txt``)
    named for a year a study cannot hold (:func:`analysis.core.dates.year_problem`: the
    clean stage's schema would fail on it after every earlier step); None when there is
    none."""
    for rel in sorted(rels):
        parts = PurePosixPath(rel).parts
        m = YEAR_FILE_RE.match(parts[2]) if len(parts) == 3 and parts[0] == ISSUE_DIR else None
        if m is not None and (why := year_problem(int(m["year"]))) is not None:
            return InputError(f"a year file of {why}", file=rel,
                              fix="name the file for the year its issues were created in "
                                  "(their creation dates), or remove it")
    return None


def parse_manifest(text: str, name: str = "manifest") -> dict[str, str]:
    """Parse ``sha256sum`` output (``<hex>  ./path`` or ``<hex> *path``) into path -> hash."""
    entries: dict[str, str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = re.match(r"^([0-9a-fA-F]{64}) [ *](.+)$", line)
        if not m:
            raise InputError("not a `sha256sum` line (expected '<64 hex digits>  <path>')",
                             file=name, line=lineno, fix="regenerate the manifest with `sha256sum`")
        rel = m.group(2)
        rel = rel[2:] if rel.startswith("./") else rel
        entries[str(PurePosixPath(rel))] = m.group(1).lower()
    return entries


def verify_against_manifest(hashes: dict[str, str], manifest: dict[str, str],
                            manifest_name: str) -> list[str]:
    """Check file hashes against a manifest (a mismatch or a listed file that is missing is
    one message naming the file); return the files the manifest does not list."""
    for rel, expected in sorted(manifest.items()):
        if rel not in hashes:
            raise InputError(f"file listed in the manifest is missing from the source: {rel!r}",
                             file=manifest_name, fix="use a complete copy of the dump, or the "
                                                     "manifest that belongs to it")
        if hashes[rel] != expected:
            raise InputError(f"SHA-256 mismatch: expected {expected}, found {hashes[rel]}",
                             file=rel, fix="the file differs from the released data; restore it "
                                           "or update the manifest")
    return sorted(set(hashes) - set(manifest))


def verify_folder(folder: Path, manifest: dict[str, str], manifest_name: str,
                  max_files: int = DEFAULT_MAX_FILES) -> list[str]:
    """Check that the dump folder ``folder`` holds every file ``manifest`` lists, with its
    SHA-256 (:func:`verify_against_manifest`); return the files it holds that the manifest
    does not list. The folder is checked as a dump is (:func:`walk_dump`) and its
    listed files hashed as they are copied (:func:`sha256_dump_file`)."""
    files = walk_dump(folder, max_files, setting=MAX_FILES_SETTING).files
    hashes = {rel: sha256_dump_file(rel, item, READER) for rel, item in files.items()
              if rel in manifest}
    verify_against_manifest(hashes, manifest, manifest_name)
    return sorted(set(files) - set(manifest))
