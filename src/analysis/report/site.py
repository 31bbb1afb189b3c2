"""Step 2 of the website build: render the generated sources into ``report/_site/``.

It imports nothing of step 1 (:mod:`.generation`), and so no pandas, pandera or
matplotlib: a render after a small change costs little more than the pages it renders
again. :func:`render` stages the Quarto project in ``build/site-render/``, adds what
belongs to this build only, renders it with Quarto when it can be found (:mod:`.quarto`),
else with the pandoc preview (:mod:`.preview`), and moves the result onto ``report/_site/``
in one step. :func:`needs_render` says when the site no longer shows the current sources
(``render --if-needed``).
"""

from __future__ import annotations

import errno
import importlib.metadata as md
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import NamedTuple

import yaml

from analysis.core import runlog
from analysis.core.artifacts import disk_error, publish_folder, publishable, write_text
from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.core.pins import installer, normalise
from analysis.core.pins import pins as read_pins
from analysis.core.safeyaml import safe_load
from analysis.report import generated as gen
from analysis.report import sources
from analysis.report.docs import FOLDER as DOCS
from analysis.report.docs import doc_includes, doc_stubs, include_digests
from analysis.report.docs import navbar_entries as docs_navbar_entries
from analysis.report.htmlsafe import check_template_text, raw_html_block, rows_table
from analysis.report.navbar import navbar_entries, page_entries, with_navbar
from analysis.report.notebooks import notebook_stub
from analysis.report.preview import (
    link_or_copy,
    output_name,
    pandoc_version,
    render_inputs,
    render_site,
)
from analysis.report.quarto import (
    drop_search_pages,
    find_quarto,
    quarto_version,
    reorder_search,
)
from analysis.report.sources import expected_notebooks, read_record, write_record
from analysis.report.variables import git_info, render_vars, write_vars

KEY_PACKAGES = ("dvc", "pandas", "numpy", "scipy", "matplotlib", "statsmodels", "pyarrow",
                "papermill", "jupytext", "nbformat", "pandera", "krippendorff", "irrCAC",
                "openpyxl", "PyYAML", "pypandoc_binary")
# Includes written when the site is rendered (they describe this build, not the outputs).
RENDER_INCLUDES = ("versions.md", "pins.md", "build.md", "build_info.md")


def pinned_packages(paths: Paths) -> dict[str, str]:
    """``name==version`` pins of requirements.txt and requirements-no-deps.txt (hashes and
    extras aside)."""
    pins = {}
    for path in (paths.requirements, paths.requirements_no_deps):
        if path.is_file():
            pins.update(read_pins(path.read_text(encoding="utf-8")))
    return pins


# A field of a distribution's metadata header (core metadata: RFC 822 style; Name and
# Version are never folded over lines).
METADATA_FIELD_RE = re.compile(r"^(Name|Version):[ \t]*(.*?)[ \t]*$", re.M)


@cache
def installed_versions() -> dict[str, str]:
    """The version of every installed distribution, by normalised name: the first found on
    ``sys.path``, as :func:`importlib.metadata.version` finds it. Only the ``Name`` and
    ``Version`` fields of the metadata's header are read: asking importlib.metadata for
    each package parses every header field (and the long description) of each, a fifth of
    a render after a small change."""
    found: dict[str, str] = {}
    for dist in md.distributions():
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        fields: dict[str, str] = {}
        for key, value in METADATA_FIELD_RE.findall(text.split("\n\n", 1)[0]):
            fields.setdefault(key, value)
        if fields.get("Name") and fields.get("Version"):
            found.setdefault(normalise(fields["Name"]), fields["Version"])
    return found


def installed_version(name: str) -> str:
    """The installed version of the distribution ``name``, or ``not installed``."""
    return installed_versions().get(normalise(name), "not installed")


def environment(quarto: str | None) -> dict[str, str]:
    """Versions that shape the outputs: Python, pandoc, Quarto and the key packages, and
    the installer that put the packages there."""
    versions = {"python": sys.version.split()[0], "pandoc": pandoc_version(),
                "quarto": quarto_version(quarto) if quarto else "not installed",
                "installer": installer(Path(sys.prefix))}
    for name in KEY_PACKAGES:
        versions[name] = installed_version(name)
    return versions


PINS_COLUMNS = ("package", "pinned", "installed", "matches")


