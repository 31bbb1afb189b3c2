"""The update loop end to end: GH Archive hourly files -> ``python -m analysis.update.select`` (a
collection spec of a framework filtered by keywords and a toolkit taken whole) ->
``python -m analysis.update.labels sheets`` -> the sheets filled (agreeing, disagreeing, excluded
by all, excluded by some) -> ``python -m analysis.update.labels merge`` -> the adjudication list
decided -> ``merge --decisions`` -> ``dvc repro table1 compare`` on the batch (the two
stages read here, and the stages before them): Table I with a computed false-positive
column, and the What changed stage showing the new data.
(The website's false-positive cells: tests/unit/report/test_preview.py; the whole pipeline
on a new dump: test_dumps.py.)"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pandas as pd
import pytest

from analysis.core.paths import DumpLayout, Paths, SheetPaths
from tests.support.dumps import KEYWORDS, write_study_files
from tests.support.gharchive import OTHERS, event, opened_issues, write_events
from tests.support.sheets import fill
from tests.support.workspace import copy_run, dvc, pipeline_env, set_params

pytestmark = pytest.mark.slow

# (number, created, title, body): 'llm'/'llama' make a candidate, the rest are not
PYTORCH = [(1, "2025-02-01T08:00:00Z", "LLM training hangs", ""),
           (2, "2025-03-01T08:00:00Z", "conv2d is slow", "nothing related"),
           (3, "2025-06-01T08:00:00Z", "llama checkpoint fails", "OOM"),
           (4, "2026-01-05T08:00:00Z", "Docs", "the llm page has a typo"),
           (5, "2026-02-05T08:00:00Z", "=HYPERLINK(1) llama", "user llama-bot commented"),
           (6, "2026-03-05T08:00:00Z", "LLM op request", "please add flash attention")]
SGLANG = [(101, "2026-01-01T00:00:00Z", "llama 3 serving crash", ""),
          (102, "2026-02-01T00:00:00Z", "LLM router idea", ""),
          (103, "2026-03-01T00:00:00Z", "README", "mentions llm once"),
          (104, "2026-03-02T00:00:00Z", "How to run llama on two GPUs?", ""),
          (105, "2026-03-03T00:00:00Z", "Support LLM quantization", "")]
# every type of issue among the labelled ones (the agreement stage's kappa per type)
BOTH = {"https://github.com/sgl-project/sglang/issues/104": ("A.1", ""),
        "https://github.com/sgl-project/sglang/issues/105": ("B.4", "")}
# the collection spec: a framework filtered by its keyword list, a toolkit taken whole
SPEC = """projects:
  pytorch: {name: PyTorch, kind: framework, order: 1, platform: github,
            repository: pytorch/pytorch, filter: pytorch}
  sglang: {name: SGLang, kind: toolkit, order: 2, platform: github,
           repository: sgl-project/sglang, filter: none}
