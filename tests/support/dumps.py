"""Synthetic issue dumps in the upstream layout, built by the tests themselves.

``write_dump`` writes ``Issue Report/<Project>/<Project>.csv`` and year files for a few
projects with deterministic pseudo-random labels, and returns what it wrote so tests can
check counts. Defects are injected by editing the files afterwards (see the tests).
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

THEMES = ["A.1", "A.2", "A.3", "A.4", "B.1", "B.2", "B.3", "B.4"] + [f"C.{i}" for i in
                                                                  range(1, 11)]
TYPE_OF = {"A": "Question", "B": "Requirement", "C": "Bug"}


@dataclass
class Project:
    name: str
    years: dict[int, int]  # year -> number of issues
    annotators: int = 7
    missing: float = 0.0  # share of annotator labels left empty (a missing rating)
    host: str = "github.com"
    repo: str = ""
    rows: list[list[str]] = field(default_factory=list)

    @property
    def url_prefix(self) -> str:
        return f"https://{self.host}/{self.repo or 'org/' + self.name}/issues/"


def make_rows(project: Project, seed: int) -> list[tuple[int, list[str]]]:
    """(year, [url, labels..., final]) per issue; the final label is the majority."""
    rng = random.Random(f"{project.name}-{seed}")
    rows = []
    n = 0
    for year, count in sorted(project.years.items()):
        for _ in range(count):
            n += 1
            final = rng.choice(THEMES)
            labels = [final if rng.random() < 0.8 else rng.choice(THEMES)
                      for _ in range(project.annotators)]
            # keep the final label the strict majority, as in the released data
            keep = project.annotators // 2 + 1
            labels[:keep] = [final] * keep
            rng.shuffle(labels)
            if project.missing:  # no extra draws otherwise: the other dumps stay the same
                labels = ["" if rng.random() < project.missing else x for x in labels]
            rows.append((year, [f"{project.url_prefix}{1000 + n}", *labels, final]))
    return rows


def write_dump(root: Path, projects: list[Project], seed: int = 0,
               study_files: bool = True) -> dict[str, list]:
    """Write a dump under ``root``; return project name -> list of (year, row).

    ``study_files`` adds the release's other files (interviews, detail files, keywords) so
    that every stage of the pipeline has its inputs.
    """
    written = {}
    if study_files:
        write_study_files(root)
    base = root / "Issue Report"
    for project in projects:
        folder = base / project.name
        folder.mkdir(parents=True, exist_ok=True)
        rows = make_rows(project, seed)
        header = ["Issue_URL", *[f"Label{i}" for i in range(1, project.annotators + 1)],
                  "Final_Label"]
        lines = [",".join(header)] + [",".join(r) for _, r in rows]
        (folder / f"{project.name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        for year in sorted(project.years):
            urls = [r[0] for y, r in rows if y == year]
            text = "".join(u + "\n" for u in urls)
            (folder / f"{project.name}_{year}.txt").write_text(text, encoding="utf-8")
        written[project.name] = rows
    return written


def small_dump(root: Path, missing: float = 0.0) -> dict[str, list]:
    """Three projects, two of them in data/projects.yaml, years 2023-2025, 7 annotators,
    plus the study's other released files (interviews...); ``missing``: the share of
    annotator labels left empty."""
    return write_dump(root, [
        Project("pytorch", {2023: 12, 2024: 9, 2025: 4}, repo="pytorch/pytorch",
                missing=missing),
        Project("vllm", {2023: 5, 2024: 14, 2025: 6}, repo="vllm-project/vllm",
                missing=missing),
        Project("MindSpeed", {2023: 0, 2024: 6, 2025: 2}, host="gitee.com",
                repo="ascend/MindSpeed", missing=missing),
    ])


def expected_counts(written: dict[str, list]) -> dict[str, dict]:
    """Counts per project by year and by type, as Table I should show them."""
    out = {}
    for name, rows in written.items():
        by_year: dict[int, int] = {}
        by_type: dict[str, int] = {}
        for year, row in rows:
            by_year[year] = by_year.get(year, 0) + 1
            t = TYPE_OF[row[-1][0]]
            by_type[t] = by_type.get(t, 0) + 1
        out[name] = {"years": by_year, "types": by_type, "total": len(rows)}
    return out


@cache
def background_workbook() -> bytes:
    """The background workbook of :func:`write_interview_files`, saved once a process
    (openpyxl takes some 40 ms a workbook; every dump with the study's files has one)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(["Roles", "Gender", "Experience Years for LLMs", "Responsibilities"])
    ws.append(["LLM User-Software Engineer", "Male", "4 years", "Builds tools."])
    ws.append(["LLM User-Second year master's student", "Female", "2 years", "Fine-tunes."])
    ws.append(["DL framework Developer-Release Manager", "Male", "9 years", "Validates."])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def write_interview_files(root: Path) -> None:
    """A small, clean interview release: codebook, background workbook, guideline."""
    import csv

    root.mkdir(parents=True, exist_ok=True)
    with (root / "CodeBook.csv").open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["Participant", "Type", "Experience Level", "Framework Context",
                    "Prompt Category", "Thematic Quote", "Linked Taxonomy Node(s)",
                    "Research Insight"])
        w.writerow(["U1", "User", "Beginner", "PyTorch", "Install", "It broke.", "A.1, C.1",
                    "Setup blocks."])
        w.writerow(["U2", "User", "Advanced", "vLLM", "Serving", "Slow.", "C.2", "Speed."])
        w.writerow(["D1", "Developer", "Advanced", "MindSpore", "Ops", "Ports.", "B.2, C.8",
                    "Portability."])
    (root / "Interviewee Background.xlsx").write_bytes(background_workbook())
    (root / "Interview GuideLine.md").write_text(
        "**Purpose:**\nValidate the taxonomy.\n\n## Part I. Background Information\n\n"
        "1. What is your role?\n\n## Part II. Questions\n\n- What confuses you?\n\n"
        "## Part III. Bugs\n\n- Which bugs?\n\n## Part IV. Requirements\n\n- What is missing?\n",
        encoding="utf-8")


