"""Fetch: make ``data/release/`` hold the pinned upstream release, verified file by file.

``python -m analysis.ingest fetch`` runs before the pipeline (``make report`` runs it
before ``dvc repro``). The ``ingest`` stage then reads ``data/release/`` (the default
``ingest.source``): a local folder, the same on every machine, so ``dvc.lock`` and the
provenance record do not depend on where the release came from. What it does, in order,
is :data:`DESCRIPTION` (its ``--help``). Only the files the manifest lists go into the new
``data/release/`` (upstream's README and snippet are left out, as the mirror leaves them
out). params.yaml and every other tracked file are never written.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from analysis.core.artifacts import (
    atomic_folder,
    disk_error,
    move_file,
    remove_path,
    sha256_file,
    temporary_folder,
)
from analysis.core.dumpfiles import unreadable
from analysis.core.errors import InputError, run_command
from analysis.core.formatting import plural
from analysis.core.paths import PATHS, Paths, project_path
from analysis.core.textsafe import visible
from analysis.ingest import swh
from analysis.ingest.archives import unpack
from analysis.ingest.download import DownloadError, cache_name, download
from analysis.ingest.files import (
    copy_dump,
    parse_manifest,
    verify_against_manifest,
    verify_folder,
)
from analysis.ingest.ingest import source_kind
from analysis.ingest.params import IngestParams

KIND_NAMES = {"dir": "a folder", "archive": "an archive", "url": "a URL"}
LISTED = 3  # file names shown in a message before "and N more"
WORK_PREFIX = ".fetch-"


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
  4. if that fails and ingest.swh_directory is set: the same files from Software
     Heritage's archive, the tarball its vault (ingest.swh_api) cooks of that directory
     (one already in {cache}/ is used, without network), verified the same way. When
     every source fails, one message lists each failure in the order tried.

Only listed files go into {release}/, which is replaced only once the new copy is
complete: a failure leaves it as it was. Without network, put the release (a folder in
the upstream layout) at {release}/, or its archive in {cache}/,
or set ingest.mirror or ingest.source to it. When ingest.source is not {release}
(your own dump), fetch does nothing. params.yaml is never changed. Certificates are
checked against the system's (SSL_CERT_FILE names another CA bundle)."""
    return summary, description


SUMMARY, DESCRIPTION = _release_help()