"""


def run(work, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", *args], cwd=work, env=pipeline_env(work),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


def archive(folder) -> None:
    """Two hourly files: the issues opened in both repositories, with what a selection
    skips: a pull request and an issue closed in pytorch, an issue elsewhere."""
    rng = random.Random(7)
    noise = [event(rng, 1, "PullRequestEvent", "pytorch/pytorch", "2025-04-01T00:00:00Z"),
             event(rng, 2, "IssuesEvent", OTHERS[0], "2025-04-01T00:00:00Z"),
             event(rng, 3, "PushEvent", "pytorch/pytorch", "2025-04-01T00:00:00Z")]
    closed = opened_issues("pytorch/pytorch", [(7, "2025-04-01T00:00:00Z", "llm", "")])[0]
    closed["payload"]["action"] = "closed"
    write_events(folder / "2026-03-05-8.json.gz",
                 [*opened_issues("pytorch/pytorch", PYTORCH), *noise, closed])
    write_events(folder / "2026-03-05-9.json.gz", opened_issues("sgl-project/sglang", SGLANG))


def test_gh_archive_to_table1_with_computed_false_positives(small_run, tmp_path):
    work = copy_run(small_run.project, tmp_path / "project")
    keywords = tmp_path / "filter_keywords"
    keywords.write_text(KEYWORDS, encoding="utf-8")
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    archive(tmp_path / "gharchive")
    sel = tmp_path / "selection"
    run(work, "analysis.update.select", str(tmp_path / "gharchive"), "--projects", str(spec),
        "--keywords", str(keywords), "--out", str(sel), "--known", "none")
    candidates = pd.read_csv(sel / "selection" / "candidates.csv", dtype=str,
                             keep_default_na=False)
    assert len(candidates) == 10  # pytorch 2 matches no keyword; its PR and 7 are skipped
    counts = json.loads((sel / "selection" / "selection.json").read_text())["projects"]
    assert counts["pytorch"]["candidates"] == 5 and counts["sglang"]["candidates"] == 5
    run(work, "analysis.update.labels", "sheets", str(sel / "selection" / "candidates.csv"),
        "--annotators", "3", "--out", str(sel))
    sheets = [SheetPaths(sel).sheet(k) for k in (1, 2, 3)]
    assert all(sheet.is_file() for sheet in sheets)

    p = "https://github.com/pytorch/pytorch/issues/"
    s = "https://github.com/sgl-project/sglang/issues/"
    fill(sheets[0], {f"{p}1": ("C.3", ""), f"{p}3": ("C.1", ""), f"{p}4": ("", "x"),
                     f"{p}5": ("", "x"), f"{p}6": ("B.2", ""), f"{s}101": ("A.2", ""),
                     f"{s}102": ("B.2", ""), f"{s}103": ("", "x"), **BOTH})
    fill(sheets[1], {f"{p}1": ("C.3", ""), f"{p}3": ("C.1", ""), f"{p}4": ("", "x"),
                     f"{p}5": ("", "x"), f"{p}6": ("B.1", ""), f"{s}101": ("A.2", ""),
                     f"{s}102": ("B.2", "x"), f"{s}103": ("", "x"), **BOTH},
         delimiter=";", encoding="utf-8", line_end="\n")
    fill(sheets[2], {f"{p}1": ("C.3", ""), f"{p}3": ("C.4", ""), f"{p}4": ("A.2", "x"),
                     f"{p}5": ("", "x"), f"{p}6": ("B.3", ""), f"{s}101": ("A.2", ""),
                     f"{s}102": ("B.2", ""), f"{s}103": ("", "x"), **BOTH},
         encoding="utf-16")
    dump = tmp_path / "merged"
    said = run(work, "analysis.update.labels", "merge", *map(str, sheets), "--out",
               str(dump)).stdout
    assert ("10 candidates in 2 project(s): 5 labelled (5 by a majority, 0 by decision), "
            "3 excluded (3 by all annotators, 0 by decision), 2 undecided") in said
    layout = DumpLayout(dump)
    assert layout.excluded_file("pytorch").read_text().count("\n") == 3  # header + 4, 5
    adjudication = pd.read_csv(layout.adjudication, encoding="utf-8-sig", dtype=str,
                               keep_default_na=False)
    assert dict(zip(adjudication["url"], adjudication["reason"], strict=True)) == {
        f"{p}6": "no majority (B.1: 1; B.2: 1; B.3: 1)",
        f"{s}102": "split on exclusion (1 of 3 excluded)"}
    adjudication["decision"] = adjudication["url"].map({f"{p}6": "B.2", f"{s}102": "B.2"})
    decisions = tmp_path / "decisions.csv"
    adjudication.to_csv(decisions, index=False)
    said = run(work, "analysis.update.labels", "merge", *map(str, sheets), "--out", str(dump),
               "--decisions", str(decisions), "--force").stdout
    assert "7 labelled (5 by a majority, 2 by decision)" in said and "0 undecided" in said
    write_study_files(dump)  # the release's other files, for the other stages

    set_params(work, "ingest", source=dump, manifest=None, commit=None)
    dvc(work, "repro", "table1", "compare")  # the stages (and those before them) read here
    paths = Paths(work)
    fp = pd.read_csv(paths.table1.table("false_positives.csv")).set_index("project")
    assert fp.loc["pytorch", "source"] == "computed"
    assert (fp.loc["pytorch", "excluded"], fp.loc["pytorch", "candidates"]) == (2, 5)
    assert fp.loc["pytorch", "false_positive_percent"] == pytest.approx(40.0)
    assert fp.loc["sglang", "false_positive_percent"] == pytest.approx(20.0)
    assert fp.loc["Sum", "false_positive_percent"] == pytest.approx(30.0)
    table = pd.read_csv(paths.table1.table("counts.csv")).set_index("project")
    # pytorch: 1 and 3 by a majority, 6 by decision; sglang: 102 by decision
    assert table.loc["pytorch", "Total"] == 3 and table.loc["sglang", "Total"] == 4
    claims = pd.read_csv(paths.table1.table("claims.csv")).set_index(["project", "column"])
    assert claims.loc[("pytorch", "false_positive"), "claim_id"] == "table1.pytorch.false_positive"
    rejected = pd.read_csv(paths.clean.processed_file("rejected.csv"))
    assert (rejected["reason"] == "missing_final_label").sum() == 0
    compare = json.loads(paths.compare.vars.read_text())
    assert compare["projects_text"].startswith("New projects: sglang;")
    assert "2026" in compare["years_new"]
    assert compare["issues_current"] == 7