def pins_rows(paths: Paths) -> list[tuple[str, str, str, str]]:
    """One row (:data:`PINS_COLUMNS`) per pinned package, by normalised name: the pin, the
    version installed, and whether the two match."""
    rows = []
    for name, pin in sorted(pinned_packages(paths).items(), key=lambda kv: normalise(kv[0])):
        have = installed_version(name)
        rows.append((name, pin, have, "yes" if have == pin else "no"))
    return rows


# -- step 2: render ---------------------------------------------------------------------

def renderer_label(quarto: str | None, versions: dict[str, str]) -> str:
    return (f"Quarto {versions['quarto']}" if quarto
            else f"pandoc preview (pandoc {versions['pandoc']}; Quarto not found)")


def stage_file(source: Path, staged: Path) -> None:
    """Put the source ``source`` at ``staged``, linked where it can be (copying every
    source was a third of a render after a small change); an unreadable source is one
    message naming it. Nothing writes into a staged source (what the render adds replaces
    files, and the pipeline replaces its outputs rather than rewriting them), so a link
    keeps the bytes it was hashed with."""
    try:
        if not os.access(source, os.R_OK):  # a hard link needs no read permission
            raise PermissionError(errno.EACCES, "Permission denied", str(source))
        link_or_copy(source, staged)
    except OSError as exc:
        if exc.filename != str(source):
            raise
        raise InputError(f"cannot read it ({exc.strerror})", file=exc.filename,
                         fix="check that it is readable (its permissions)") from exc


def stage(paths: Paths, staging: Path, versions: dict[str, str], git: dict,
          renderer: str) -> dict[str, str]:
    """Put the project's sources into ``staging``, with the pages' navbar and what belongs
    to this build only (the docs pages' stubs among it; their bodies: :func:`stage_docs`);
    return the SHA-256 of each source as staged (the bytes the render reads)."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    rels = sources.source_files(paths)
    for rel in rels:
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        stage_file(paths.site_src / rel, staging / rel)
    hashes = {**sources.hash_files(staging, rels), **sources.doc_hashes(paths)}
    stage_navbar(paths, staging)
    variables = load_yaml(staging / "_variables.yml") or {}
    write_vars(staging / "_variables.yml", {**variables, **render_vars(git, renderer)})
    env = {  # the RENDER_INCLUDES
        "versions.md": gen.versions_table(versions),
        "pins.md": gen.callout("note", "Every pinned package of requirements.txt",
                               raw_html_block(rows_table(
                                   list(PINS_COLUMNS), pins_rows(paths),
                                   classes="table sortable compact")), collapse=True),
        "build.md": gen.build_info(git, renderer),
        "build_info.md": gen.build_info_placeholder(),
    }
    for name, text in env.items():
        write_text(staging / "_generated" / name, text)
    for nb in expected_notebooks(paths):
        title = _notebook_title(paths.generated / "notebooks" / f"{nb.stem}.md") or nb.stem
        write_text(staging / "notebooks" / f"{nb.stem}.qmd", notebook_stub(nb.stem, title))
    for rel, text in doc_stubs(paths.docs).items():
        write_text(staging / rel, text)
    return hashes


def stage_navbar(paths: Paths, staging: Path) -> None:
    """Write the navbar entries the pages declare (:mod:`.navbar`) into the staged
    ``_quarto.yml`` (left as it is when no page declares one)."""
    pages = [page.relative_to(paths.site_src).as_posix() for page in paths.pages()]
    items = navbar_entries([*page_entries(paths.site_src, pages),
                            *docs_navbar_entries(paths.docs)])
    if items:
        config = with_navbar(load_yaml(staging / "_quarto.yml") or {}, items)
        write_text(staging / "_quarto.yml", yaml.safe_dump(
            config, sort_keys=False, allow_unicode=True, width=4096))


def stage_docs(paths: Paths, staging: Path, pages: list[str] | None) -> None:
    """Convert the pages of ``docs/`` among the page sources ``pages`` (all when None)
    into the staged project: pandoc runs only for the docs pages that are rendered.
    (Quarto reads the includes of every page, even to render one: it is given them all.)"""
    stems = None if pages is None else {
        Path(p).stem for p in pages if Path(p).parent.as_posix() == DOCS}
    for rel, text in doc_includes(paths.docs, stems).items():
        write_text(staging / rel, text)


def _notebook_title(body: Path) -> str:
    if not body.is_file():
        return ""
    m = re.search(r'<!-- title: (.*?) -->', body.read_text(encoding="utf-8"))
    return m.group(1) if m else ""


def render_quarto(quarto: str, project: Path, log: Callable[[str], None] = print,
                  target: str | None = None) -> None:
    """``quarto render`` of the staging folder (or of its page ``target`` alone, which
    updates the rendered site in its ``_site/``); its warnings are passed on."""
    res = subprocess.run([quarto, "render", target or str(project)], cwd=project,
                         capture_output=True, text=True, check=False)
    output = (res.stderr or "") + (res.stdout or "")
    if res.returncode != 0:
        tail = "\n".join(output.splitlines()[-20:])
        raise InputError(f"quarto render failed:\n{tail}", file="report/_quarto.yml",
                         fix="fix the page named above, or run with --renderer preview")
    for line in output.splitlines():
        if "WARN" in line:
            log(f"quarto: {line.strip()}")


def build_info(paths: Paths, renderer: str, git: dict, render_seconds: float) -> dict:
    """What ``build-info.js`` holds: renderer, commit, the machine, and the build's run
    time end to end: per phase (set-up, fetch, ingest, the analysis stages, rendering:
    :data:`analysis.core.runlog.PHASES`, those with a record) and per analysis stage."""
    runs = [*runlog.read_all(paths.runs_dir),
            {"stage": "render", "phase": "render", "seconds": round(render_seconds, 2)}]
    stages = [r for r in runs if (r.get("phase") or "stages") == "stages"]
    phases = runlog.phase_seconds(runs)
    machines = [r["machine"] for r in runs if r.get("machine")]
    return {"renderer": renderer, "commit": git["commit"], "dirty": git["dirty"],
            "stages": [{"stage": r["stage"], "seconds": r["seconds"]} for r in stages],
            "stages_seconds": round(sum(r["seconds"] for r in stages), 1),
            "phases": [{"phase": k, "seconds": v} for k, v in phases.items()],
            "total_seconds": round(sum(phases.values()), 1),
            "machine": machines[-1] if machines else runlog.machine()}


def write_build_info(site: Path, info: dict) -> None:
    """``build.json`` and ``build-info.js`` (which fills the Reproducibility page's
    run-time section): the only files of the site that differ between runs."""
    text = json.dumps(info, indent=2, sort_keys=True)
    (site / "build.json").write_text(text + "\n", encoding="utf-8")
    js_data = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    (site / "build-info.js").write_text(gen.BUILD_INFO_JS.replace("__DATA__", js_data),
                                        encoding="utf-8")


# With Quarto, each page rendered alone costs about a quarter of a whole render (Quarto's
# start and its theme's compilation come with every call): beyond this many pages, the
# whole site is rendered instead.
QUARTO_MAX_PAGES = 2


class Increment(NamedTuple):
    """What a render after the site's last one does (:func:`incremental_plan`)."""

    pages: list[str]     # the page sources to render again
    copy: list[str]      # the published files that changed (copied as they are)
    unchanged: set[str]  # the sources with the bytes the site was rendered from


