"""Ingest: copy the released data into ``data/raw/`` and record where it came from.

The source is a local folder in the upstream layout, a local ``.zip``/``.tar.gz``
archive, or an ``https://`` URL of such an archive (GitHub's archive of a commit, for
instance). Every file is checked against a SHA-256 manifest when one is given; archives
are extracted without letting any entry escape the target folder; operating-system junk
(``.DS_Store``, ``__MACOSX/``...) is ignored. The result is ``data/raw/`` plus a
provenance record (source, commit, per-file hashes; no timestamps, so it is byte-stable).

A dump is untrusted input: what it may not hold is in :mod:`analysis.core.dumpsafety`; the
walk and the one opening of each file in :mod:`analysis.core.dumpfiles` (shared with every
other reader of a dump), the one-pass copy in :mod:`analysis.ingest.files`, archives in
:mod:`analysis.ingest.archives`, downloads in :mod:`analysis.ingest.download`. A refused or
failed run leaves ``data/raw/`` as it was and no temporary folder behind.
``python -m analysis.ingest fetch`` (:mod:`analysis.ingest.fetch`) first makes
``data/release/`` hold the pinned release, the default source. Run as
``python -m analysis.ingest --help``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from analysis.core.artifacts import atomic_folder, sha256_file, temporary_folder
from analysis.core.dumpsafety import DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, ROOT, project_path
from analysis.ingest.archives import ARCHIVE_SUFFIXES, unpack
from analysis.ingest.download import cache_name, download, https_url
from analysis.ingest.files import copy_dump, parse_manifest, verify_against_manifest

COMMIT_RE = re.compile(r"(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])")
STAGING_PREFIX = ".ingest-"


@dataclass(frozen=True)
class IngestResult:
    """What ingest produced: the files copied and the provenance record."""

    files: dict[str, dict]
    ignored: list[str]
    provenance: dict


def source_kind(source: str, root: Path = ROOT) -> str:
    """Classify a source as ``url``, ``archive`` or ``dir`` (refusing anything else); a
    relative path is taken relative to ``root``."""
    if https_url(source):
        return "url"
    path = project_path(source, root)
    if path.is_dir():
        return "dir"
    if path.is_file() and source.lower().endswith(ARCHIVE_SUFFIXES):
        return "archive"
    if path.is_file():
        raise InputError("source file is not a .zip, .tar.gz or .tar archive", file=source,
                         fix="point ingest.source at a folder in the upstream layout or an "
                             "archive")
    raise InputError("source not found", file=source,
                     fix="set ingest.source in params.yaml to a folder, archive or https URL")


def detect_commit(*candidates: str | None) -> str | None:
    """The first 40-hex commit id found in the given strings (URL, archive folder name)."""
    for text in candidates:
        if text:
            m = COMMIT_RE.search(text)
            if m:
                return m.group(1)
    return None


def local_archive(source: str, kind: str, archive_sha256: str | None, download_dir: Path | None,
                  cafile: str | None, max_bytes: int) -> Path:
    """The archive a source of kind ``archive`` or ``url`` names, on this machine: a URL's
    is downloaded into ``download_dir`` (the downloads cache), unless it is there already
    with the expected SHA-256; ``archive_sha256``, when given, is checked."""
    if kind == "url":
        archive = (download_dir or PATHS.downloads_cache) / cache_name(source)
        if not archive.exists() or (
            archive_sha256 and sha256_file(archive) != archive_sha256.lower()
        ):
            download(source, archive, archive_sha256, cafile=cafile, max_bytes=max_bytes)
        return archive
    archive = project_path(source)
    if archive_sha256 and sha256_file(archive) != archive_sha256.lower():
        raise InputError("archive SHA-256 does not match ingest.archive_sha256", file=source,
                         fix="use the right archive or correct the checksum")
    return archive


@dataclass(frozen=True)
class Source:
    """A source as a folder: the folder that holds the dump, the one folder an archive
    wraps it in (GitHub's ``<repo>-<commit>/``; None for a folder source or an archive
    without one) and the archive's SHA-256 (None for a folder source)."""

    root: Path
    top_name: str | None = None
    archive_sha256: str | None = None


@contextmanager
def source_folder(source: str, kind: str, dest: Path, archive_sha256: str | None = None,
                  download_dir: Path | None = None, cafile: str | None = None,
                  max_bytes: int = DEFAULT_MAX_BYTES,
                  max_files: int = DEFAULT_MAX_FILES) -> Iterator[Source]:
    """The dump ``source`` names (of kind ``kind``, see :func:`source_kind`) as a folder to
    be copied to ``dest``: a folder source as it is; an archive (a URL's downloaded first,
    see :func:`local_archive`) extracted into a temporary folder (:func:`unpack`) that is
    removed on leaving."""
    if kind == "dir":
        yield Source(project_path(source))
        return
    archive = local_archive(source, kind, archive_sha256, download_dir, cafile, max_bytes)
    digest = sha256_file(archive)
    with temporary_folder(dest, f"{STAGING_PREFIX}{dest.name}-") as work:
        unpacked = work / "unpacked"
        root = unpack(archive, unpacked, max_bytes=max_bytes, max_files=max_files)
        yield Source(root, root.name if root != unpacked else None, digest)


