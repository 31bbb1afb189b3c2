"""Synthetic interview files for the unit tests of the interviews stage: a codebook and a
background workbook (built with openpyxl) with merged cells, mixed units, spelling
variants, unknown nodes, a BOM and CRLF line endings, and a guideline with raw HTML."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl

from analysis.core.taxonomy import Taxonomy
from analysis.interviews.clean import InterviewData, clean_interviews
from analysis.interviews.params import InterviewsParams
from analysis.interviews.read import (
    BACKGROUND_FILE,
    CODEBOOK_FILE,
    GUIDELINE_FILE,
    read_interviews,
)

PARAMS = InterviewsParams.of(**{
    "sheet": None,
    "groups": {"LLM User": "User", "DL framework Developer": "Developer"},
    "translations": {"或": "or"},
    "role_categories": [
        {"key": "engineer", "type": "User", "pattern": "engineer", "label": "engineer"},
        {"key": "student", "type": "User", "pattern": "student", "label": "student"},
        {"key": "manager", "type": "Developer", "pattern": "manager", "label": "manager"},
        {"key": "training", "type": "Developer", "pattern": "training", "label": "training"},
        {"key": "inference", "type": "Developer", "pattern": "inference",
         "label": "inference"},
        {"key": "deployment", "type": "Developer", "pattern": "deployment",
         "label": "deployment"},
        {"key": "community", "type": "Developer", "pattern": "community|open-source",
         "label": "community"},
    ],
})

HEADER = ["Roles", "Gender", "Experience Years for LLMs", "Responsibilities"]
# sheet rows 2..: role, gender, experience, responsibilities (None = empty cell)
BACKGROUND = [
    ["LLM User-Software Engineer", "Male", "4 years", "He builds test generators.\n"],
    ["LLM User-First-year undergraduate student ", "FeMale", "8 Months", "She fine-tunes."],
    ["LLM User-Second year master's student", "Male", "3 years", "They study LLMs."],
    ["LLM User-Second year master's student", "FeMale", "1 year 6 months", None],  # merged
    None,  # a blank row
    ["DL framework Developer-Release Manager", "Female", 9, "He validates releases."],
    ["DL framework Developer-LLM Training Optimization Engineer", "Male", "5 years",
     "They optimise training."],
    ["DL framework Developer-LLM Training Optimization Engineer", "Male", "5 yrs", None],
    ["DL framework Developer-Community Model Engineer 或 LLM Support Engineer", "Male",
     "about three", "They maintain models."],
    ["Visiting Researcher", "Male", "2 years", "Reads papers."],  # unknown group
    [None, "Male", "2 years", "no role"],  # set aside
]
MERGES = ["D4:D5", "D8:D9"]

CODEBOOK_HEADER = ["Participant", "Type", "Experience Level", "Framework Context",
                   "Prompt Category", "Thematic Quote", "Linked Taxonomy Node(s)",
                   "Research Insight"]
CODEBOOK = [
    ["U1", "User", "Beginner", "PyTorch", "Install", "It broke | twice.", "A.1, C.1",
     "Setup blocks."],
    ["U2", "user", "intermediate", "MindSpore", "Docs", "<b>Outdated</b> docs.", "B.4; c3",
     "Docs age."],
    ["U3", "User", "Advanced", "DeepSpeed", "Ckpt", "Checkpoint lost.", "C.6, C.11, C.6",
     "No recovery."],
    ["D1", "Developer", "Advanced", "DeepSpeed", "Threads", "Race.", "C.3, C.11, X-9",
     "Unsafe threads."],
    ["D2", "User", "Expert", "TF", "Mismatch", "Type says user.", "B.5", "New need."],
    ["", "User", "Beginner", "", "", "no id", "A.1", ""],
    ["U1", "User", "Beginner", "PyTorch", "Again", "Second row.", "", "Dup."],
]


def write_background(path: Path, rows=BACKGROUND, merges=MERGES, extra_sheet=True,
                     header=HEADER) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(header)
    for row in rows:
        ws.append(row if row is not None else [])
    for rng in merges:
        ws.merge_cells(rng)
    if extra_sheet:
        wb.create_sheet("Notes")["A1"] = "ignore me"
    wb.save(path)
    return path


def write_codebook(path: Path, rows=CODEBOOK, bom=True, crlf=True) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\r\n" if crlf else "\n")
        writer.writerow(CODEBOOK_HEADER)
        writer.writerows(rows)
    if bom:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return path


GUIDELINE = "\n".join([
    "", "",
    "**Purpose:**  ",
    "Validate the taxonomy.",
    "",
    "**Target Participants:**  ",
    "- **LLM Users:** people.",
    "",
    "**Format:** Semi-structured, 30–40 minutes per session.",
    "",
    "---",
    "",
    "## Part I. Background Information",
    "",
    "**Questions:**",
    "1. What is your role?",
    "2. Which frameworks do you use?  ",
    "   _(e.g., PyTorch)_",
    "",
    "## Part II. Questions <script>alert(1)</script>",
    "",
    "### For LLM Users:",
    "- What confuses you?",
    "",
    "### For Framework Developers:",
    "- How do users ask?",
    "- Which are hard?",
    "", "", "", "",
])


def write_inputs(folder: Path) -> tuple[Path, Path, Path]:
    """The three synthetic files under their release names in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    cb = write_codebook(folder / CODEBOOK_FILE)
    bg = write_background(folder / BACKGROUND_FILE)
    gl = folder / GUIDELINE_FILE
    gl.write_text(GUIDELINE, encoding="utf-8")
    return cb, bg, gl


def clean(codebook: Path, background: Path, taxonomy: Taxonomy,
          params: InterviewsParams = PARAMS,
          guideline: Path | None = None) -> InterviewData:
    """Read and clean interview files (what the stage did in one call before)."""
    return clean_interviews(read_interviews(codebook, background, guideline,
                                            params.sheet), taxonomy, params)


def anomalies(data: InterviewData, kind: str) -> list[dict]:
    """The anomalies of one kind in a quality report."""
    return [a for a in data.quality["anomalies"] if a["kind"] == kind]