def incremental_plan(paths: Paths, label: str, hashes: dict[str, str], digests: dict[str, str],
                     shared: str, read: set[str], quarto: str | None) -> Increment | None:
    """What to render again (:func:`~analysis.report.sources.plan`) after the site in
    ``report/_site/``; None for the whole site: no site, one another renderer rendered, a
    page of the record missing from the site, or (with Quarto) more pages than
    :data:`QUARTO_MAX_PAGES`."""
    site = paths.site
    record = read_record(site)
    if record is None or not (site / "index.html").is_file() or record["renderer"] != label:
        return None
    todo = sources.plan(record, hashes, digests, shared, read, lambda p: (site / p).is_file())
    if todo is None or any(not (site / output_name(p)).is_file() for p in digests):
        return None
    if quarto and len(todo[0]) > QUARTO_MAX_PAGES:
        return None
    return Increment(*todo, {rel for rel, sha in hashes.items()
                             if record["files"].get(rel) == sha})


def render_quarto_pages(quarto: str, project: Path, site: Path, pages: list[str],
                        copy: list[str], log: Callable[[str], None] = print) -> None:
    """Render the pages ``pages`` of the staged ``project`` with Quarto, one by one, over a
    copy of the previous ``site``; copy the published files ``copy``; keep the search
    index in a whole render's order (:func:`~analysis.report.quarto.reorder_search`), or
    render the whole project when it cannot be."""
    out = project / "_site"
    shutil.copytree(site, out)
    order = drop_search_pages(out, {output_name(p) for p in pages})
    for page in pages:
        render_quarto(quarto, project, log, target=page)
    for rel in copy:
        shutil.copyfile(project / rel, out / rel)
    if order is not None and not reorder_search(out, order):
        shutil.rmtree(out)
        render_quarto(quarto, project, log)


