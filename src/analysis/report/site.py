"""Build the website in two steps: generate its sources, then render them.

**Generate** (:func:`generate`, the ``report`` DVC stage's outputs): from the pipeline's
outputs only, ``report/_variables.yml``, the includes in ``report/_generated/`` (escaped
HTML tables, figure blocks, data-text paragraphs, the notebook pages' bodies, the DAG
figure) and the downloads in ``report/downloads/``. Nothing here depends on the machine,
the renderer or the commit, so these files, and the ``dvc.lock`` that records them, are
the same on every machine.

**Render** (:func:`render`): copies the Quarto project into a staging folder
(``build/site-render/``), adds what belongs to this build only (the commit and renderer
variables, the versions of the environment, the notebook page stubs), renders it with
Quarto when it can be found (:mod:`.quarto`) or with the pandoc preview
(:mod:`.preview`), writes ``build-info.js`` (run times and hardware from
:mod:`analysis.core.runlog`) and moves the result onto ``report/_site/`` in one step.
``report/_site/`` is not a DVC output: which renderer a machine has never changes the
lock.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import yaml

from analysis.core import runlog
from analysis.core.artifacts import write_text
from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.figures import save_figure
from analysis.report import blocks
from analysis.report import generated as gen
from analysis.report.dag import dag_figure, pipeline_graph
from analysis.report.downloads import write_downloads
from analysis.report.htmlsafe import check_template_text, raw_html_block
from analysis.report.layout import Layout
from analysis.report.notebooks import (
    notebook_entries,
    notebook_includes,
    notebook_stub,
    stage_outputs,
)
from analysis.report.pages import write_all as write_pages
from analysis.report.preview import pandoc_version, render_site
from analysis.report.quarto import find_quarto, quarto_version
from analysis.report.variables import build_vars, git_info, render_vars, stage_texts, write_vars

KEY_PACKAGES = ("dvc", "pandas", "numpy", "scipy", "matplotlib", "statsmodels", "pyarrow",
                "papermill", "jupytext", "nbformat", "pandera", "krippendorff", "irrCAC",
                "openpyxl", "PyYAML", "pypandoc_binary")
# What the staging folder holds besides the pages: (path under report/, copy as folder)
STAGED = ("_quarto.yml", "assets", "_generated", "figures", "downloads", "notebooks")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_packages(requirements: Path) -> dict[str, str]:
    """``name==version`` pins of requirements.txt and of the ``requirements-no-deps.txt``
    beside it (name -> version)."""
    pins = {}
    for path in (requirements, requirements.with_name("requirements-no-deps.txt")):
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                m = re.match(r"^\s*([A-Za-z0-9_.\-]+)==([^\s;#]+)", line)
                if m:
                    pins[m.group(1)] = m.group(2)
    return pins


def installed_version(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def environment(quarto: str | None) -> dict[str, str]:
    """Versions that shape the outputs: Python, pandoc, Quarto and the key packages."""
    versions = {"python": sys.version.split()[0], "pandoc": pandoc_version(),
                "quarto": quarto_version(quarto) if quarto else "not installed"}
    for name in KEY_PACKAGES:
        versions[name] = installed_version(name)
    return versions


def pins_table(requirements: Path) -> pd.DataFrame:
    rows = []
    for name, pin in sorted(pinned_packages(requirements).items(), key=lambda kv: _norm(kv[0])):
        have = installed_version(name)
        rows.append({"package": name, "pinned": pin, "installed": have,
                     "matches": "yes" if have == pin else "no"})
    return pd.DataFrame(rows, columns=["package", "pinned", "installed", "matches"])


def find_seeds(params: dict, prefix: str = "") -> dict[str, object]:
    out = {}
    for key, value in (params or {}).items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(find_seeds(value, path + "."))
        elif "seed" in str(key).lower():
            out[path] = value
    return out


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def figure_sources(layout: Layout) -> dict[str, tuple[str, str]]:
    """Each stage output's path -> (label, href) of the notebook page of its stage."""
    out = {}
    if not layout.dvc_yaml.is_file():
        return out
    for nb, (_, outs) in stage_outputs(layout.dvc_yaml).items():
        stem = Path(nb).stem
        for path in outs:
            out[path] = (f"notebooks/{stem}", f"notebooks/{stem}.html")
    return out


# -- step 1: generate -------------------------------------------------------------------

REQUIRED = ("scorecard", "quality", "provenance", "params", "quarto_yml")


def check_inputs(layout: Layout) -> None:
    for name in REQUIRED:
        needed = getattr(layout, name)
        if not needed.is_file():
            raise InputError("missing", file=str(needed),
                             fix="run `dvc repro` (the analysis stages write it)")


