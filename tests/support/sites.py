"""A complete synthetic project for the website tests, built the way the pipeline builds it.

``build_project`` writes a small synthetic dump with hostile text in every kind of input
that reaches a page (a project folder named like an HTML tag with an event handler, an
issue URL with a ``<script>`` element, and ``<script>`` elements in a detail item, an
interview quote, its insight, the interview guideline and a keyword), runs every stage of
the pipeline on it into a temporary project root (ingest, then each notebook through
``analysis.tools.nbrun`` with the parameters of ``params.yaml``), copies the Quarto sources, and
returns the root. ``analysis.report.generation.build`` then renders a site from it like the
``report`` stage.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

from analysis.core import artifacts
from analysis.core.paths import PATHS, ROOT, Paths
from analysis.ingest.ingest import ingest
from analysis.tools.nbrun import parse_params, run
from tests.support.dumps import Project, write_dump

CANARY_ENV = "ANALYSIS_CANARY"   # set by the site tests: its value must never reach a page
CANARY = "canary-7f3a9c21"
PASSWD_MARK = "root:x:0:0"       # what /etc/passwd would show if an include ran
EVIL_PROJECT = f"<img src=x onerror=alert(1)>{{{{< env {CANARY_ENV} >}}}}$m$"
EVIL_URL = "https://github.com/pytorch/pytorch/issues/77<script>alert(2)</script>"
# hostile text per kind of input, and the page that shows it
EVIL_DETAIL = "<script>alert(3)</script> detail"
EVIL_SUBTHEME = "[click](javascript:alert(12)) {{< kbd <svg/onload=alert(13)> >}} $$x$$"
EVIL_RTL = "\u202eevil.exe"
EVIL_QUOTE = f"<script>alert(4)</script> said U2 {{{{< env {CANARY_ENV} >}}}}"
EVIL_INSIGHT = "<b onmouseover=alert(5)>insight</b>"
EVIL_NODE = "{{< include /etc/passwd >}}"
EVIL_KEYWORD = "<script>alert(6)</script>"
EVIL_KEYWORD_INCLUDE = "{{< include ../../../../etc/passwd >}}"
EVIL_GUIDELINE = "<script>alert(7)</script> and [a link](javascript:alert(8))"
EVIL_TEX = "\\textbf{bold} $$E=mc^2$$"
EVIL_SHORTCODE = "{{< var build.commit >}}"  # data must never form a Quarto shortcode
EVIL_FENCE = "```{=html} fence"               # nor close the raw block around it
EVIL_LABELS = ["{{< include /etc/passwd >}}", '=HYPERLINK("https://evil.example","x")',
               "$$", "\u202egnp.exe", "<script>alert(11)</script>", "+cmd|' /C calc'!A0",
               "@SUM(1+1)*cmd|' /C calc'!A0"]
# every payload, for the scans of generated variables and pages
PAYLOADS = [EVIL_PROJECT, EVIL_URL, EVIL_DETAIL, EVIL_SUBTHEME, EVIL_RTL, EVIL_QUOTE,
            EVIL_INSIGHT, EVIL_NODE, EVIL_KEYWORD, EVIL_KEYWORD_INCLUDE, EVIL_GUIDELINE,
            EVIL_TEX, EVIL_SHORTCODE, EVIL_FENCE, *EVIL_LABELS]
EVIL_BY_PAGE = {
    "data.html": [EVIL_URL, EVIL_PROJECT, EVIL_LABELS[0], EVIL_LABELS[1]],
    "table1.html": [EVIL_PROJECT],
    "taxonomy.html": [EVIL_DETAIL, EVIL_SHORTCODE, EVIL_FENCE, EVIL_SUBTHEME],
    "agreement.html": [EVIL_PROJECT],
    "interviews.html": [EVIL_QUOTE, EVIL_INSIGHT, "<script>alert(7)</script> and a link",
                        EVIL_NODE, EVIL_TEX],
    "keywords.html": [EVIL_KEYWORD, EVIL_KEYWORD_INCLUDE],
    "changes.html": [EVIL_PROJECT],
}
STAGE_ORDER = ("clean", "table1", "taxonomy", "agreement", "interviews", "compare",
               "keywords", "findings", "explorer")
STAGES = tuple(f"{PATHS.stage(s).notebook.stem}" for s in STAGE_ORDER)  # notebook stems


def hostile_dump(root: Path) -> None:
    write_dump(root, [
        Project("pytorch", {2023: 12, 2024: 9, 2025: 4}, repo="pytorch/pytorch"),
        Project("vllm", {2023: 5, 2024: 14, 2025: 6}, repo="vllm-project/vllm"),
        Project("MindSpeed", {2024: 6, 2025: 2}, host="gitee.com", repo="ascend/MindSpeed"),
        Project(EVIL_PROJECT, {2024: 40}, repo="org/evil"),
    ])
    labels = root / "Issue Report" / "pytorch" / "pytorch.csv"
    row = ",".join([EVIL_URL, *["C.1"] * 7, "C.1"])
    labels.write_text(labels.read_text(encoding="utf-8") + row + "\n" + row + "\n",
                      encoding="utf-8")
    years = root / "Issue Report" / "pytorch" / "pytorch_2024.txt"
    years.write_text(years.read_text(encoding="utf-8") + EVIL_URL + "\n" + EVIL_URL + "\n",
                     encoding="utf-8")

    def evil_labels(rows: list[list[str]]) -> None:  # one annotator per payload, final C.1
        rows[1][1:8] = EVIL_LABELS
        rows[1][8] = "C.1"
    _edit_csv(root / "Issue Report" / "vllm" / "vllm.csv", evil_labels)
    _edit_csv(root / "Issue Report" / "bug_symptoms.csv", lambda rows: rows[1].__setitem__(
        2, rows[1][2] + f",{EVIL_DETAIL},{EVIL_SHORTCODE},{EVIL_FENCE}"))
    _edit_csv(root / "Issue Report" / "bug_symptoms.csv", lambda rows: rows.append(
        [rows[1][0], f"{EVIL_SUBTHEME} {EVIL_RTL}", "a detail"]))

    def quote(rows: list[list[str]]) -> None:
        for r in rows[1:]:
            if r[0] == "U2":
                r[5], r[7] = EVIL_QUOTE, EVIL_INSIGHT
                r[6] = f"{r[6]}, {EVIL_NODE}"
    _edit_csv(root / "CodeBook.csv", quote)
    guideline = root / "Interview GuideLine.md"
    guideline.write_text(guideline.read_text(encoding="utf-8")
                         + f"\n{EVIL_GUIDELINE}\n\n{EVIL_TEX}\n", encoding="utf-8")
    keywords = root / "filter_keywords"
    keywords.write_text(keywords.read_text(encoding="utf-8").replace(
        "'lora']", f"'lora', {EVIL_KEYWORD!r}, {EVIL_KEYWORD_INCLUDE!r}, '$$', "
                   "'=cmd|calc!A0']"), encoding="utf-8")


def _edit_csv(path: Path, edit) -> None:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    edit(rows)
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


FAST = {"agreement": {"bootstrap_resamples": 100}}  # a smaller bootstrap for the tests


def stage_parameters(root: Path) -> dict[str, dict]:
    """Each stage's notebook parameters as nbrun injects them: the project root and its
    params.yaml section, with the values of :data:`FAST` in place."""
    return {stage: parse_params(stage, [[name, json.dumps(value)] for name, value in
                                        FAST.get(stage, {}).items()], root)
            for stage in STAGE_ORDER}


# The curated inputs a project copy needs (everything else the stages write).
CURATED = ("dvc.yaml", "params.yaml", "requirements.txt", "requirements-no-deps.txt",
           "CITATION.cff", "LICENSE", "data/projects.yaml", "data/challenges.yaml",
           "data/taxonomy.yaml", "data/claims.yaml", "data/baseline", "data/fresh_clone.json",
           "docs")


def copy_curated(root: Path) -> None:
    """The files of the project a run reads besides the dump (see :data:`CURATED`)."""
    for name in CURATED:
        src, dest = ROOT / name, root / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, dirs_exist_ok=True)
        else:
            shutil.copyfile(src, dest)


def build_project(root: Path) -> Path:
    """Run every stage on the hostile dump into ``root``."""
    dump = root.parent / f"{root.name}-dump"
    hostile_dump(dump)
    copy_curated(root)
    paths = Paths(root)
    result = ingest(str(dump), paths.raw)
    artifacts.write_json(paths.provenance, result.provenance)
    for stage, params in stage_parameters(root).items():
        code = run(PATHS.stage(stage).notebook_source, paths.stage(stage).notebook, params)
        assert code == 0, f"notebook of stage {stage} failed"

    src = ROOT / "report"
    for path in [*src.glob("*.qmd"), src / "_quarto.yml"]:
        shutil.copyfile(path, root / "report" / path.name)
    shutil.copytree(src / "assets", root / "report" / "assets", dirs_exist_ok=True)
    return root


EMPTY_NOTEBOOK = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def report_sources(root: Path) -> Paths:
    """A ``report/`` folder under ``root`` with one file of each kind a render reads (and
    the executed notebook of the clean stage), and files it must not read."""
    paths = Paths(root)
    report = paths.site_src
    for rel, text in {
        "index.qmd": "# Home\n", "_quarto.yml": "project: {}\n", "_variables.yml": "a: 1\n",
        "assets/site.css": "body {}\n", "_generated/x.md": "x\n",
        "figures/table1/counts.svg": "<svg/>\n", "downloads/issues.csv": "a\n",
        # not sources: a hidden file a killed run left, the site itself, a stray notebook
        "_generated/.x.md.abc.tmp": "half", "_site/index.html": "<html/>",
        "notebooks/.04_agreement.abc.ipynb": "", "notebooks/99_removed.ipynb": EMPTY_NOTEBOOK,
    }.items():
        (report / rel).parent.mkdir(parents=True, exist_ok=True)
        (report / rel).write_text(text, encoding="utf-8")
    paths.clean.notebook.write_text(EMPTY_NOTEBOOK, encoding="utf-8")
    return paths


def render_copy(project: Path, dest: Path, renderer: str) -> Paths:
    """Copy the built ``project`` to ``dest`` and render its site there with ``renderer``
    as the report stage does, with the canary set in the environment (no page may show
    it)."""
    from analysis.report.generation import build

    shutil.copytree(project, dest)
    os.environ[CANARY_ENV] = CANARY  # inherited by Quarto: an `env` shortcode would show it
    try:
        messages: list[str] = []
        label = build(Paths(dest), renderer=renderer, log=messages.append)
    finally:
        os.environ.pop(CANARY_ENV, None)
    assert label.startswith("Quarto" if renderer == "quarto" else "pandoc preview")
    assert "pages rendered" in messages[0]
    return Paths(dest)
