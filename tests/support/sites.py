"""A complete synthetic project for the website tests, built the way the pipeline builds it.

``build_project`` writes a small synthetic dump with hostile text in every kind of input
that reaches a page (a project folder named like an HTML tag with an event handler, an
issue URL with a ``<script>`` element, and ``<script>`` elements in a detail item, an
interview quote, its insight, the interview guideline and a keyword), runs every stage of
the pipeline on it into a temporary project root (ingest, then each notebook through
``analysis.tools.nbrun`` with the parameters of ``params.yaml``), copies the Quarto sources, and
returns the root. ``analysis.report.build`` then renders a site from it like the
``report`` stage.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import yaml

from analysis.core.paths import ROOT  # noqa: E402
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
STAGES = ("01_clean", "02_table1", "03_taxonomy", "04_agreement", "05_interviews",
          "06_compare", "07_keywords", "08_findings")


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


def stage_parameters(root: Path) -> dict[str, dict]:
    """Each notebook's parameters: its params.yaml section, paths inside ``root``."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    r, proc, tables, figures = (root, root / "data/processed", root / "report/tables",
                                root / "report/figures")
    vars_, metrics, repro = root / "report/vars", root / "metrics", root / "data/reproduced"
    raw = root / "data/raw"
    return {
        "01_clean": {"raw_dir": raw, "issues_parquet": proc / "issues.parquet",
                     "issues_csv": proc / "issues.csv", "rejected_csv": proc / "rejected.csv",
                     "quality_json": proc / "quality.json",
                     "metrics_json": metrics / "clean.json", "duplicates": "keep"},
        "02_table1": {"issues_parquet": proc / "issues.parquet",
                      "table_csv": tables / "table1.csv", "table_md": tables / "table1.md",
                      "table_html": tables / "table1.html", "figure_stem": figures / "table1",
                      "reproduced_json": repro / "table1.json",
                      "vars_json": vars_ / "table1.json",
                      "metrics_json": metrics / "table1.json"},
        "03_taxonomy": {"raw_dir": raw, "issues_parquet": proc / "issues.parquet",
                        "projects_file": r / "data/projects.yaml",
                        "detail_files": params["taxonomy"]["detail_files"],
                        "item_split": params["taxonomy"]["item_split"],
                        "tables_dir": tables, "figures_dir": figures,
                        "quality_json": proc / "quality_taxonomy.json",
                        "vars_json": vars_ / "taxonomy.json",
                        "metrics_json": metrics / "taxonomy.json",
                        "reproduced_json": repro / "taxonomy.json"},
        "04_agreement": {"issues_parquet": proc / "issues.parquet",
                         "projects_file": r / "data/projects.yaml",
                         "bootstrap_resamples": 100, "seed": params["agreement"]["seed"],
                         "confidence_level": params["agreement"]["confidence_level"],
                         "tables_dir": tables, "figures_dir": figures,
                         "vars_json": vars_ / "agreement.json",
                         "reproduced_json": repro / "agreement.json",
                         "metrics_json": metrics / "agreement.json"},
        "05_interviews": {**params["interviews"],
                          "codebook_csv": raw / "CodeBook.csv",
                          "background_xlsx": raw / "Interviewee Background.xlsx",
                          "guideline_md": raw / "Interview GuideLine.md",
                          "processed_dir": proc,
                          "quality_json": proc / "quality_interviews.json",
                          "tables_dir": tables, "figures_dir": figures,
                          "vars_json": vars_ / "interviews.json",
                          "metrics_json": metrics / "interviews.json",
                          "reproduced_json": repro / "interviews.json"},
        "06_compare": {"issues_parquet": proc / "issues.parquet",
                       "projects_file": r / "data/projects.yaml",
                       "agreement_metrics": metrics / "agreement.json",
                       "tables_prefix": f"{tables}/compare_",
                       "figures_prefix": f"{figures}/compare_",
                       "vars_json": vars_ / "compare.json",
                       "metrics_json": metrics / "compare.json"},
        "07_keywords": {"keywords_file": raw / "filter_keywords",
                        "counts_csv": tables / "keywords_counts.csv",
                        "lists_csv": tables / "keywords_lists.csv",
                        "audit_csv": tables / "keywords_audit.csv",
                        "vars_json": vars_ / "keywords.json",
                        "reproduced_json": repro / "keywords.json",
                        "metrics_json": metrics / "keywords.json"},
        "08_findings": {"reproduced_dir": repro,
                        "scorecard_csv": root / "report" / "scorecard.csv",
                        "metrics_json": metrics / "scorecard.json"},
    }


def build_project(root: Path) -> Path:
    """Run every stage on the hostile dump into ``root``."""
    from analysis.core import artifacts
    from analysis.ingest.ingest import ingest
    from analysis.tools.nbrun import run

    dump = root.parent / f"{root.name}-dump"
    hostile_dump(dump)
    root.mkdir(parents=True, exist_ok=True)
    for name in ("dvc.yaml", "params.yaml", "requirements.txt", "CITATION.cff", "LICENSE"):
        shutil.copyfile(ROOT / name, root / name)
    (root / "data").mkdir(exist_ok=True)
    for name in ("projects.yaml", "challenges.yaml"):
        shutil.copyfile(ROOT / "data" / name, root / "data" / name)
    result = ingest(str(dump), root / "data" / "raw")
    artifacts.write_json(root / "data" / "provenance.json", result.provenance)

    notebooks = root / "report" / "notebooks"
    for stem, params in stage_parameters(root).items():
        params = {k: str(v) if isinstance(v, Path) else v for k, v in params.items()}
        code = run(ROOT / "notebooks" / f"{stem}.py", notebooks / f"{stem}.ipynb", params)
        assert code == 0, f"notebook {stem} failed"

    src = ROOT / "report"
    for path in [*src.glob("*.qmd"), src / "_quarto.yml"]:
        shutil.copyfile(path, root / "report" / path.name)
    shutil.copytree(src / "assets", root / "report" / "assets", dirs_exist_ok=True)
    return root