def generate(layout: Layout | None = None) -> list[str]:
    """Step 1: variables, includes and downloads; return the include names."""
    layout = layout or Layout()
    check_inputs(layout)
    write_vars(layout.variables_yml, build_vars(layout))
    card = pd.read_csv(layout.scorecard, dtype=str, keep_default_na=False)
    quality = gen.load_json(layout.quality)
    prov = gen.load_json(layout.provenance)
    params_text = layout.params.read_text(encoding="utf-8")
    projects_meta = ((load_yaml(layout.projects) or {}).get("projects", {})
                     if layout.projects.is_file() else {})
    texts = stage_texts(layout.vars_dir)

    files: dict[str, str] = {
        "scorecard_summary.md": gen.scorecard_summary(card),
        "scorecard_full.md": gen.scorecard_full(card),
        "scorecard_differs.md": gen.scorecard_differs(card),
        "quality_accounting.md": gen.quality_accounting(quality),
        "quality_anomalies.md": gen.quality_anomalies(quality),
        "quality_rules.md": gen.quality_rules(quality),
        "provenance_source.md": gen.provenance_source(prov),
        "provenance_files.md": gen.provenance_files(prov),
        "params.md": gen.params_block(params_text, find_seeds(load_yaml(layout.params) or {})),
        "notebooks_index.md": gen.notebooks_index(
            notebook_entries(layout.notebooks, layout.dvc_yaml, layout.root)),
        "links.md": gen.study_links(gen.citation(layout.citation), prov),
        "cite.md": gen.how_to_cite(gen.citation(layout.citation)),
        "licence.md": gen.licence_block(layout.licence),
    }
    table1_csv = layout.tables / "table1.csv"
    if table1_csv.is_file():
        table1 = pd.read_csv(table1_csv, keep_default_na=False)
        files["table1_compare.md"] = gen.table1_compare(table1, card, projects_meta)
        files["type_by_project.md"] = gen.type_by_project(table1)
    for csv in sorted(layout.tables.glob("*.csv")) if layout.tables.is_dir() else []:
        files[f"tables/{csv.stem}.md"] = gen.csv_table(csv)
    files.update(write_pages(layout.root))
    files.update(blocks.figure_includes(layout.figures, texts, figure_sources(layout)))
    files.update(blocks.text_includes(texts))
    files.update(notebook_includes(layout.notebooks))

    mermaid, how, stages, edges = pipeline_graph(layout.root)
    tmp = Path(tempfile.mkdtemp(prefix=".generated-", dir=layout.site_src))
    try:
        figure = None
        if stages:
            save_figure(dag_figure(stages, edges), tmp / "figures" / "report_dag")
            figure = "_generated/figures/report_dag.svg"
        files["dag.md"] = gen.dag_block(mermaid, how, figure)
        files["downloads.md"] = write_downloads(layout, layout.downloads)
        for name in sorted(blocks.referenced_includes(layout.pages()) - set(files)):
            files[name] = blocks.unavailable(name)
        for name, text in files.items():
            write_text(tmp / name, text if text.endswith("\n") else text + "\n")
        _publishable(tmp)
        if layout.generated.exists():
            shutil.rmtree(layout.generated)
        tmp.replace(layout.generated)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return sorted(files)


def _publishable(folder: Path) -> None:
    """Files a reader may read: 0644 (a temporary file is made private, 0600), folders
    0755, so that a copied site is readable by a web server."""
    folder.chmod(0o755)
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


# -- step 2: render ---------------------------------------------------------------------

def renderer_label(quarto: str | None, versions: dict[str, str]) -> str:
    return (f"Quarto {versions['quarto']}" if quarto
            else f"pandoc preview (pandoc {versions['pandoc']}; Quarto not found)")


