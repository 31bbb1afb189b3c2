"""Fetch: make ``data/release/`` hold the pinned upstream release, verified file by file.

``python -m analysis.ingest fetch`` runs before the pipeline (``make report`` runs it
before ``dvc repro``). The ``ingest`` stage then reads ``data/release/`` (the default
``ingest.source``): a local folder, the same on every machine, so ``dvc.lock`` and the
provenance record do not depend on where the release came from. In this order:

1. ``data/release/`` already holds every file the manifest (``ingest.manifest``, kept in
   git) lists, each with its SHA-256: nothing to do.
2. The offline mirror ``ingest.mirror`` is a folder: its files are copied in, under the
   same refusals as ingest applies to a dump folder (links, special files, hidden
   characters, clashing names, more than ``ingest.max_files`` entries), and verified.
3. Else the archive ``ingest.release_url`` (https only) is downloaded, kept in
   ``data/download/`` (an archive already there is used instead, without network),
   extracted as ingest extracts archives, and verified.

Only the files the manifest lists go into the new ``data/release/`` (upstream's README and
snippet are left out, as the mirror leaves them out), which replaces the old one in one
rename once complete: a failure leaves ``data/release/`` as it was and no temporary folder
behind. When ``ingest.source`` is anything else (your own dump) fetch does nothing.
params.yaml and every other tracked file are never written.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analysis.core.artifacts import disk_error, move_file, replace_folder
from analysis.core.config import load_params
from analysis.core.errors import InputError
from analysis.core.paths import PATHS, Paths, project_path
from analysis.core.textsafe import visible
from analysis.ingest.ingest import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_FILES,
    DownloadError,
    cache_name,
    collect_files,
    copy_dump_file,
    download,
    dump_root,
    extract_archive,
    name_limits,
    parse_manifest,
    positive_int_param,
    sha256_dump_file,
    sha256_file,
    source_kind,
    unreadable,
    verify_against_manifest,
)

KIND_NAMES = {"dir": "a folder", "archive": "an archive", "url": "a URL"}
LISTED = 3  # file names shown in a message before "and N more"


def shown(path: Path, root: Path) -> str:
    """``path`` as messages show it: relative to the project ``root`` when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _release_help() -> tuple[str, str]:
    release = shown(PATHS.release, PATHS.root)
    cache = shown(PATHS.downloads_cache, PATHS.root)
    manifest = shown(PATHS.release_manifest, PATHS.root)
    summary = f"make {release}/ hold the pinned release (from the mirror or the download)"
    description = f"""\
Make {release}/ hold the pinned upstream release, every file verified against the
manifest ingest.manifest ({manifest}, kept in git). In this order:

  1. {release}/ already holds every listed file with its SHA-256: nothing to do.
  2. the offline mirror ingest.mirror is a folder: copy it in (refusing links, special
     files, hidden characters, clashing names and more than ingest.max_files entries,
     as ingest does) and verify.
  3. else download ingest.release_url (https only) into {cache}/ (an archive already
     there is used, without network), extract it safely and verify.

Only listed files go into {release}/, which is replaced only once the new copy is
complete: a failure leaves it as it was. Without network, put the release (a folder in
the upstream layout) at {release}/, or its archive in {cache}/,
or set ingest.mirror or ingest.source to it. When ingest.source is not {release}
(your own dump), fetch does nothing. params.yaml is never changed. Certificates are
checked against the system's (SSL_CERT_FILE names another CA bundle)."""
    return summary, description


SUMMARY, DESCRIPTION = _release_help()