def listing(names: list[str]) -> str:
    """A few names for a message: ``a, b, c and 4 more``."""
    text = ", ".join(visible(name) for name in names[:LISTED])
    return text + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def holds_something(folder: Path) -> bool:
    """True unless ``folder`` is absent or an empty folder (nothing there to verify)."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return True
    return folder.is_dir() and any(True for _ in folder.iterdir())


def stage_release(folder: Path, staged: Path, final: Path, entries: dict[str, str],
                  manifest: str, max_files: int, origin: str, mismatch_fix: str) -> list[str]:
    """Copy the files of the dump ``folder`` that the manifest lists into the folder
    ``staged`` (to become ``final``) as ingest copies a folder source (:func:`copy_dump`),
    and verify the copies; return the files left out (not listed). Every message says
    which ``origin`` (the mirror, the archive) it is about."""
    try:
        copied = copy_dump(folder, staged, final, max_files=max_files, only=entries)
    except InputError as exc:
        raise InputError(f"{exc.problem} (in the {origin})", file=exc.file, fix=exc.fix) from exc
    try:
        verify_against_manifest(copied.hashes, entries, manifest)
    except InputError as exc:
        raise InputError(f"{exc.problem} (in the {origin})", file=exc.file,
                         fix=mismatch_fix) from exc
    return sorted(set(copied.found) - set(entries))


def read_manifest(manifest: str, paths: Paths) -> dict[str, str]:
    """The manifest's entries (path -> SHA-256); a missing, unreadable or empty manifest
    is one message."""
    path = project_path(manifest, paths.root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError("manifest not found", file=manifest,
                         fix=f"restore {shown(paths.release_manifest, paths.root)} from git or "
                             "fix ingest.manifest") from exc
    except OSError as exc:
        raise unreadable(exc, path) from exc
    entries = parse_manifest(text, manifest)
    if not entries:
        raise InputError("manifest lists no files", file=manifest,
                         fix="restore the release's manifest or fix ingest.manifest")
    return entries


def https_param(url: str | None, key: str, what: str, params_name: str, fix: str) -> str:
    """``url``, the value of ``ingest.<key>`` in ``params_name``: the address of ``what``
    that the release is downloaded from, refused in one message (with ``fix``) unless it
    is an https URL, so that nothing is downloaded unencrypted or from a local path."""
    if not url or not url.lower().startswith("https://"):
        raise InputError(f"ingest.{key} must be the https:// URL of {what}, not {url!r}",
                         file=params_name, column=f"ingest.{key}", fix=fix)
    return url


def release_url(params: IngestParams, params_name: str) -> str:
    """``ingest.release_url``, refusing anything but an https URL."""
    return https_param(params.release_url, "release_url", "the release archive", params_name,
                       "set it to the archive URL of the pinned commit (see docs/data.md)")


def fetch(params: IngestParams, paths: Paths = PATHS, params_name: str | None = None,
          cafile: str | None = None) -> str:
    """Make ``paths.release`` hold the pinned release (see the module's documentation);
    return the one line that says what was done. ``params`` is the ``ingest`` section of
    the params file (``params_name``); relative paths in it are relative to ``paths.root``.
    Every failure is an :class:`InputError` and leaves ``paths.release`` as it was."""
    root = paths.root
    params_name = params_name or shown(paths.params, root)
    release = shown(paths.release, root)
    source = params.source
    if os.path.abspath(project_path(source, root)) != os.path.abspath(paths.release):
        kind = source_kind(source, root)  # a missing source is one message, now
        return (f"ingest.source is {source} ({KIND_NAMES[kind]}), not {release}: nothing to "
                "fetch, ingest reads that source as it is")

    if not params.manifest:
        raise InputError("ingest.manifest is not set; fetch verifies every file of the release "
                         "against it", file=params_name, column="ingest.manifest",
                         fix=f"set it to {shown(paths.release_manifest, root)}")
    manifest = params.manifest
    entries = read_manifest(manifest, paths)
    max_files = params.max_files
    what = f"{plural(len(entries), 'file')} verified against {manifest}"
    if params.commit:
        what = f"commit {params.commit[:7]}, {what}"

    replaced = ""
    if holds_something(paths.release):
        try:
            extra = verify_folder(paths.release, entries, manifest, max_files)
        except InputError as exc:
            replaced = f"; it replaces a copy that did not verify ({exc.where}: {exc.problem})"
        else:
            kept = (f"; {plural(len(extra), 'file')} not in the manifest, left there: "
                    f"{listing(extra)}") if extra else ""
            return f"{release} already holds the pinned release ({what}); nothing to do{kept}"

    mirror = params.mirror
    mirror_path = project_path(mirror, root) if mirror else None
    with atomic_folder(paths.release, public=False) as staged:
        if mirror_path is not None and mirror_path.is_dir():
            left_out = stage_release(
                mirror_path, staged, paths.release, entries, manifest, max_files,
                f"mirror {mirror}",
                "the mirror is not the pinned release; repair it, or set ingest.mirror to a "
                "good copy (or to null to download the release)",
            )
            how = f"copied from the mirror {mirror}"
        else:
            left_out, how = stage_download(params, paths, staged, entries, params_name,
                                           cafile)
    skipped = (f"; {plural(len(left_out), 'file')} not in the manifest left out: "
               f"{listing(left_out)}") if left_out else ""
    return f"{release}: the pinned release ({what}), {how}{skipped}{replaced}"


def stage_download(params: IngestParams, paths: Paths, staged: Path, entries: dict[str, str],
                   params_name: str, cafile: str | None) -> tuple[list[str], str]:
    """Stage the release from an archive into ``staged``, trying each source of
    :func:`release_routes` in turn (GitHub, then Software Heritage) until one gives files
    that verify. Returns the files left out and how the release was had; when every
    source fails, one message lists the failures in the order tried."""
    routes = release_routes(params, params_name)
    failures: list[tuple[str, InputError]] = []
    for name, route in routes:
        try:
            return stage_route(route, params, paths, staged, entries, cafile)
        except InputError as exc:
            failures.append((name, exc))
            empty_folder(staged)
    if len(failures) > 1:
        raise every_source_failed(failures, params.mirror, paths)
    failure = failures[0][1]
    if isinstance(failure, DownloadError):
        cached = paths.downloads_cache / cache_name(release_url(params, params_name))
        raise offline_error(failure, params.mirror, paths, cached) from failure
    raise failure


def empty_folder(folder: Path) -> None:
    """Remove what a failed attempt left in ``folder`` (the folder itself stays)."""
    for child in folder.iterdir():
        remove_path(child)


def release_routes(params: IngestParams, params_name: str) -> list[tuple[str, Callable]]:
    """The sources of the release's archive, in the order they are tried: GitHub
    (``ingest.release_url``), then, when ``ingest.swh_directory`` is set, Software
    Heritage's vault. Each is (its name in messages, a function giving the
    :class:`ReleaseArchive` from ``(params, paths, work, cafile)``)."""
    url = release_url(params, params_name)
    routes: list[tuple[str, Callable]] = [
        (url, lambda p, paths, work, ca: release_archive(p, paths, work, url, ca))]
    if params.swh_directory:
        api = swh_api(params, params_name)
        routes.append((f"Software Heritage {params.swh_directory}",
                       lambda p, paths, work, ca: swh_archive(p, paths, work, api, ca)))
    return routes


def swh_api(params: IngestParams, params_name: str) -> str:
    """``ingest.swh_api``, refusing anything but an https URL."""
    return https_param(params.swh_api, "swh_api", "Software Heritage's web API", params_name,
                       "set it to https://archive.softwareheritage.org/api/1/ (or "
                       "ingest.swh_directory to null)")


def stage_route(route: Callable, params: IngestParams, paths: Paths, staged: Path,
                entries: dict[str, str], cafile: str | None) -> tuple[list[str], str]:
    """Stage the release from the archive one source gives (``route``), extracted in a
    temporary folder removed on leaving; a downloaded archive is kept in the downloads
    cache once its files verified."""
    with temporary_folder(paths.release, WORK_PREFIX) as work:
        archive = route(params, paths, work, cafile)
        try:
            root = unpack(archive.path, work / "unpacked", max_bytes=params.max_bytes,
                          max_files=params.max_files)
        except InputError as exc:
            if not archive.from_cache:
                raise
            raise InputError(exc.problem, file=exc.file, fix=archive.fix) from exc
        left_out = stage_release(root, staged, paths.release, entries, str(params.manifest),
                                 params.max_files, archive.origin, archive.fix)
        if not archive.from_cache:
            try:
                move_file(archive.path, archive.cached)
            except OSError as exc:
                raise disk_error(exc, archive.cached) from exc
    return left_out, archive.how


@dataclass(frozen=True)
class ReleaseArchive:
    """The release's archive on this machine (``path``), where it is kept (``cached``: the
    same file when it was there already), and how messages speak of it: what its files are
    said to be in (``origin``), what to do when they do not verify (``fix``), how the
    release was had (``how``)."""

    path: Path
    cached: Path
    origin: str
    fix: str
    how: str

    @property
    def from_cache(self) -> bool:
        return self.path == self.cached


def cached_archive(cached: Path, root: Path, expected: str | None = None
                   ) -> ReleaseArchive | None:
    """The archive already kept at ``cached`` (with the SHA-256 ``expected``, when given),
    or None."""
    if not cached.is_file() or (expected and sha256_file(cached) != expected.lower()):
        return None
    return ReleaseArchive(
        cached, cached, f"cached archive {shown(cached, root)}",
        f"the cached archive is not the pinned release; delete {shown(cached, root)} to "
        "download the release again",
        f"from the archive already in {shown(cached, root)}, without downloading")


def release_archive(params: IngestParams, paths: Paths, work: Path, url: str,
                    cafile: str | None) -> ReleaseArchive:
    """The archive of ``ingest.release_url`` (``url``): the one in the downloads cache when
    it is there (with ``ingest.archive_sha256``, when set), else downloaded into ``work``."""
    root = paths.root
    cached = paths.downloads_cache / cache_name(url)
    expected = params.archive_sha256
    kept = cached_archive(cached, root, expected)
    if kept is not None:
        return kept
    archive = work / cached.name
    download(url, archive, expected, cafile=cafile, max_bytes=params.max_bytes)
    return ReleaseArchive(
        archive, cached, f"archive downloaded from {url}",
        "the archive is not the release the manifest lists; check ingest.release_url and "
        "ingest.manifest",
        f"downloaded from {url} (kept in {shown(cached, root)})")


def swh_archive(params: IngestParams, paths: Paths, work: Path, api: str,
                cafile: str | None) -> ReleaseArchive:
    """The tarball of ``ingest.swh_directory`` from Software Heritage's vault at ``api``
    (:mod:`analysis.ingest.swh`): the one in the downloads cache when it is there, else
    cooked and downloaded into ``work``."""
    root = paths.root
    directory = str(params.swh_directory)
    cached = paths.downloads_cache / swh.tarball_name(directory)
    kept = cached_archive(cached, root)
    if kept is not None:
        return kept
    archive = work / cached.name
    tarball = swh.cooked_tarball(api, directory, cafile=cafile, wait=params.swh_wait)
    download(tarball, archive, cafile=cafile, max_bytes=params.max_bytes)
    return ReleaseArchive(
        archive, cached, f"tarball of {directory} from Software Heritage",
        "Software Heritage's copy is not the release the manifest lists; check "
        "ingest.swh_directory and ingest.manifest",
        f"downloaded from Software Heritage ({directory}; kept in {shown(cached, root)})")


def every_source_failed(failures: list[tuple[str, InputError]], mirror: str | None,
                        paths: Paths) -> InputError:
    """The one message when every source of the release failed: each failure, numbered in
    the order tried, and where to put the release instead."""
    tried = "; ".join(
        f"{n}) {name}: " + (exc.problem if exc.where in ("", name) else
                            f"{exc.where}: {exc.problem}")
        for n, (name, exc) in enumerate(failures, start=1))
    mirror_note = (f"no mirror folder at {mirror} (ingest.mirror)" if mirror
                   else "ingest.mirror is not set")
    release = shown(paths.release, paths.root)
    cache = shown(paths.downloads_cache, paths.root)
    return InputError(f"no source gave the pinned release ({mirror_note}): {tried}",
                      file=shown(paths.params, paths.root),
                      fix=f"without network, put the release (a folder in the upstream "
                          f"layout) at {release}/ or one of its archives in {cache}/, or set "
                          "ingest.mirror to such a folder, or set ingest.source to your own "
                          "folder or archive")


def offline_error(exc: DownloadError, mirror: str | None, paths: Paths, cached: Path
                  ) -> InputError:
    """The one message for a download that failed: what failed and why, and where to put
    the release instead (which param to set; ``mirror``: ``ingest.mirror``)."""
    root = paths.root
    problem = exc.problem + (f"; no mirror folder at {mirror} (ingest.mirror)" if mirror
                             else "; ingest.mirror is not set")
    release = shown(paths.release, root)
    return InputError(problem, file=exc.file,
                      fix=f"without network, put the release (a folder in the upstream layout) "
                          f"at {release}/ or its archive at {shown(cached, root)}, or set "
                          "ingest.mirror to such a folder, or set ingest.source to your own "
                          "folder or archive")


def run(params_file: Path, cafile: str | None = None) -> int:
    """``python -m analysis.ingest fetch``: fetch for the project whose params file is
    ``params_file``; one line on stdout, or one on stderr and exit code 1."""
    params_file = Path(os.path.abspath(params_file))
    return run_command(
        "ingest fetch", lambda: fetch(IngestParams.load(params_file), Paths(params_file.parent),
                                      str(params_file), cafile=cafile),
        fetched, errors=(InputError,))


def fetched(message: str) -> int:
    """Say what fetch did (``message``); the exit status."""
    print(f"ingest fetch: {message}")
    return 0

