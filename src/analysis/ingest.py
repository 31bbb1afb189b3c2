"""Ingest: copy the released data into ``data/raw/`` and record where it came from.

The source is a local folder in the upstream layout, a local ``.zip``/``.tar.gz``
archive, or an ``https://`` URL of such an archive (GitHub's archive of a commit, for
instance). Every file is checked against a SHA-256 manifest when one is given; archives
are extracted without letting any entry escape the target folder; operating-system junk
(``.DS_Store``, ``__MACOSX/``...) is ignored. The result is ``data/raw/`` plus a
provenance record (source, commit, per-file hashes; no timestamps, so it is byte-stable).

Run as ``python -m analysis.ingest --help``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import ssl
import stat
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .artifacts import disk_error, write_json
from .config import PARAMS_FILE, ROOT, load_params, project_path
from .errors import InputError

JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini", ".gitkeep"}
JUNK_DIRS = {"__MACOSX", ".git", ".svn", ".hg"}
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
COMMIT_RE = re.compile(r"(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-f])")
DEFAULT_MIRROR = "../shared/upstream/LLMChallengeEmpirical"
DEFAULT_MAX_BYTES = 1 << 30  # 1 GiB unpacked: far above the real dump (5 MB)
CHUNK = 1 << 20


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


def source_kind(source: str) -> str:
    """Classify a source as ``url``, ``archive`` or ``dir`` (refusing anything else)."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", source):
        if not source.lower().startswith("https://"):
            raise InputError(
                f"refusing source URL {source!r}: only https:// URLs are accepted",
                file=str(PARAMS_FILE.name),
                column="ingest.source",
                fix="use an https:// URL or a local path",
            )
        return "url"
    path = project_path(source)
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