def same_path(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name the same path (compared as written, links not
    followed)."""
    return os.path.abspath(a) == os.path.abspath(b)


def listing(names: list[str]) -> str:
    """A few names for a message: ``a, b, c and 4 more``."""
    text = ", ".join(visible(name) for name in names[:LISTED])
    return text + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def files_phrase(count: int) -> str:
    return f"{count} file" + ("" if count == 1 else "s")


def holds_something(folder: Path) -> bool:
    """True unless ``folder`` is absent or an empty folder (nothing there to verify)."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return True
    return folder.is_dir() and any(True for _ in folder.iterdir())


def check_release(folder: Path, entries: dict[str, str], manifest: str,
                  max_files: int) -> list[str]:
    """Verify that ``folder`` holds every file of the manifest, with its SHA-256; return
    the files it holds that the manifest does not list. Links, special files and the rest
    are refused as in a dump (see :func:`collect_files`)."""
    files, _junk = collect_files(folder, max_files=max_files)
    hashes = {rel: sha256_dump_file(rel, item) for rel, item in files.items() if rel in entries}
    verify_against_manifest(hashes, entries, manifest)
    return sorted(set(files) - set(entries))


def stage_release(folder: Path, staged: Path, final: Path, entries: dict[str, str],
                  manifest: str, max_files: int, origin: str, mismatch_fix: str) -> list[str]:
    """Copy the files of the dump ``folder`` that the manifest lists into the new folder
    ``staged`` (to be moved to ``final``) and verify the copies; return the files left out
    (not listed).

    The dump is checked as ingest checks a folder source (see :func:`collect_files`);
    every message says which ``origin`` (the mirror, the archive) it is about.
    """
    try:
        files, _junk = collect_files(folder, max_files=max_files,
                                     limits=name_limits(staged.parent, staged, final))
        staged.mkdir()
        hashes = {rel: copy_dump_file(rel, files[rel], staged / rel, final=final / rel)
                  for rel in sorted(entries) if rel in files}
    except InputError as exc:
        raise InputError(f"{exc.problem} (in the {origin})", file=exc.file, fix=exc.fix) from exc
    try:
        verify_against_manifest(hashes, entries, manifest)
    except InputError as exc:
        raise InputError(f"{exc.problem} (in the {origin})", file=exc.file,
                         fix=mismatch_fix) from exc
    return sorted(set(files) - set(entries))


@contextmanager
def staging(parent: Path) -> Iterator[Path]:
    """A temporary folder in ``parent`` (so that moving out of it is a rename), removed on
    leaving, whatever happened."""
    try:
        parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".fetch-", dir=parent))
    except OSError as exc:
        raise disk_error(exc, parent) from exc
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def read_manifest(manifest: str, paths: Paths) -> dict[str, str]:
    """The manifest's entries (path -> SHA-256); a missing, unreadable or empty manifest
    is one message."""
    path = project_path(manifest, paths.root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError(
            "manifest not found", file=manifest,
            fix=f"restore {shown(paths.release_manifest, paths.root)} from git or fix "
                "ingest.manifest",
        ) from exc
    except OSError as exc:
        raise unreadable(exc, path) from exc
    entries = parse_manifest(text, manifest)
    if not entries:
        raise InputError("manifest lists no files", file=manifest,
                         fix="restore the release's manifest or fix ingest.manifest")
    return entries


def release_url(cfg: dict, params_name: str) -> str:
    """``ingest.release_url``, refusing anything but an https URL."""
    url = cfg.get("release_url")
    if not url or not str(url).lower().startswith("https://"):
        raise InputError(
            f"ingest.release_url must be the https:// URL of the release archive, not {url!r}",
            file=params_name, column="ingest.release_url",
            fix="set it to the archive URL of the pinned commit (see the README)",
        )
    return str(url)


def fetch(cfg: dict, paths: Paths = PATHS, params_name: str | None = None,
          cafile: str | None = None) -> str:
    """Make ``paths.release`` hold the pinned release (see the module's documentation);
    return the one line that says what was done. ``cfg`` is the ``ingest`` section of the
    params; relative paths in it are relative to ``paths.root``. Every failure is an
    :class:`InputError` and leaves ``paths.release`` as it was."""
    root = paths.root
    params_name = params_name or shown(paths.params, root)
    release = shown(paths.release, root)
    source = cfg.get("source")
    if source is None or str(source) == "":
        raise InputError("ingest.source is not set", file=params_name, column="ingest.source",
                         fix=f"set it to {release} (the pinned release) or to your own dump")
    if not same_path(project_path(str(source), root), paths.release):
        kind = source_kind(str(source), root)  # a missing source is one message, now
        return (f"ingest.source is {source} ({KIND_NAMES[kind]}), not {release}: nothing to "
                "fetch, ingest reads that source as it is")

    if not cfg.get("manifest"):
        raise InputError(
            "ingest.manifest is not set; fetch verifies every file of the release against it",
            file=params_name, column="ingest.manifest",
            fix=f"set it to {shown(paths.release_manifest, root)}",
        )
    manifest = str(cfg["manifest"])
    entries = read_manifest(manifest, paths)
    max_files = positive_int_param(cfg, "max_files", DEFAULT_MAX_FILES, params_name)
    max_bytes = positive_int_param(cfg, "max_bytes", DEFAULT_MAX_BYTES, params_name)
    commit = cfg.get("commit")
    what = f"{files_phrase(len(entries))} verified against {manifest}"
    if commit:
        what = f"commit {str(commit)[:7]}, {what}"

    replaced = ""
    if holds_something(paths.release):
        try:
            extra = check_release(paths.release, entries, manifest, max_files)
        except InputError as exc:
            replaced = f"; it replaces a copy that did not verify ({exc.where}: {exc.problem})"
        else:
            kept = (f"; {files_phrase(len(extra))} not in the manifest, left there: "
                    f"{listing(extra)}") if extra else ""
            return f"{release} already holds the pinned release ({what}); nothing to do{kept}"

    mirror = cfg.get("mirror")
    mirror_path = project_path(str(mirror), root) if mirror else None
    with staging(paths.release.parent) as work:
        staged = work / "release"
        if mirror_path is not None and mirror_path.is_dir():
            left_out = stage_release(
                mirror_path, staged, paths.release, entries, manifest, max_files,
                f"mirror {mirror}",
                "the mirror is not the pinned release; repair it, or set ingest.mirror to a "
                "good copy (or to null to download the release)",
            )
            how = f"copied from the mirror {mirror}"
        else:
            left_out, how = stage_download(cfg, paths, work, entries, manifest, max_files,
                                           max_bytes, params_name, cafile)
        replace_folder(staged, paths.release, aside=work / "previous")
    skipped = (f"; {files_phrase(len(left_out))} not in the manifest left out: "
               f"{listing(left_out)}") if left_out else ""
    return f"{release}: the pinned release ({what}), {how}{skipped}{replaced}"


def stage_download(cfg: dict, paths: Paths, work: Path, entries: dict[str, str],
                   manifest: str, max_files: int, max_bytes: int, params_name: str,
                   cafile: str | None) -> tuple[list[str], str]:
    """Stage the release from its archive into ``work/release``: the one kept in the
    downloads cache, else a download (kept in the cache once its files verified). Returns
    the files left out and how the release was had."""
    root = paths.root
    url = release_url(cfg, params_name)
    cached = paths.downloads_cache / cache_name(url)
    expected = cfg.get("archive_sha256")
    from_cache = cached.is_file() and (not expected or sha256_file(cached) == expected.lower())
    if from_cache:
        archive = cached
        origin = f"cached archive {shown(cached, root)}"
        fix = (f"the cached archive is not the pinned release; delete {shown(cached, root)} "
               "to download the release again")
        how = f"from the archive already in {shown(cached, root)}, without downloading"
    else:
        archive = work / cached.name
        try:
            download(url, archive, expected, cafile=cafile, max_bytes=max_bytes)
        except DownloadError as exc:
            raise offline_error(exc, cfg, paths, cached) from exc
        origin = f"archive downloaded from {url}"
        fix = ("the archive is not the release the manifest lists; check ingest.release_url "
               "and ingest.manifest")
        how = f"downloaded from {url} (kept in {shown(cached, root)})"
    unpacked = work / "unpacked"
    try:
        extract_archive(archive, unpacked, max_bytes=max_bytes, max_files=max_files,
                        limits=name_limits(work, unpacked))
    except InputError as exc:
        if not from_cache:
            raise
        raise InputError(exc.problem, file=exc.file, fix=fix) from exc
    left_out = stage_release(dump_root(unpacked), work / "release", paths.release, entries,
                             manifest, max_files, origin, fix)
    if not from_cache:
        try:
            move_file(archive, cached)
        except OSError as exc:
            raise disk_error(exc, cached) from exc
    return left_out, how


def offline_error(exc: DownloadError, cfg: dict, paths: Paths, cached: Path) -> InputError:
    """The one message for a download that failed: what failed and why, and where to put
    the release instead (which param to set)."""
    root = paths.root
    mirror = cfg.get("mirror")
    problem = exc.problem + (f"; no mirror folder at {mirror} (ingest.mirror)" if mirror
                             else "; ingest.mirror is not set")
    release = shown(paths.release, root)
    return InputError(
        problem, file=exc.file,
        fix=(f"without network, put the release (a folder in the upstream layout) at "
             f"{release}/ or its archive at {shown(cached, root)}, or set ingest.mirror to "
             "such a folder, or set ingest.source to your own folder or archive"),
    )


def run(params_file: Path, cafile: str | None = None) -> int:
    """``python -m analysis.ingest fetch``: fetch for the project whose params file is
    ``params_file``; one line on stdout, or one on stderr and exit code 1."""
    params_file = Path(os.path.abspath(params_file))
    try:
        cfg = load_params(params_file).get("ingest") or {}
        if not isinstance(cfg, dict):
            raise InputError("the ingest section is not a mapping", file=str(params_file),
                             fix="see the ingest section of the repository's params.yaml")
        message = fetch(cfg, Paths(params_file.parent), str(params_file), cafile=cafile)
    except InputError as exc:
        print(f"ingest fetch: {exc}", file=sys.stderr)
        return 1
    print(f"ingest fetch: {message}")
    return 0