def render(paths: Paths | None = None, renderer: str = "auto",
           log: Callable[[str], None] = print, full: bool = False) -> str:
    """Step 2: render the generated sources into ``report/_site/``; return the renderer.
    Only the pages whose inputs changed since the last render are rendered again
    (:func:`incremental_plan`), unless ``full``: the same bytes as a whole render."""
    paths = paths or Paths()
    if not paths.variables_yml.is_file() or not paths.generated.is_dir():
        raise InputError("the site's sources are not generated", file=str(paths.generated),
                         fix="run `dvc repro` (or `python -m analysis.report`)")
    quarto = chosen_quarto(renderer)
    versions = environment(quarto)
    label = check_template_text(renderer_label(quarto, versions), "renderer")
    git = git_info(paths.root)
    staging = paths.render_dir
    started = time.perf_counter()
    try:
        hashes = stage(paths, staging, versions, git, label)
        staged_vars = safe_load((staging / "_variables.yml").read_text("utf-8")) or {}
        config = safe_load((staging / "_quarto.yml").read_text("utf-8")) or {}
        inputs = render_inputs(staging, config)
        code = sources.code_digest()
        digests, read = sources.page_dependencies(
            staging, inputs, staged_vars, include_digests(paths.docs, versions["pandoc"]))
        shared = sources.shared_digest(staging, inputs, staged_vars, label, code)
        todo = None if full else incremental_plan(paths, label, hashes, digests, shared, read,
                                                  quarto)
        stage_docs(paths, staging, None if todo is None or quarto else todo.pages)
        out = staging / "_site"
        if todo is None and quarto:
            render_quarto(quarto, staging, log)
        elif todo is None:
            render_site(staging, out, staged_vars)
        elif quarto:
            render_quarto_pages(quarto, staging, paths.site, todo.pages, todo.copy, log)
        else:
            render_site(staging, out, staged_vars, only=set(todo.pages), keep=paths.site,
                        unchanged=todo.unchanged)
        done = len(inputs if todo is None else todo.pages)
        write_build_info(out, build_info(paths, label, git, time.perf_counter() - started))
        write_record(out, sources.make_record(label, hashes, code, digests, shared))
        publishable(out)
        publish_folder(out, paths.site)
    except OSError as exc:  # writing in the staging folder: a full or read-only disk
        one = exc.filename2 is None and isinstance(exc.filename, str)
        error = disk_error(exc, Path(exc.filename) if one else staging)
        if error is exc:
            raise
        raise error from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if staging.parent.is_dir() and not any(staging.parent.iterdir()):
            staging.parent.rmdir()
    unchanged = f" (the other {len(inputs) - done} had not changed)" if done < len(inputs) else ""
    log(f"report: {done} page{'s' * (done != 1)} rendered by {label} into "
        f"{paths.site.relative_to(paths.root).as_posix()}/{unchanged}")
    return label


def chosen_quarto(renderer: str) -> str | None:
    """The Quarto to render with for the choice ``renderer`` (auto, quarto, preview), or
    None for the preview; ``quarto`` without a Quarto to be found is one message."""
    quarto = find_quarto() if renderer in ("auto", "quarto") else None
    if renderer == "quarto" and not quarto:
        raise InputError("Quarto was not found", fix="install it (see docs/website.md) "
                         "or use --renderer preview")
    return quarto


def needs_render(paths: Paths, renderer: str = "auto") -> str | None:
    """Why ``report/_site/`` must be rendered again (one phrase), or None when it shows the
    current sources as the renderer would render them now: a missing site, one whose
    record (:mod:`.sources`) names other sources or code, one the preview rendered while
    Quarto can be found now, or another Quarto rendered, one Quarto rendered when the
    preview is asked for. (Quarto not found any more renders nothing again.)"""
    if not (paths.site / "index.html").is_file():
        return "there is no site yet"
    record = read_record(paths.site)
    reason = sources.staleness(record, sources.current_hashes(paths), sources.code_digest())
    if reason:
        return reason
    built_by = record["renderer"]
    quarto = chosen_quarto(renderer)
    if quarto is None:
        by_quarto = not built_by.startswith("pandoc preview")
        return (f"it was rendered by {built_by}, and the preview is asked for"
                if renderer == "preview" and by_quarto else None)
    now = renderer_label(quarto, {"quarto": quarto_version(quarto)})
    return None if built_by == now else f"it was rendered by {built_by}, and {now} is here now"