def sha256_file(path: Path) -> str:
    """SHA-256 hex digest of a file, read in chunks."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(CHUNK), b""):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror})", file=str(path),
                         fix="check that the file exists and is readable") from exc
    return digest.hexdigest()


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
    with dest.open("wb") as out:
        for chunk in iter(lambda: src.read(CHUNK), b""):
            budget[0] += len(chunk)
            _check_budget(budget[0], max_bytes, archive)
            out.write(chunk)


def extract_archive(archive: Path, dest: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
    """Extract a zip or tar archive into ``dest`` safely.

    Refuses absolute paths, ``..`` components, links and special files, and stops once
    more than ``max_bytes`` have been written (counted while writing, not trusted from
    the archive's own headers).
    """
    budget = [0]
    name = str(archive)
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                rel = safe_relpath(info.filename)
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    raise InputError(
                        f"archive entry {info.filename!r} is a symbolic link",
                        file=name,
                        fix="refusing to extract links; use an archive of plain files",
                    )
                if info.is_dir() or not rel:
                    continue
                with zf.open(info) as src:
                    _copy_limited(src, dest / rel, budget, max_bytes, name)
        return
    try:
        tf = tarfile.open(archive)
    except tarfile.TarError as exc:
        raise InputError(
            "not a readable .zip or .tar(.gz) archive", file=name, fix="check the file"
        ) from exc
    with tf:
        for member in tf:
            rel = safe_relpath(member.name)
            if member.issym() or member.islnk():
                raise InputError(
                    f"archive entry {member.name!r} is a link",
                    file=name,
                    fix="refusing to extract links; use an archive of plain files",
                )
            if member.isdir() or not rel:
                continue
            if not member.isfile():
                raise InputError(
                    f"archive entry {member.name!r} is a special file",
                    file=name,
                    fix="refusing to extract it; use an archive of plain files",
                )
            src = tf.extractfile(member)
            if src is None:
                continue
            with src:
                _copy_limited(src, dest / rel, budget, max_bytes, name)


def dump_root(folder: Path) -> Path:
    """The folder holding the dump: ``folder`` itself, or its single top-level folder.

    GitHub archives wrap everything in ``<repo>-<commit>/``; junk entries are ignored
    when deciding.
    """
    entries = [p for p in folder.iterdir() if not is_junk(p.name) and p.name not in JUNK_DIRS]
    if len(entries) == 1 and entries[0].is_dir() and not (folder / "Issue Report").exists():
        return entries[0]
    return folder


def download(
    url: str, dest: Path, sha256: str | None = None, cafile: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = 60.0,
) -> Path:
    """Download an https URL to ``dest`` (atomically), checking its SHA-256 when given."""
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
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(
            f"download failed ({exc})",
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


def collect_files(root: Path) -> tuple[dict[str, Path], list[str]]:
    """All regular files under ``root`` (relative POSIX path -> path) and ignored junk.

    Symbolic links are refused: a link in a dump could point anywhere on the machine.
    """
    files: dict[str, Path] = {}
    ignored: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        base = Path(dirpath)
        for d in list(dirnames):
            if (base / d).is_symlink():
                raise InputError(
                    "source contains a symbolic link",
                    file=str((base / d).relative_to(root)),
                    fix="replace the link by the files it points to",
                )
        for fname in sorted(filenames):
            path = base / fname
            rel = path.relative_to(root).as_posix()
            if is_junk(rel):
                ignored.append(rel)
                continue
            if path.is_symlink():
                raise InputError(
                    "source contains a symbolic link",
                    file=rel,
                    fix="replace the link by the file it points to",
                )
            files[rel] = path
        dirnames[:] = [d for d in dirnames if d not in JUNK_DIRS]
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


def ingest(
    source: str,
    dest: Path,
    manifest: str | None = None,
    commit: str | None = None,
    archive_sha256: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    download_dir: Path | None = None,
    cafile: str | None = None,
) -> IngestResult:
    """Materialise ``source`` as ``dest`` (replacing it), verified and with provenance."""
    kind = source_kind(source)
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".ingest-", dir=dest.parent))
    try:
        top_name = None
        archive_digest = None
        if kind == "dir":
            root = project_path(source)
        else:
            if kind == "url":
                cache = download_dir or (ROOT / "data" / "download")
                name = re.sub(r"[^A-Za-z0-9._-]+", "_", source.rsplit("/", 1)[-1]) or "archive"
                archive = cache / name
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
            extract_archive(archive, unpacked, max_bytes=max_bytes)
            root = dump_root(unpacked)
            top_name = root.name if root != unpacked else None
        files, ignored = collect_files(root)
        if not files:
            raise InputError("source holds no files", file=source, fix="check ingest.source")
        hashes = {rel: sha256_file(p) for rel, p in files.items()}
        manifest_info = None
        unlisted: list[str] = []
        if manifest:
            mpath = project_path(manifest)
            if not mpath.is_file():
                raise InputError(
                    "manifest not found", file=manifest, fix="fix ingest.manifest or set it to null"
                )
            entries = parse_manifest(mpath.read_text(encoding="utf-8"), manifest)
            unlisted = verify_against_manifest(hashes, entries, manifest)
            manifest_info = {
                "path": manifest,
                "sha256": sha256_file(mpath),
                "files_listed": len(entries),
            }
        staged = work / "raw"
        for rel, path in files.items():
            target = staged / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(path, target)
            except OSError as exc:
                raise disk_error(exc, target) from exc
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staged, dest)
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
                "bytes": (dest / rel).stat().st_size,
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


def resolve_default_source(params: dict, params_file: Path = PARAMS_FILE) -> str | None:
    """Fall back to the pinned archive URL when the default mirror folder is absent.

    Only the default source (the offline mirror) falls back; any other missing path is an
    error. params.yaml is rewritten so that DVC, and ``git diff``, see the switch. Returns
    the new source, or None when nothing changed.
    """
    cfg = params.get("ingest", {})
    source = str(cfg.get("source", ""))
    fallback = cfg.get("fallback_url")
    if not fallback or source != DEFAULT_MIRROR or project_path(source).exists():
        return None
    text = params_file.read_text(encoding="utf-8")
    new = re.sub(
        r"^(\s+source:\s*).*$", lambda m: m.group(1) + fallback, text, count=1, flags=re.M
    )
    params_file.write_text(new, encoding="utf-8")
    return fallback


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.ingest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--params", default=str(PARAMS_FILE), help="params file (ingest.*)")
    parser.add_argument("--out", default="data/raw", help="target folder")
    parser.add_argument("--provenance", default="data/provenance.json")
    parser.add_argument(
        "--resolve-source", action="store_true",
        help="only switch ingest.source to the pinned archive URL if the mirror is absent",
    )
    args = parser.parse_args(list(argv) if argv is not None else None)
    try:
        params = load_params(args.params)
        cfg = params.get("ingest", {})
        if args.resolve_source:
            new = resolve_default_source(params, Path(args.params))
            if new:
                print(
                    f"ingest: mirror {cfg.get('source')} not found; params.yaml now uses the "
                    f"pinned upstream archive {new}"
                )
            source_kind(str(new or cfg.get("source", "")))  # a missing source: one message
            return 0
        result = ingest(
            str(cfg["source"]),
            project_path(args.out),
            manifest=cfg.get("manifest") or None,
            commit=cfg.get("commit") or None,
            archive_sha256=cfg.get("archive_sha256"),
            max_bytes=int(cfg.get("max_bytes") or DEFAULT_MAX_BYTES),
        )
        write_json(project_path(args.provenance), result.provenance)
    except InputError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return 1
    prov = result.provenance
    print(
        f"ingest: {prov['file_count']} files from {prov['source']} ({prov['source_kind']}), "
        f"{'verified against ' + prov['manifest']['path'] if prov['verified'] else 'no manifest'}"
        f"; {len(prov['ignored'])} junk file(s) ignored; {len(prov['not_in_manifest'])} not in "
        "manifest"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
