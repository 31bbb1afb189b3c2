"""The update loop end to end on a synthetic GH Archive, in seconds: select --known (new
toolkit issues, issues the base already labels, one under a former name, pull requests,
other repositories) -> three sheets filled with unanimous, 2:1, no-majority,
split-exclusion and all-excluded rows -> merge -> decisions on the adjudication list ->
merge --decisions twice (the same bytes) -> extend onto a base dump in the upstream layout.
Checked: no candidate is an issue the base holds, every decision honoured, every rating
kept, the study's rows the base's plus the batch's. (The pipeline on such a study:
tests/e2e/test_labelling_loop.py.)"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

from analysis.core.paths import DumpLayout, SheetPaths
from analysis.update.labels.__main__ import main as labels
from analysis.update.labels.extend import batches_file
from analysis.update.select.__main__ import main as select
from tests.support.dumps import Project, write_dump
from tests.support.gharchive import opened_issues, write_events
from tests.support.sheets import fill, read_rows
from tests.support.studies import VLLM_CASES, VLLM_DECIDED, V, write_vllm_hour

SPEC = """projects:
  pytorch: {name: PyTorch, kind: framework, order: 1, platform: github,
            repository: pytorch/pytorch, filter: pytorch}
  DeepSpeed: {name: DeepSpeed, kind: toolkit, order: 4, platform: github,
              repository: deepspeedai/DeepSpeed, former_names: [microsoft/DeepSpeed],
              filter: none}
  vllm: {name: vLLM, kind: toolkit, order: 6, platform: github,
         repository: vllm-project/vllm, filter: none}
