"""What ``report/_site/`` was rendered from, so that a stale site is noticed.

``report/_site/`` is not a DVC output (see :mod:`.site`), so DVC never checks it: when
DVC restores the report stage's generated sources from its run cache (a parameter changed
and changed back, say), nothing is rendered and the site would go on showing the other
run. So every render records, in the site itself (:data:`RECORD_NAME`), what it read:
the renderer (its name and version), a hash of this package's own code (which writes the
pages the renderer is given, and is the preview renderer) and the SHA-256 of every source
file (:func:`source_files`), with one digest over all. ``render --if-needed`` compares
that record with the current sources (:func:`staleness`) and renders again when they
differ. The per-file hashes say which sources changed, and so which pages.

The record holds no time and no machine (only paths relative to ``report/``), so two
renders of the same sources give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from analysis.core.artifacts import sha256_file, to_json_text
from analysis.core.paths import Paths

RECORD_NAME = "sources.json"
# What a render reads from report/ besides the pages and the executed notebooks: files,
# then folders (every file in them whose path has no hidden part, as the copy skips those).
SOURCE_FILES = ("_quarto.yml", "_variables.yml")
SOURCE_FOLDERS = ("assets", "_generated", "figures", "downloads")
PACKAGE = Path(__file__).parent
CODE_SUFFIXES = (".py", ".lua")


def expected_notebooks(paths: Paths) -> list[Path]:
    """The executed notebooks of the known stages (:data:`analysis.core.paths.STAGES`) that
    exist, in pipeline order: the only notebooks the report reads. Whatever else lies in
    ``report/notebooks/`` (a file a killed run left there, a notebook of a removed stage) is
    not the pipeline's and is never read."""
    return [stage.notebook for stage in paths.stages() if stage.notebook.is_file()]


def _visible_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` whose path below it has no hidden part."""
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if p.is_file()
            and not any(part.startswith(".") for part in p.relative_to(folder).parts)]


def source_files(paths: Paths) -> list[str]:
    """The files of ``report/`` that a render reads, as sorted POSIX paths relative to it:
    the pages, :data:`SOURCE_FILES`, the files of :data:`SOURCE_FOLDERS` and the executed
    notebooks of :func:`expected_notebooks`."""
    site_src = paths.site_src
    found = [*paths.pages(), *expected_notebooks(paths)]
    found += [site_src / name for name in SOURCE_FILES if (site_src / name).is_file()]
    for name in SOURCE_FOLDERS:
        found += _visible_files(site_src / name)
    return sorted({p.relative_to(site_src).as_posix() for p in found})


def hash_files(folder: Path, rels: list[str]) -> dict[str, str]:
    """SHA-256 of each of the files ``rels`` (relative to ``folder``)."""
    return {rel: sha256_file(folder / rel) for rel in rels}


def code_digest(package: Path = PACKAGE) -> str:
    """SHA-256 over this package's own code (its ``.py`` and ``.lua`` files, by path): it
    writes the page stubs and the build's includes, and is the preview renderer."""
    files = sorted(p for p in package.rglob("*") if p.suffix in CODE_SUFFIXES
                   and "__pycache__" not in p.parts)
    return digest({p.relative_to(package).as_posix(): sha256_file(p) for p in files})


def digest(hashes: dict[str, str], *about: str) -> str:
    """One SHA-256 over per-file hashes (in path order) and the strings ``about``."""
    lines = [*about, *(f"{hashes[rel]}  {rel}" for rel in sorted(hashes))]
    return hashlib.sha256(("\n".join(lines) + "\n").encode("utf-8")).hexdigest()


def make_record(renderer: str, hashes: dict[str, str], code: str) -> dict:
    """The record of one render: the renderer (name and version), the digest of the
    package's code (:func:`code_digest`), each source's SHA-256, and one digest of all."""
    return {"renderer": renderer, "code": code, "files": dict(sorted(hashes.items())),
            "digest": digest(hashes, renderer, code)}


def write_record(site: Path, record: dict) -> Path:
    """Write the record into the (staged) site folder ``site``."""
    path = site / RECORD_NAME
    path.write_text(to_json_text(record), encoding="utf-8", newline="\n")
    return path


def read_record(site: Path) -> dict | None:
    """The record of the site in ``site``, or None when it has none or it cannot be read."""
    try:
        record = json.loads((site / RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(record, dict) and isinstance(record.get("files"), dict) and all(
        isinstance(record.get(key), str) for key in ("renderer", "code", "digest"))
    return record if ok else None


def changed_files(recorded: dict[str, str], current: dict[str, str]) -> list[str]:
    """The sources added, removed or changed since the record, sorted."""
    return sorted(rel for rel in set(recorded) | set(current)
                  if recorded.get(rel) != current.get(rel))


def staleness(record: dict | None, hashes: dict[str, str], code: str) -> str | None:
    """Why a site with ``record`` does not show the sources ``hashes`` as the package's
    code ``code`` stages them (one phrase), or None when it does. The renderer is left to
    the caller, which knows which renderers are better than others."""
    if record is None:
        return "it records no sources (it was rendered by an older version, or not at all)"
    changed = changed_files(record["files"], hashes)
    if changed:
        shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more"
                                         if len(changed) > 3 else "")
        return f"{len(changed)} of its source files changed since it was rendered ({shown})"
    if record["code"] != code:
        return "the report package's code changed since it was rendered"
    if record["digest"] != digest(hashes, record["renderer"], code):
        return "its record does not match its sources"
    return None
