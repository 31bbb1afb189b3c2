"""Build the website: generate variables and includes, then render.

Step 1 writes, from the pipeline's outputs only, ``report/_variables.yml``, the includes
in ``report/_generated/``, the downloads in ``report/downloads/`` and the pipeline DAG
figure. Step 2 renders ``report/`` into ``report/_site/``: with ``quarto render report``
when the Quarto CLI is on PATH, otherwise with the pandoc preview (:mod:`.preview`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ..artifacts import write_text
from ..errors import InputError
from . import generated as gen
from .dag import dag_figure, pipeline_graph
from .layout import DOWNLOADS, Layout
from .notebooks import notebook_entries
from .pages import write_all as write_pages
from .variables import build_vars, git_info, write_vars

KEY_PACKAGES = ("dvc", "pandas", "numpy", "scipy", "matplotlib", "statsmodels", "pyarrow",
                "papermill", "jupytext", "nbformat", "pandera", "krippendorff", "irrCAC",
                "openpyxl", "PyYAML", "pypandoc_binary")


def find_quarto() -> str | None:
    return shutil.which("quarto")


def quarto_version(quarto: str) -> str:
    try:
        res = subprocess.run([quarto, "--version"], capture_output=True, text=True,
                             timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return res.stdout.strip() or "unknown"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_packages(requirements: Path) -> dict[str, str]:
    """``name==version`` pins of requirements.txt (normalised name -> (name, version))."""
    pins = {}
    if requirements.is_file():
        for line in requirements.read_text(encoding="utf-8").splitlines():
            m = re.match(r"^\s*([A-Za-z0-9_.\-]+)==([^\s;#]+)", line)
            if m:
                pins[m.group(1)] = m.group(2)
    return pins


def installed_version(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def environment(requirements: Path, quarto: str | None) -> dict[str, str]:
    """Versions that shape the outputs: Python, pandoc, Quarto and the key packages."""
    from .preview import pandoc_version

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


def write_generated(layout: Layout, renderer: str, versions: dict[str, str]) -> list[str]:
    """Step 1b: the includes, downloads and the DAG figure; return the include names."""
    from ..config import load_yaml
    from ..figures import save_figure

    card = pd.read_csv(layout.scorecard, dtype=str, keep_default_na=False)
    quality = gen.load_json(layout.quality)
    prov = gen.load_json(layout.provenance)
    params_text = layout.params.read_text(encoding="utf-8")
    projects_file = layout.root / "data" / "projects.yaml"
    projects_meta = ((load_yaml(projects_file) or {}).get("projects", {})
                     if projects_file.is_file() else {})

    files: dict[str, str] = {
        "scorecard_summary.md": gen.scorecard_summary(card),
        "scorecard_full.md": gen.scorecard_full(card),
        "quality_accounting.md": gen.quality_accounting(quality),
        "quality_anomalies.md": gen.quality_anomalies(quality),
        "quality_rules.md": gen.quality_rules(quality),
        "provenance_files.md": gen.provenance_files(prov),
        "params.md": gen.params_block(params_text, find_seeds(load_yaml(layout.params) or {})),
        "versions.md": gen.versions_table(versions),
        "pins.md": gen.callout("note", "Every pinned package of requirements.txt",
                               gen.raw_html_block(gen.html_table(
                                   pins_table(layout.requirements), numeric=[],
                                   classes="table sortable compact")), collapse=True),
        "build.md": gen.build_info(git_info(layout.root), renderer),
        "notebooks_index.md": gen.notebooks_index(
            notebook_entries(layout.notebooks, layout.dvc_yaml, layout.root)),
    }
    table1_csv = layout.tables / "table1.csv"
    if table1_csv.is_file():
        table1 = pd.read_csv(table1_csv, keep_default_na=False)
        files["table1_compare.md"] = gen.table1_compare(table1, card, projects_meta)
        files["type_by_project.md"] = gen.type_by_project(table1)
    for csv in sorted(layout.tables.glob("*.csv")) if layout.tables.is_dir() else []:
        files[f"tables/{csv.stem}.md"] = gen.csv_table(csv)
    files.update(write_pages(layout.root))

    mermaid, how, stages, edges = pipeline_graph(layout.root)
    figure = None
    if stages:
        save_figure(dag_figure(stages, edges), layout.figures / "report_dag")
        figure = "figures/report_dag.svg"
    files["dag.md"] = gen.dag_block(mermaid, how, figure)

    entries = []
    layout.downloads.mkdir(parents=True, exist_ok=True)
    for name, what in DOWNLOADS:
        src = layout.processed / name
        if src.is_file():
            shutil.copyfile(src, layout.downloads / name)
            entries.append((name, what, src.stat().st_size, sha256(src)))
    files["downloads.md"] = gen.downloads(entries)

    tmp = Path(tempfile.mkdtemp(prefix=".generated-", dir=layout.site_src))
    try:
        for name, text in files.items():
            write_text(tmp / name, text if text.endswith("\n") else text + "\n")
        if layout.generated.exists():
            shutil.rmtree(layout.generated)
        tmp.replace(layout.generated)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return sorted(files)


def render_quarto(quarto: str, layout: Layout) -> None:
    res = subprocess.run([quarto, "render", str(layout.site_src)], cwd=layout.root,
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        tail = "\n".join((res.stderr or res.stdout).splitlines()[-20:])
        raise InputError(f"quarto render failed:\n{tail}", file=str(layout.quarto_yml),
                         fix="fix the page named above, or run with --renderer preview")


def build(layout: Layout | None = None, renderer: str = "auto",
          log: Callable[[str], None] = print) -> str:
    """Generate and render the site; return a short description of the renderer used."""
    from .preview import pandoc_version, render_site

    layout = layout or Layout()
    for needed in (layout.scorecard, layout.quality, layout.provenance, layout.params,
                   layout.quarto_yml):
        if not needed.is_file():
            raise InputError("missing", file=str(needed),
                             fix="run `dvc repro` (the analysis stages write it)")
    quarto = find_quarto() if renderer in ("auto", "quarto") else None
    if renderer == "quarto" and not quarto:
        raise InputError("quarto is not on PATH", fix="install Quarto (conda env or "
                         "quarto.org) or use --renderer preview")
    versions = environment(layout.requirements, quarto)
    label = (f"Quarto {versions['quarto']}" if quarto
             else f"pandoc preview (pandoc {pandoc_version()}; Quarto not on PATH)")
    variables = build_vars(layout, label, versions)
    write_vars(layout.variables_yml, variables)
    write_generated(layout, label, versions)
    if quarto:
        render_quarto(quarto, layout)
        pages = sorted(p.relative_to(layout.site).as_posix()
                       for p in layout.site.rglob("*.html"))
    else:
        pages = render_site(layout.site_src, layout.site, variables)
    log(f"report: {len(pages)} pages rendered by {label} into "
        f"{_display(layout.site, layout.root)}/")
    return label


def _display(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)