def check_manifest(manifest: str, hashes: dict[str, str]) -> tuple[dict, list[str]]:
    """Check ``hashes`` (relative path -> SHA-256 of the bytes copied) against the manifest
    file ``manifest`` (:func:`verify_against_manifest`); return the provenance's record of
    the manifest and the files it does not list."""
    mpath = project_path(manifest)
    if not mpath.is_file():
        raise InputError("manifest not found", file=manifest,
                         fix="fix ingest.manifest or set it to null")
    entries = parse_manifest(mpath.read_text(encoding="utf-8"), manifest)
    info = {"path": manifest, "sha256": sha256_file(mpath), "files_listed": len(entries)}
    return info, verify_against_manifest(hashes, entries, manifest)


def ingest(source: str, dest: Path, manifest: str | None = None, commit: str | None = None,
           archive_sha256: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
           download_dir: Path | None = None, cafile: str | None = None,
           max_files: int = DEFAULT_MAX_FILES) -> IngestResult:
    """Materialise ``source`` as ``dest`` (replacing it whole, once complete:
    :func:`~analysis.core.artifacts.atomic_folder`), verified and with provenance: the
    manifest is checked against, and the provenance records, the hashes of the bytes
    copied (:func:`copy_dump`)."""
    kind = source_kind(source)
    dest = Path(dest)
    with (atomic_folder(dest, public=False) as staged,
          source_folder(source, kind, dest, archive_sha256, download_dir, cafile, max_bytes,
                        max_files) as found):
        copied = copy_dump(found.root, staged, dest, max_files=max_files)
        hashes = copied.hashes
        if not hashes:
            raise InputError("source holds no files", file=source, fix="check ingest.source")
        manifest_info, unlisted = check_manifest(manifest, hashes) if manifest else (None, [])
        sizes = {rel: (staged / rel).stat().st_size for rel in hashes}

    detected = detect_commit(source if kind != "dir" else None, found.top_name)
    record = {
        "source": source, "source_kind": kind, "archive_sha256": found.archive_sha256,
        "commit": detected or commit,
        "commit_from": "source" if detected else ("params" if commit else None),
        "commit_declared": commit, "manifest": manifest_info,
        "verified": manifest_info is not None,
        "files": {rel: {"sha256": hashes[rel], "bytes": sizes[rel],
                        "in_manifest": (rel not in unlisted) if manifest_info else None}
                  for rel in sorted(hashes)},
        "not_in_manifest": unlisted, "ignored": copied.ignored, "file_count": len(hashes),
    }
    record["total_bytes"] = sum(f["bytes"] for f in record["files"].values())
    return IngestResult(files=record["files"], ignored=copied.ignored, provenance=record)


STUDY_DUMP = "dump"  # in the study stage's folder (analysis.update.study.build)
STUDY_RECORD = "study.json"


def study_provenance(release: dict, batches: list[dict], files: dict[str, dict]) -> dict:
    """The provenance of a study: the release's (its source, commit and verification
    against the manifest, as ingest records them), with, when batches extend it, the
    study's own files and the batches (each one's inputs and counts). Without a batch it
    is the release's record, unchanged."""
    if not batches:
        return release
    return {**release, "files": files, "file_count": len(files),
            "total_bytes": sum(f["bytes"] for f in files.values()),
            "study": {"batches": batches}}


def missing_interview_files(dump: Path) -> list[str]:
    """The interview files (:meth:`~analysis.core.paths.Paths.raw_interview_files`) that
    the dump folder ``dump`` lacks. The interviews stage depends on them by name
    (dvc.yaml), so a study without one stops at ingest, naming it, not in DVC."""
    return [path.name for path in PATHS.raw_interview_files()
            if not (dump / path.name).is_file()]


def ingest_study(study: Path, dest: Path, max_files: int = DEFAULT_MAX_FILES) -> IngestResult:
    """Copy the dump of the study stage's folder ``study`` (``dump/``, and its record
    ``study.json``) as ``dest``, as :func:`ingest` copies a dump, with the provenance
    :func:`study_provenance` gives. Without a batch the bytes copied must be the release's
    (a study stage folder that says otherwise is refused)."""
    study, dest = Path(study), Path(dest)
    try:
        record = json.loads((study / STUDY_RECORD).read_text(encoding="utf-8"))
        release, batches = record["release"], record["batches"]
        listed = {rel: entry["sha256"] for rel, entry in release["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"not the study stage's record ({exc})", file=str(study / STUDY_RECORD),
                         fix="run the study stage again (dvc repro study)") from exc
    with atomic_folder(dest, public=False) as staged:
        copied = copy_dump(study / STUDY_DUMP, staged, dest, max_files=max_files)
        sizes = {rel: (staged / rel).stat().st_size for rel in copied.hashes}
        if not batches and copied.hashes != listed:
            raise InputError("the study holds other files than the release it records",
                             file=str(study / STUDY_DUMP),
                             fix="run the study stage again (dvc repro study)")
        missing = missing_interview_files(staged)
        if missing:
            raise InputError(f"the release has no {', '.join(map(repr, missing))} (the "
                             "interviews stage reads the three interview files)",
                             file=str(release.get("source") or study / STUDY_DUMP),
                             fix="put the release's interview files in the dump, as "
                                 "docs/your-own-dump.md shows")
    manifest = set(listed) - set(release.get("not_in_manifest") or [])
    verified = release.get("manifest") is not None
    files = {rel: {"sha256": copied.hashes[rel], "bytes": sizes[rel],
                   "in_manifest": (rel in manifest) if verified else None}
             for rel in sorted(copied.hashes)}
    provenance = study_provenance(release, batches, files)
    return IngestResult(files=provenance["files"], ignored=copied.ignored,
                        provenance=provenance)
