"""What ``report/_site/`` was rendered from, so that a stale site is noticed.

``report/_site/`` is not a DVC output (see :mod:`.site`), so DVC never checks it: when
DVC restores the report stage's generated sources from its run cache (a parameter changed
and changed back, say), nothing is rendered and the site would go on showing the other
run. So every render records, in the site itself (:data:`RECORD_NAME`), what it read:
the renderer (its name and version), a hash of this package's own code (which writes the
pages the renderer is given, and is the preview renderer) and the SHA-256 of every source
file (:func:`source_files`, and the pages of ``docs/``: :func:`doc_hashes`).
``render --if-needed`` compares that record with the current sources (:func:`staleness`)
and renders again when they differ. The per-file hashes say which sources changed, and so
which pages.

The record holds no time and no machine (only paths relative to ``report/``), so two
renders of the same sources give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from analysis.core.artifacts import sha256_file, to_json_text
from analysis.core.paths import Paths
from analysis.report.docs import doc_pages
from analysis.report.preview import INCLUDE_LINE_RE
from analysis.report.variables import lookup, referenced_vars

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


def doc_hashes(paths: Paths) -> dict[str, str]:
    """SHA-256 of each page of ``docs/`` the render reads, keyed by its path relative to
    ``report/`` (``../docs/<name>.md``): the pages are outside ``report/`` and never
    copied as they are (:mod:`.docs` converts them)."""
    return {f"../{page.relative_to(paths.root).as_posix()}": sha256_file(page)
            for page in doc_pages(paths.docs)}


def current_hashes(paths: Paths) -> dict[str, str]:
    """SHA-256 of every source a render reads now: the files of :func:`source_files` and
    the pages of ``docs/``."""
    return {**hash_files(paths.site_src, source_files(paths)), **doc_hashes(paths)}


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


def make_record(renderer: str, hashes: dict[str, str], code: str,
                pages: dict[str, str] | None = None, shared: str | None = None) -> dict:
    """The record of one render: the renderer (name and version), the digest of the
    package's code (:func:`code_digest`) and each source's SHA-256; with the digest of each
    page's inputs (``pages``, :func:`page_dependencies`) and of what every page shares
    (``shared``, :func:`shared_digest`), which say which pages the next render must render
    again (:func:`plan`)."""
    record = {"renderer": renderer, "code": code, "files": dict(sorted(hashes.items()))}
    if pages is not None and shared is not None:
        record.update(pages=dict(sorted(pages.items())), shared=shared)
    return record


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
        isinstance(record.get(key), str) for key in ("renderer", "code"))
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
    return None


# -- which page reads what: rendering only the pages whose inputs changed -------------------

# What every page reads: a change to it renders the whole site again.
SHARED_FILE, SHARED_FOLDER = "_quarto.yml", "assets"
FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*\n", re.S)
MISSING = "missing"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def page_inputs(project: Path, page: str) -> tuple[list[str], list[str]]:
    """What the page ``page`` of the (staged) project reads: the files (the page and every
    include, nested ones too, as paths relative to ``project``; an include that does not
    exist is listed all the same, so that its appearing counts) and the variable keys its
    text and includes refer to. Includes are looked for where Quarto and the preview look
    (relative to the page, or to the project for a leading ``/``) and also next to the
    including file: listing one too many is safe, one too few is not."""
    files: list[str] = []
    keys: list[str] = []
    todo = [page]
    while todo:
        rel = todo.pop(0)
        if rel in files:
            continue
        files.append(rel)
        text = _read(project / rel)
        keys += [k for k in referenced_vars(text) if k not in keys]
        for arg in INCLUDE_LINE_RE.findall(text):
            arg = arg.strip().strip("\"'")
            bases = ([Path()] if arg.startswith("/") else
                     [Path(page).parent, Path(rel).parent])
            for base in dict.fromkeys(bases):
                target = os.path.normpath((base / arg.lstrip("/")).as_posix())
                if not target.startswith("..") and target not in todo:
                    todo.append(Path(target).as_posix())
    return files, keys


def _value(variables: dict, key: str) -> str:
    try:
        return lookup(variables, key)
    except KeyError:
        return MISSING


def _file_hash(project: Path, rel: str, made: Mapping[str, str]) -> str:
    if rel in made:
        return f"made {made[rel]}"
    path = project / rel
    return sha256_file(path) if path.is_file() else MISSING


def page_dependencies(project: Path, pages: list[str], variables: dict,
                      made: Mapping[str, str] | None = None
                      ) -> tuple[dict[str, str], set[str]]:
    """Each page's digest, one SHA-256 over what it reads (:func:`page_inputs`: its files'
    bytes and the values of its variables; equal digests, the same input for the
    renderer), and every file some page reads.

    ``made``: files the render writes only for the pages it renders (the converted pages
    of ``docs/``, :func:`analysis.report.docs.include_digests`), each with the digest of
    what it is made from, which counts in place of its bytes: the digest is the same
    whether the file is written yet or not."""
    made = made or {}
    digests, read = {}, set()
    for page in pages:
        files, keys = page_inputs(project, page)
        digests[page] = digest({rel: _file_hash(project, rel, made) for rel in files},
                               *(f"{key}={_value(variables, key)}" for key in sorted(keys)))
        read.update(files)
    return digests, read


def shared_digest(project: Path, pages: list[str], variables: dict, renderer: str,
                  code: str) -> str:
    """One SHA-256 over what every page shares: ``_quarto.yml`` (and the variables it
    refers to: the footer's), the files of ``assets/``, the list of pages (the navigation)
    and each page's front matter (its title), the renderer and the package's code."""
    rels = [SHARED_FILE, *(p.relative_to(project).as_posix()
                           for p in _visible_files(project / SHARED_FOLDER))]
    keys = sorted(set(referenced_vars(_read(project / SHARED_FILE))))
    fronts = []
    for page in sorted(pages):
        m = FRONT_MATTER_RE.match(_read(project / page))
        front = m.group(0) if m else ""
        fronts += [f"{page}: {hashlib.sha256(front.encode('utf-8')).hexdigest()}",
                   *(f"{page}: {key}={_value(variables, key)}" for key in referenced_vars(front))]
    return digest(hash_files(project, rels), renderer, code, *fronts,
                  *(f"{key}={_value(variables, key)}" for key in keys))


def plan(record: dict | None, files: dict[str, str], pages: dict[str, str], shared: str,
         read: set[str], published: Callable[[str], bool]) -> tuple[list[str], list[str]] | None:
    """What to render after the last render (``record``), for the sources ``files``
    (:func:`current_hashes`, as staged), the pages' digests ``pages`` and the shared digest
    ``shared``: ``(pages to render, resources to copy)``, or None for the whole site.

    The whole site when there is any doubt: no record or one without page digests, other
    shared inputs (``_quarto.yml``, assets, the renderer, the package's code, the footer's
    variables, a page's title), pages added or removed, or a source that changed that no
    page reads (``read``) and that is not a file the site publishes as it is
    (``published``: a download, a figure, a notebook) in both versions. Otherwise the pages
    whose digest changed, and the published files that changed (copied as they are).
    """
    if record is None or not isinstance(record.get("pages"), dict):
        return None
    if record.get("shared") != shared or set(record["pages"]) != set(pages):
        return None
    copy = []
    for rel in changed_files(record["files"], files):
        if rel == "_variables.yml" or rel in read or rel.startswith("../docs/"):
            continue  # the pages' digests hold what they read of it
        if rel in files and rel in record["files"] and published(rel):
            copy.append(rel)
        else:
            return None
    return sorted(p for p in pages if record["pages"][p] != pages[p]), copy
