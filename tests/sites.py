"""A complete synthetic project for the website tests, built the way the pipeline builds it.

``build_project`` writes a small synthetic dump with hostile text in it (a project folder
named like an HTML tag with an event handler, an issue URL with a ``<script>`` element),
runs the real stages on it into a temporary project root (ingest, the clean, table1 and
findings notebooks through ``analysis.nbrun``), copies the Quarto sources, and returns
the root. ``analysis.report.build`` then renders a site from it like the ``report`` stage.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dumps import Project, write_dump

ROOT = Path(__file__).resolve().parents[1]
EVIL_PROJECT = "<img src=x onerror=alert(1)>"
EVIL_URL = "https://github.com/pytorch/pytorch/issues/77<script>alert(2)</script>"


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


def build_project(root: Path) -> Path:
    """Run ingest, clean, table1 and findings on the hostile dump into ``root``."""
    from analysis import artifacts
    from analysis.ingest import ingest
    from analysis.nbrun import run

    dump = root.parent / f"{root.name}-dump"
    hostile_dump(dump)
    root.mkdir(parents=True, exist_ok=True)
    for name in ("dvc.yaml", "params.yaml", "requirements.txt"):
        shutil.copyfile(ROOT / name, root / name)
    (root / "data").mkdir(exist_ok=True)
    shutil.copyfile(ROOT / "data" / "projects.yaml", root / "data" / "projects.yaml")
    result = ingest(str(dump), root / "data" / "raw")
    artifacts.write_json(root / "data" / "provenance.json", result.provenance)

    p = {k: str(root / v) for k, v in {
        "raw": "data/raw", "parquet": "data/processed/issues.parquet",
        "csv": "data/processed/issues.csv", "rejected": "data/processed/rejected.csv",
        "quality": "data/processed/quality.json", "reproduced": "data/reproduced/table1.json",
        "tables": "report/tables", "figures": "report/figures", "vars": "report/vars",
        "nbs": "report/notebooks", "metrics": "metrics"}.items()}
    steps = [
        ("01_clean", {"raw_dir": p["raw"], "issues_parquet": p["parquet"],
                      "issues_csv": p["csv"], "rejected_csv": p["rejected"],
                      "quality_json": p["quality"],
                      "metrics_json": f"{p['metrics']}/clean.json", "duplicates": "keep"}),
        ("02_table1", {"issues_parquet": p["parquet"],
                       "table_csv": f"{p['tables']}/table1.csv",
                       "table_md": f"{p['tables']}/table1.md",
                       "table_html": f"{p['tables']}/table1.html",
                       "figure_stem": f"{p['figures']}/table1",
                       "reproduced_json": p["reproduced"],
                       "vars_json": f"{p['vars']}/table1.json",
                       "metrics_json": f"{p['metrics']}/table1.json"}),
        ("09_findings", {"reproduced_dir": str(Path(p["reproduced"]).parent),
                         "scorecard_csv": str(root / "report" / "scorecard.csv"),
                         "metrics_json": f"{p['metrics']}/scorecard.json"}),
    ]
    for stem, params in steps:
        code = run(ROOT / "notebooks" / f"{stem}.py", Path(p["nbs"]) / f"{stem}.ipynb", params)
        assert code == 0, f"notebook {stem} failed"

    src = ROOT / "report"
    for path in [*src.glob("*.qmd"), src / "_quarto.yml"]:
        shutil.copyfile(path, root / "report" / path.name)
    shutil.copytree(src / "assets", root / "report" / "assets", dirs_exist_ok=True)
    return root
