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

import importlib.metadata as md
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import yaml

from analysis.core import runlog
from analysis.core.artifacts import atomic_folder, publishable, write_text
from analysis.core.config import load_yaml
from analysis.core.errors import InputError
from analysis.core.figures import save_figure
from analysis.core.paths import Paths
from analysis.core.pins import installer
from analysis.core.pins import pins as read_pins
from analysis.core.projects import Projects
from analysis.report import blocks
from analysis.report import generated as gen
from analysis.report.dag import dag_figure, pipeline_graph
from analysis.report.downloads import write_downloads
from analysis.report.htmlsafe import check_template_text, raw_html_block
from analysis.report.notebooks import (
    notebook_entries,
    notebook_includes,
    notebook_stub,
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


# Includes written when the site is rendered (they describe this build, not the outputs).
RENDER_INCLUDES = ("versions.md", "pins.md", "build.md", "build_info.md")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_packages(paths: Paths) -> dict[str, str]:
    """``name==version`` pins of requirements.txt and requirements-no-deps.txt (hashes and
    extras aside)."""
    pins = {}
    for path in (paths.requirements, paths.requirements_no_deps):
        if path.is_file():
            pins.update(read_pins(path.read_text(encoding="utf-8")))
    return pins


def installed_version(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def environment(quarto: str | None) -> dict[str, str]:
    """Versions that shape the outputs: Python, pandoc, Quarto and the key packages, and
    the installer that put the packages there."""
    versions = {"python": sys.version.split()[0], "pandoc": pandoc_version(),
                "quarto": quarto_version(quarto) if quarto else "not installed",
                "installer": installer(Path(sys.prefix))}
    for name in KEY_PACKAGES:
        versions[name] = installed_version(name)
    return versions


def pins_table(paths: Paths) -> pd.DataFrame:
    rows = []
    for name, pin in sorted(pinned_packages(paths).items(), key=lambda kv: _norm(kv[0])):
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


# -- step 1: generate -------------------------------------------------------------------

def check_inputs(paths: Paths) -> None:
    for needed in (paths.findings.scorecard, paths.clean.quality, paths.provenance, paths.params,
                   paths.quarto_yml):
        if not needed.is_file():
            raise InputError("missing", file=str(needed),
                             fix="run `dvc repro` (the analysis stages write it)")


def generate(paths: Paths | None = None) -> list[str]:
    """Step 1: variables, includes and downloads; return the include names."""
    paths = paths or Paths()
    check_inputs(paths)
    write_vars(paths.variables_yml, build_vars(paths))
    card = pd.read_csv(paths.findings.scorecard, dtype=str, keep_default_na=False)
    quality = gen.load_json(paths.clean.quality)
    prov = gen.load_json(paths.provenance)
    params_text = paths.params.read_text(encoding="utf-8")
    projects = Projects.load(paths.projects_file)
    texts = stage_texts(paths.vars_dir)

    files: dict[str, str] = {
        "scorecard_summary.md": gen.scorecard_summary(card),
        "scorecard_full.md": gen.scorecard_full(card),
        "scorecard_differs.md": gen.scorecard_differs(card),
        "quality_accounting.md": gen.quality_accounting(quality),
        "quality_anomalies.md": gen.quality_anomalies(quality),
        "quality_rules.md": gen.quality_rules(quality),
        "provenance_source.md": gen.provenance_source(prov),
        "provenance_files.md": gen.provenance_files(prov),
        "params.md": gen.params_block(params_text, find_seeds(load_yaml(paths.params) or {})),
        "notebooks_index.md": gen.notebooks_index(
            notebook_entries(paths.notebooks, paths.dvc_yaml, paths.root)),
        "links.md": gen.study_links(gen.citation(paths.citation), prov),
        "cite.md": gen.how_to_cite(gen.citation(paths.citation)),
        "licence.md": gen.licence_block(paths.licence),
    }
    table1_csv = paths.table1.table("counts.csv")
    if table1_csv.is_file():
        table1 = pd.read_csv(table1_csv, keep_default_na=False)
        fp_csv = paths.table1.table("false_positives.csv")
        fp = (pd.read_csv(fp_csv, keep_default_na=False, dtype={"project": str})
              if fp_csv.is_file() else None)
        files["table1_compare.md"] = gen.table1_compare(table1, card, projects, fp)
        files["type_by_project.md"] = gen.type_by_project(table1)
    for stage in paths.stages():
        for csv in sorted(stage.tables.glob("*.csv")) if stage.tables.is_dir() else []:
            files[f"tables/{stage.name}/{csv.stem}.md"] = gen.csv_table(csv)
    files.update(write_pages(paths.root))
    files.update(blocks.figure_includes(paths, texts))
    files.update(blocks.text_includes(texts))
    files.update(notebook_includes(paths.notebooks))

    mermaid, how, stages, edges = pipeline_graph(paths.root)
    with atomic_folder(paths.generated) as tmp:
        figure = None
        if stages:
            save_figure(dag_figure(stages, edges), tmp / "figures" / "report_dag")
            figure = "_generated/figures/report_dag.svg"
        files["dag.md"] = gen.dag_block(mermaid, how, figure)
        files["downloads.md"] = write_downloads(paths, paths.downloads)
        for name in sorted(blocks.referenced_includes(paths.pages()) - set(files)
                           - set(RENDER_INCLUDES)):
            files[name] = blocks.unavailable(name)
        for name, text in files.items():
            write_text(tmp / name, text if text.endswith("\n") else text + "\n")
    return sorted(files)


# -- step 2: render ---------------------------------------------------------------------

def renderer_label(quarto: str | None, versions: dict[str, str]) -> str:
    return (f"Quarto {versions['quarto']}" if quarto
            else f"pandoc preview (pandoc {versions['pandoc']}; Quarto not found)")


def stage(paths: Paths, staging: Path, variables: dict, versions: dict[str, str],
          git: dict, renderer: str) -> None:
    """Copy the project into ``staging`` and add what belongs to this build only."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for page in paths.pages():
        shutil.copyfile(page, staging / page.name)
    for name in STAGED:
        src = paths.site_src / name
        if src.is_dir():
            shutil.copytree(src, staging / name, ignore=shutil.ignore_patterns(".*"))
        elif src.is_file():
            shutil.copyfile(src, staging / name)
    write_vars(staging / "_variables.yml", {**variables, **render_vars(git, renderer)})
    env = {  # the RENDER_INCLUDES
        "versions.md": gen.versions_table(versions),
        "pins.md": gen.callout("note", "Every pinned package of requirements.txt",
                               raw_html_block(gen.html_table(
                                   pins_table(paths), numeric=[],
                                   classes="table sortable compact")), collapse=True),
        "build.md": gen.build_info(git, renderer),
        "build_info.md": gen.build_info_placeholder(),
    }
    for name, text in env.items():
        write_text(staging / "_generated" / name, text)
    for nb in sorted((staging / "notebooks").glob("*.ipynb")):
        title = _notebook_title(paths.generated / "notebooks" / f"{nb.stem}.md") or nb.stem
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


def build_info(paths: Paths, renderer: str, git: dict) -> dict:
    """What ``build-info.js`` holds: renderer, commit, stage run times, the machine."""
    runs = runlog.read_all(paths.runs_dir)
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


def render(paths: Paths | None = None, renderer: str = "auto",
           log: Callable[[str], None] = print) -> str:
    """Step 2: render the generated sources into ``report/_site/``; return the renderer."""
    paths = paths or Paths()
    if not paths.variables_yml.is_file() or not paths.generated.is_dir():
        raise InputError("the site's sources are not generated", file=str(paths.generated),
                         fix="run `dvc repro` (or `python -m analysis.report`)")
    quarto = find_quarto() if renderer in ("auto", "quarto") else None
    if renderer == "quarto" and not quarto:
        raise InputError("Quarto was not found", fix="install it (see README, 'The "
                         "website') or use --renderer preview")
    versions = environment(quarto)
    label = check_template_text(renderer_label(quarto, versions), "renderer")
    variables = yaml.safe_load(paths.variables_yml.read_text(encoding="utf-8")) or {}
    git = git_info(paths.root)
    staging = paths.render_dir
    stage(paths, staging, variables, versions, git, label)
    try:
        if quarto:
            render_quarto(quarto, staging, log)
            pages = sorted(p.relative_to(staging / "_site").as_posix()
                           for p in (staging / "_site").rglob("*.html"))
        else:
            staged_vars = yaml.safe_load((staging / "_variables.yml").read_text("utf-8"))
            pages = render_site(staging, staging / "_site", staged_vars)
        out = staging / "_site"
        write_build_info(out, build_info(paths, label, git))
        publishable(out)
        _replace(out, paths.site)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if staging.parent.is_dir() and not any(staging.parent.iterdir()):
            staging.parent.rmdir()
    log(f"report: {len(pages)} pages rendered by {label} into "
        f"{_display(paths.site, paths.root)}/")
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


def site_renderer(paths: Paths) -> str | None:
    """The renderer that built the current ``report/_site/`` (None if there is none)."""
    try:
        return json.loads((paths.site / "build.json").read_text(encoding="utf-8"))["renderer"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def needs_render(paths: Paths) -> bool:
    """True when the site is missing, or was built by the preview while Quarto is now
    available (``make report`` then renders again)."""
    built_by = site_renderer(paths)
    if not (paths.site / "index.html").is_file() or built_by is None:
        return True
    return built_by.startswith("pandoc preview") and find_quarto() is not None


def build(paths: Paths | None = None, renderer: str = "auto",
          log: Callable[[str], None] = print) -> str:
    """Both steps (the ``report`` stage); return the renderer used."""
    paths = paths or Paths()
    generate(paths)
    return render(paths, renderer=renderer, log=log)


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)