"""
KEYWORDS = "pytorch_keywords = ['llm', 'llama']\n"
D = "https://github.com/deepspeedai/DeepSpeed/issues/"
P = "https://github.com/pytorch/pytorch/issues/"
# (label, excluded) of annotators 1..3 for each new candidate
FILLS = {
    **VLLM_CASES,
    f"{D}2": [("C.5", ""), ("C.5", ""), ("C.2", "")],
    f"{P}3": [("A.4", ""), ("", "x"), ("A.4", "")],        # split on exclusion
}
DECIDED = {**VLLM_DECIDED, f"{P}3": "A.4"}


def archive(folder: Path) -> None:
    """Hours of 2026: new issues, issues the base labels, pull requests, other
    repositories, an issue of a framework matching no keyword."""
    write_vllm_hour(folder / "2026-01-01-1.json.gz", 5)
    write_events(folder / "2026-01-01-2.json.gz", [
        *opened_issues("microsoft/DeepSpeed", [(1001, "2026-01-02T00:00:00Z", "old", "")]),
        *opened_issues("deepspeedai/DeepSpeed", [(2, "2026-01-03T00:00:00Z", "x", "")]),
        *opened_issues("pytorch/pytorch", [(3, "2026-01-04T00:00:00Z", "LLM OOM", ""),
                                           (4, "2026-01-05T00:00:00Z", "conv2d", "")])])


def printed(capsys, code: int) -> str:
    said = capsys.readouterr()
    assert code == 0, said.err
    return said.out


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_select_label_adjudicate_extend(tmp_path, capsys, taxonomy):
    spec, keywords = tmp_path / "projects.yaml", tmp_path / "filter_keywords"
    spec.write_text(SPEC, encoding="utf-8")
    keywords.write_text(KEYWORDS, encoding="utf-8")
    archive(tmp_path / "gharchive")
    base = tmp_path / "release"
    write_dump(base, [Project("pytorch", {2024: 3}, repo="pytorch/pytorch"),
                      Project("DeepSpeed", {2023: 2}, repo="microsoft/DeepSpeed"),
                      Project("vllm", {2024: 2, 2025: 1}, repo="vllm-project/vllm")])
    sel = tmp_path / "update"

    # 1. select, leaving out what the base holds
    said = printed(capsys, select([str(tmp_path / "gharchive"), "--out", str(sel),
                                   "--projects", str(spec), "--keywords", str(keywords),
                                   "--known", str(base)]))
    assert f"known issues: 8 in {base}, left out" in said
    candidates = pd.read_csv(sel / "selection/candidates.csv", dtype=str,
                             keep_default_na=False)
    assert sorted(candidates["url"]) == sorted(FILLS)
    record = json.loads((sel / "selection/selection.json").read_text())
    assert record["known"]["left_out"] == 2  # vllm 1001, DeepSpeed 1001 (a former name)
    assert record["projects"]["vllm"]["pull_requests"] == 1
    assert record["projects"]["pytorch"]["not_matched"] == 1
    assert record["skipped"]["other_events"] >= 1

    # 2. three sheets, filled
    printed(capsys, labels(["sheets", str(sel / "selection/candidates.csv"), "--annotators",
                            "3", "--out", str(sel)]))
    sheets = [SheetPaths(sel).sheet(k) for k in (1, 2, 3)]
    for k, sheet in enumerate(sheets):
        fill(sheet, {url: marks[k] for url, marks in FILLS.items()})

    # 3. merge: the adjudication list
    batch = tmp_path / "batch"
    said = printed(capsys, labels(["merge", *map(str, sheets), "--out", str(batch)]))
    assert "3 undecided (left out of the batch)" in said
    listed = DumpLayout(batch).adjudication
    rows = read_rows(listed)
    assert {r[0]: r[13] for r in rows[1:]} == {
        f"{V}3": "no majority (A.1: 1; A.2: 1; A.3: 1)",
        f"{V}4": "split on exclusion (1 of 3 excluded)",
        f"{P}3": "split on exclusion (1 of 3 excluded)"}

    # 4. the adjudicators decide in a copy of the list
    decisions = tmp_path / "decisions.csv"
    for row in rows[1:]:
        row[-1] = DECIDED[row[0]]
    with decisions.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)

    # 5. merge --decisions, twice: the same batch
    args = ["merge", *map(str, sheets), "--out", str(batch), "--decisions", str(decisions),
            "--force"]
    said = printed(capsys, labels(args))
    assert "0 undecided" in said
    once = tree(batch)
    printed(capsys, labels(args))
    assert tree(batch) == once

    # 6. extend the base with the batch
    study = tmp_path / "study"
    said = printed(capsys, labels(["extend", "--base", str(base), "--batch", str(batch),
                                   "--out", str(study), "--projects", str(spec)]))
    assert "batch batch (5 label rows, 2 excluded, annotators in Label8..Label10)" in said

    layout = DumpLayout(study)
    labelled, excluded = {}, {}
    for project in ("pytorch", "DeepSpeed", "vllm"):
        body = read_rows(layout.label_file(project))
        header = body[0]
        assert header == ["Issue_URL", *[f"Label{n}" for n in range(1, 11)], "Final_Label",
                          "Batch"]
        old = read_rows(base / f"Issue Report/{project}/{project}.csv")[1:]
        assert [r[:8] + [r[11]] for r in body[1:len(old) + 1]] == old  # the base as it was
        labelled.update({r[0]: r for r in body[len(old) + 1:]})
        if layout.excluded_file(project).exists():
            excluded.update({r[0]: r for r in read_rows(layout.excluded_file(project))[1:]})
    # row counts: the base's 8 + the batch's 5
    assert sum(len(read_rows(layout.label_file(p))) - 1
               for p in ("pytorch", "DeepSpeed", "vllm")) == 8 + 5
    assert sorted(labelled) == sorted([f"{V}1", f"{V}2", f"{V}3", f"{D}2", f"{P}3"])
    assert sorted(excluded) == [f"{V}4", f"{V}5"]
    # every decision honoured, every rating kept, in the batch's own columns
    assert labelled[f"{V}3"][11] == "A.2" and labelled[f"{P}3"][11] == "A.4"
    assert labelled[f"{V}2"][11] == "B.2" and labelled[f"{V}1"][11] == "C.3"
    for url, row in labelled.items():
        assert row[1:8] == [""] * 7 and row[12] == "batch"
        assert row[8:11] == [label for label, _ in FILLS[url]]
    assert all(r[2] == "batch" for r in excluded.values())
    years = layout.year_file("vllm", 2026).read_text().split()
    assert years == [f"{V}1", f"{V}2", f"{V}3"]
    assert layout.year_file("vllm", 2024).read_bytes() == (
        base / "Issue Report/vllm/vllm_2024.txt").read_bytes()
    assert (study / "CodeBook.csv").read_bytes() == (base / "CodeBook.csv").read_bytes()
    record = json.loads(batches_file(layout.root).read_text())
    assert [(b["name"], b["label_rows"]) for b in record["batches"]] == [("release", 8),
                                                                        ("batch", 5)]