def stage(layout: Layout, staging: Path, variables: dict, versions: dict[str, str],
          git: dict, renderer: str) -> None:
    """Copy the project into ``staging`` and add what belongs to this build only."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for page in layout.pages():
        shutil.copyfile(page, staging / page.name)
    for name in STAGED:
        src = layout.site_src / name
        if src.is_dir():
            shutil.copytree(src, staging / name, ignore=shutil.ignore_patterns(".*"))
        elif src.is_file():
            shutil.copyfile(src, staging / name)
    write_vars(staging / "_variables.yml", {**variables, **render_vars(git, renderer)})
    env = {
        "versions.md": gen.versions_table(versions),
        "pins.md": gen.callout("note", "Every pinned package of requirements.txt",
                               raw_html_block(gen.html_table(
                                   pins_table(layout.requirements), numeric=[],
                                   classes="table sortable compact")), collapse=True),
        "build.md": gen.build_info(git, renderer),
        "build_info.md": gen.build_info_placeholder(),
    }
    for name, text in env.items():
        write_text(staging / "_generated" / name, text)
    for nb in sorted((staging / "notebooks").glob("*.ipynb")):
        title = _notebook_title(layout.generated / "notebooks" / f"{nb.stem}.md") or nb.stem
        write_text(staging / "notebooks" / f"{nb.stem}.qmd", notebook_stub(nb.stem, title))


def _notebook_title(body: Path) -> str:
    if not body.is_file():
        return ""
    m = re.search(r'<!-- title: (.*?) -->', body.read_text(encoding="utf-8"))
    return m.group(1) if m else ""


def render_quarto(quarto: str, project: Path, log: Callable[[str], None] = print) -> None:
    """``quarto render`` of the staging folder; its warnings are passed on."""
    res = subprocess.run([quarto, "render", str(project)], cwd=project,
                         capture_output=True, text=True, check=False)
    output = (res.stderr or "") + (res.stdout or "")
    if res.returncode != 0:
        tail = "\n".join(output.splitlines()[-20:])
        raise InputError(f"quarto render failed:\n{tail}", file="report/_quarto.yml",
                         fix="fix the page named above, or run with --renderer preview")
    for line in output.splitlines():
        if "WARN" in line:
            log(f"quarto: {line.strip()}")


def build_info(layout: Layout, renderer: str, git: dict) -> dict:
    """What ``build-info.js`` holds: renderer, commit, stage run times, the machine."""
    runs = runlog.read_all(layout.runs_dir)
    return {"renderer": renderer, "commit": git["commit"], "dirty": git["dirty"],
            "stages": [{"stage": r["stage"], "seconds": r["seconds"]} for r in runs],
            "total_seconds": round(sum(r["seconds"] for r in runs), 1),
            "machine": runs[-1]["machine"] if runs else runlog.machine()}


def write_build_info(site: Path, info: dict) -> None:
    """``build.json`` and ``build-info.js`` (which fills the Reproducibility page's
    run-time section): the only files of the site that differ between runs."""
    text = json.dumps(info, indent=2, sort_keys=True)
    (site / "build.json").write_text(text + "\n", encoding="utf-8")
    js_data = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    (site / "build-info.js").write_text(gen.BUILD_INFO_JS.replace("__DATA__", js_data),
                                        encoding="utf-8")


def render(layout: Layout | None = None, renderer: str = "auto",
           log: Callable[[str], None] = print) -> str:
    """Step 2: render the generated sources into ``report/_site/``; return the renderer."""
    layout = layout or Layout()
    if not layout.variables_yml.is_file() or not layout.generated.is_dir():
        raise InputError("the site's sources are not generated", file=str(layout.generated),
                         fix="run `dvc repro` (or `python -m analysis.report`)")
    quarto = find_quarto() if renderer in ("auto", "quarto") else None
    if renderer == "quarto" and not quarto:
        raise InputError("Quarto was not found", fix="install it (see README, 'The "
                         "website') or use --renderer preview")
    versions = environment(quarto)
    label = check_template_text(renderer_label(quarto, versions), "renderer")
    variables = yaml.safe_load(layout.variables_yml.read_text(encoding="utf-8")) or {}
    git = git_info(layout.root)
    staging = layout.render_dir
    stage(layout, staging, variables, versions, git, label)
    try:
        if quarto:
            render_quarto(quarto, staging, log)
            pages = sorted(p.relative_to(staging / "_site").as_posix()
                           for p in (staging / "_site").rglob("*.html"))
        else:
            staged_vars = yaml.safe_load((staging / "_variables.yml").read_text("utf-8"))
            pages = render_site(staging, staging / "_site", staged_vars)
        out = staging / "_site"
        write_build_info(out, build_info(layout, label, git))
        _publishable(out)
        _replace(out, layout.site)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if staging.parent.is_dir() and not any(staging.parent.iterdir()):
            staging.parent.rmdir()
    log(f"report: {len(pages)} pages rendered by {label} into "
        f"{_display(layout.site, layout.root)}/")
    return label


def _replace(new: Path, target: Path) -> None:
    """Move ``new`` onto ``target`` (a folder), keeping the old one until the move."""
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.with_name(f".{target.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.replace(old)
    shutil.move(str(new), str(target))
    shutil.rmtree(old, ignore_errors=True)


def site_renderer(layout: Layout) -> str | None:
    """The renderer that built the current ``report/_site/`` (None if there is none)."""
    try:
        return json.loads((layout.site / "build.json").read_text(encoding="utf-8"))["renderer"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def needs_render(layout: Layout) -> bool:
    """True when the site is missing, or was built by the preview while Quarto is now
    available (``make report`` then renders again)."""
    built_by = site_renderer(layout)
    if not (layout.site / "index.html").is_file() or built_by is None:
        return True
    return built_by.startswith("pandoc preview") and find_quarto() is not None


def build(layout: Layout | None = None, renderer: str = "auto",
          log: Callable[[str], None] = print) -> str:
    """Both steps (the ``report`` stage); return the renderer used."""
    layout = layout or Layout()
    generate(layout)
    return render(layout, renderer=renderer, log=log)


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)