DETAIL_FILES = {"Question": "question_intents.csv", "Requirement": "requirement_expections.csv",
                "Bug": "bug_symptoms.csv"}
KEYWORDS = ("pytorch_keywords = ['llm', 'LLM', 'llama', 'yi', 'transformer', 'lora']\n"
            "tensorflow_keywords = ['llm', 'bert', 'TPU']\nmindspore_keywords = ['llm']\n")


def write_detail_files(root: Path, items_per_subtheme: int = 2) -> dict[str, int]:
    """Detail files in the upstream layout for every sub-theme of data/taxonomy.yaml.

    Returns the number of detail items written per type.
    """
    import csv

    rows = detail_rows(items_per_subtheme)
    base = root / "Issue Report"
    base.mkdir(parents=True, exist_ok=True)
    for kind, name in DETAIL_FILES.items():
        with (base / name).open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["rootcause", "subcategory", "symptoms"])
            w.writerows(rows[kind])
    return {k: len(v) * items_per_subtheme for k, v in rows.items()}


@cache
def detail_rows(items_per_subtheme: int) -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Type -> the rows of its detail file (theme, sub-theme, items) for every sub-theme of
    data/taxonomy.yaml, read once a process."""
    from analysis.core.config import load_yaml
    from analysis.core.paths import PATHS

    data = load_yaml(PATHS.taxonomy_file)
    letters = {t["code"]: t["name"] for t in data["types"]}
    rows: dict[str, list[tuple[str, str, str]]] = {t: [] for t in DETAIL_FILES}
    for theme in data["themes"]:
        kind = letters[theme["code"].split(".")[0]]
        for sub in theme.get("subthemes") or []:
            items = [f"{sub['code']} detail {i}" for i in range(1, items_per_subtheme + 1)]
            rows[kind].append((theme["name"], sub["name"], ",".join(items)))
    return {kind: tuple(found) for kind, found in rows.items()}


def write_study_files(root: Path) -> None:
    """The release's files besides the label files: interviews, detail files, keywords."""
    write_interview_files(root)
    write_detail_files(root)
    (root / "filter_keywords").write_text(KEYWORDS, encoding="utf-8")


def write_batch(root: Path, rows: dict[str, list[tuple[str, str, list[str], str]]],
                excluded: dict[str, list[tuple[str, str]]] | None = None,
                annotators: int = 3, names: list[str | None] | None = None) -> Path:
    """A batch as ``labels merge`` writes it: per project its label rows (url, created_at,
    labels, final label), year files, excluded candidates (url, created_at) and
    ``labels/merge.json`` (with the annotators' ``names`` when given)."""
    import json

    excluded = excluded or {}
    for project in sorted(set(rows) | set(excluded)):
        folder = root / "Issue Report" / project
        folder.mkdir(parents=True, exist_ok=True)
        header = ["Issue_URL", *[f"Label{k}" for k in range(1, annotators + 1)],
                  "Final_Label"]
        mine = rows.get(project, [])
        (folder / f"{project}.csv").write_text(
            "".join(",".join(r) + "\n" for r in [header] + [[u, *labels, final]
                                                            for u, _, labels, final in mine]),
            encoding="utf-8")
        for year in sorted({created[:4] for _, created, _, _ in mine}):
            (folder / f"{project}_{year}.txt").write_text(
                "".join(u + "\n" for u, created, _, _ in mine if created[:4] == year),
                encoding="utf-8")
        (folder / f"{project}_excluded.csv").write_text(
            "Issue_URL,Created_At\n" + "".join(f"{u},{c}\n" for u, c in excluded.get(
                project, [])), encoding="utf-8")
    (root / "labels").mkdir(parents=True, exist_ok=True)
    record = {"annotators": annotators, "selection": "sel-000000000000", "undecided": 0,
              "sheets": [{"file": f"annotator_{k}.csv", "sha256": "0" * 64}
                         for k in range(1, annotators + 1)]}
    if names is not None:
        record["annotator_names"] = names
    (root / "labels" / "merge.json").write_text(json.dumps(record), encoding="utf-8")
    (root / "labels" / "comments.csv").write_text("project,url,annotator,column,text\n",
                                                  encoding="utf-8")
    return root
