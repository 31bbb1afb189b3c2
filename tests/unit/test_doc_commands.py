"""The commands the pages show, run as shown: each block marked ``doc-test: NAME`` in the
README or ``docs/`` (:func:`tests.support.docs.doc_block`) is run by bash in a throw-away
project, on synthetic data, with what a person does between two blocks (filling the
sheets, deciding) done by the test. The project holds a copy of ``src/`` (so the commands'
default paths, ``data/projects.yaml``, ``data/raw/``, are the copy's) and a
``.venv/bin/python`` that runs this environment's Python on that copy, so the pages'
``.venv/bin/python -m ...`` lines run unchanged; the release is a synthetic dump in
``data/release/`` and ``data/raw/``, as ``make report`` leaves them."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.core.paths import ROOT, DumpLayout, SheetPaths
from tests.e2e.test_update_loop import DECIDED, FILLS, archive
from tests.support.docs import bare_shell_env, doc_block
from tests.support.dumps import Project, write_dump
from tests.support.sheets import fill, gh_cli_export, read_rows

CURATED = ("params.yaml", "data/projects.yaml", "data/taxonomy.yaml", "data/codebook.yaml",
           "data/examples.yaml")
# the release's keyword lists, one for each framework of data/projects.yaml
KEYWORDS = ("pytorch_keywords = ['llm', 'llama']\ntensorflow_keywords = ['llm']\n"
            "mindspore_keywords = ['llm']\n")


def make_project(root: Path, base: list[Project]) -> Path:
    """A project folder to run the pages' commands in: the code (and the notebooks, which
    name the stages), the curated files, a ``.venv/bin/python``, and the release ``base``
    in ``data/release/`` and ``data/raw/``."""
    for code in ("src", "notebooks"):  # the stages are named by their notebooks
        shutil.copytree(ROOT / code, root / code,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in CURATED:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, root / name)
    python = root / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{root / "src"}" exec "{sys.executable}" "$@"\n',
                      encoding="utf-8")
    python.chmod(0o755)
    release = root / "data" / "release"
    write_dump(release, base)
    (release / "filter_keywords").write_text(KEYWORDS, encoding="utf-8")
    shutil.copytree(release, root / "data" / "raw")
    return root


def run_block(name: str, project: Path) -> str:
    """Run the block marked ``doc-test: name`` with bash in ``project``; its output."""
    block = doc_block(name)
    proc = subprocess.run(["bash", "-e", "-u", "-o", "pipefail", "-c", block.text],
                          cwd=project, env=bare_shell_env(), capture_output=True, text=True)
    assert proc.returncode == 0, (f"{block.where()} ({name}) exited {proc.returncode}:\n"
                                  f"{proc.stdout}\n{proc.stderr}")
    return proc.stdout + proc.stderr


BASE = [Project("pytorch", {2024: 3}, repo="pytorch/pytorch"),
        Project("DeepSpeed", {2023: 2}, repo="microsoft/DeepSpeed"),
        Project("vllm", {2024: 2, 2025: 1}, repo="vllm-project/vllm")]


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "project", BASE)


def test_your_own_dump_example(project):
    said = run_block("your-own-dump/example", project)
    assert "sglang" in said and "annotators: 5" in said
    assert "balanced: yes" in said
    study = DumpLayout(project / "study")
    assert study.label_file("sglang").is_file()
    assert (project / "study" / "CodeBook.csv").read_bytes() == (
        project / "data" / "release" / "CodeBook.csv").read_bytes()


def test_select_from_exports(project):
    exports = project / "exports"
    exports.mkdir()
    gh_cli_export(exports / "vllm.json", "vllm-project/vllm", [
        (7, "2025-06-01T00:00:00Z", "OOM on load", ""),
        (8, "2024-01-01T00:00:00Z", "before the window", "")])
    gh_cli_export(exports / "pytorch.json", "pytorch/pytorch", [
        (9, "2025-07-01T00:00:00Z", "LLM training", ""), (10, "2025-07-02T00:00:00Z", "x", "")])
    run_block("update-loop/select-exports", project)
    rows = read_rows(project / "labels" / "2026-01" / "selection" / "candidates.csv")
    assert sorted(r[1] for r in rows[1:]) == ["https://github.com/pytorch/pytorch/issues/9",
                                             "https://github.com/vllm-project/vllm/issues/7"]


def test_the_update_loop(project):
    """select (GH Archive) -> sheets -> (annotators fill) -> merge -> (adjudicators decide)
    -> merge --decisions -> extend, each as the reference page shows it."""
    archive(project / "gharchive")
    said = run_block("update-loop/select-gharchive", project)
    assert "(the pipeline's current study dump)" in said
    run_block("update-loop/sheets", project)
    records = project / "labels" / "2026-01"
    sheets = [SheetPaths(records).sheet(n) for n in ("alice", "bob", "chen")]
    candidates = [r[1] for r in read_rows(records / "selection/candidates.csv")[1:]]
    assert sorted(candidates) == sorted(FILLS)
    for k, sheet in enumerate(sheets):
        fill(sheet, {url: marks[k] for url, marks in FILLS.items()})

    said = run_block("update-loop/merge", project)
    assert "3 undecided (left out of the batch)" in said
    decisions = records / "decisions.csv"
    rows = read_rows(decisions)
    assert rows == read_rows(DumpLayout(project / "build/by-hand/2026-01").adjudication)
    for row in rows[1:]:
        row[-1] = DECIDED[row[0]]
    with decisions.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)

    said = run_block("update-loop/decide", project)
    assert "0 undecided" in said
    said = run_block("update-loop/extend", project)
    assert "set ingest.source: build/by-hand/study" in said
    record = json.loads((project / "build/by-hand/study/labels/batches.json").read_text())
    assert [b["name"] for b in record["batches"]] == ["release", "2026-01"]
