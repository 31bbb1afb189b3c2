"""A team labels two batches, as teams do, end to end on a real Label Studio server.

GH Archive hours hold issues opened in haste (``[Bug]: crash``) and edited in the next
hour to their full title, with long bodies and labels; one issue matches a framework's
keywords only once edited. Three named annotators label the first batch where they like
to: alice in an Excel workbook, bob in a CSV that Excel on Windows saved (Windows-1252,
semicolons, a code in lower case, a comment with a dash and accents), chen in Label
Studio, unsure of one report. The mistakes a team makes along the way are one line each:
a code that is none, a sheet of another selection, a merge that leaves chen out, select
run again over the labelled selection. The batch, the adjudication list (the unsure
report on it) and the decided batch come out right; the study gives each person a label
column of their own. A second batch, by bob and alice only, is labelled in their columns
again."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.paths import DumpLayout, SheetPaths, StudioPaths
from analysis.update.labels.__main__ import main as labels
from analysis.update.select.__main__ import main as select
from tests.e2e.test_label_studio import result
from tests.support.dumps import Project, write_dump
from tests.support.gharchive import edited_issue, opened_issues, write_events
from tests.support.sheets import blank_sheets, fill, fill_workbook, issues_of, read_rows
from tests.support.studio import call, running, sign_up

pytestmark = pytest.mark.slow

SPEC = """projects:
  pytorch: {name: PyTorch, kind: framework, order: 1, platform: github,
            repository: pytorch/pytorch, filter: pytorch}
  vllm: {name: vLLM, kind: toolkit, order: 6, platform: github,
         repository: vllm-project/vllm, filter: none}
"""
KEYWORDS = "pytorch_keywords = ['llm', 'llama']\n"
V = "https://github.com/vllm-project/vllm/issues/"
P = "https://github.com/pytorch/pytorch/issues/"
LONG = "### Your current environment\n" + "torch==2.9.0\n" * 600 + "the end"
FULL_TITLE = "[Bug]: crash when loading a Llama checkpoint with tensor parallel"
# each annotator's answer (alice, bob, chen): a code, excluded or unsure
ANSWERS = {f"{V}11": ("C.1", "C.1", "C.1"), f"{V}12": ("A.2", "A.2", "unsure"),
           f"{V}13": ("B.2", "B.3", "B.2"), f"{V}14": ("excluded",) * 3,
           f"{P}31": ("C.4", "c.4", "C.6")}
SECOND = {f"{V}21": ("C.2", "C.2"), f"{V}22": ("B.1", "A.3")}  # bob, alice


def hours(folder: Path) -> None:
    """The first batch's two hours: issues opened, then edited (titles, bodies, labels)."""
    opened = opened_issues("vllm-project/vllm", [
        (11, "2026-03-01T10:00:00Z", "[Bug]: crash", "see below"),
        (12, "2026-03-01T10:05:00Z", "[Usage]: two GPUs?", "how"),
        (13, "2026-03-01T10:10:00Z", "[Feature]: fp8 kv cache", LONG),
        (14, "2026-03-01T10:15:00Z", "docs typo", "")])
    framework = opened_issues("pytorch/pytorch", [(31, "2026-03-01T10:20:00Z", "crash", "")])
    write_events(folder / "2026-03-01-10.json.gz", [*opened, *framework])
    write_events(folder / "2026-03-01-11.json.gz", [
        edited_issue(opened[0], "2026-03-01T11:02:00Z", FULL_TITLE, LONG + " (edited)",
                     ["bug"]),
        edited_issue(framework[0], "2026-03-01T11:30:00Z", "crash when compiling an LLM",
                     labels=["oncall: pt2"])])


def run(capsys, command, args: list[str]) -> tuple[int, str, str]:
    code = command([str(a) for a in args])
    said = capsys.readouterr()
    return code, said.out, said.err


def one_line(err: str, problem: str) -> None:
    """A mistake said in one line (and the count of problems when it is a merge's)."""
    lines = err.strip().splitlines()
    assert problem in lines[0] and len(lines) == (2 if lines[0].startswith("merge:") and
                                                  "warning" not in lines[0] else 1), err


def answers_of(k: int, answers: dict[str, tuple]) -> dict[str, tuple[str, str]]:
    """Annotator k's answers as a sheet's (label, excluded) cells."""
    return {url: ("", "x") if a[k] == "excluded" else (a[k], "")
            for url, a in answers.items()}


def test_a_team_labels_two_batches(tmp_path, capsys):
    spec, keywords = tmp_path / "projects.yaml", tmp_path / "filter_keywords"
    spec.write_text(SPEC, encoding="utf-8")
    keywords.write_text(KEYWORDS, encoding="utf-8")
    release = tmp_path / "release"
    write_dump(release, [Project("pytorch", {2024: 2}, repo="pytorch/pytorch"),
                         Project("vllm", {2024: 2}, repo="vllm-project/vllm")])
    hours(tmp_path / "gh")
    update = tmp_path / "update"
    common = ["--projects", spec, "--keywords", keywords]
    code, out, err = run(capsys, select, [tmp_path / "gh", "--out", update, "--known",
                                          release, *common])
    assert code == 0, err
    candidates = pd.read_csv(update / "selection/candidates.csv", dtype=str,
                             keep_default_na=False).set_index("url")
    assert sorted(candidates.index) == sorted(ANSWERS)
    crash = candidates.loc[f"{V}11"]
    assert (crash["title"], crash["labels"]) == (FULL_TITLE, "bug")
    assert crash["body"].endswith(f"[cut at 4,000 characters of {len(LONG) + 9:,}: the "
                                  "whole issue is at its URL]")
    assert candidates.loc[f"{P}31", "keywords_title"] == "llm"  # matched once edited

    # sheets: alice's workbook and bob's (and chen's) CSV, side by side
    for team, fmt in (("alice", "xlsx"), ("bob,chen", "csv")):
        code, _, err = run(capsys, labels, ["sheets", update / "selection/candidates.csv",
                                            "--annotators", team, "--format", fmt, "--out",
                                            update, "--details", release])
        assert code == 0, err
    paths = SheetPaths(update)
    alice, bob = paths.sheet("alice", "xlsx"), paths.sheet("bob")
    workbook_titles = {r[1]: r[3] for r in read_rows(alice)[1:]}
    assert workbook_titles[f"{V}11"] == FULL_TITLE
    fill_workbook(alice, {**answers_of(0, ANSWERS), f"{V}13": ("C.13", "")})  # a typo
    fill(bob, answers_of(1, ANSWERS), delimiter=";", encoding="cp1252",
         cells={f"{V}13": {"comment": "café – naïve"}})

    # chen, in Label Studio
    with running(tmp_path) as server:
        chen = sign_up(server, "chen@lab.org", "chen-passphrase-2026")
        code, out, err = run(capsys, labels, [
            "studio", "create", update / "selection/candidates.csv", "--annotators",
            "chen=chen@lab.org", "--out", update, "--url", server.url, "--token",
            server.token, "--details", release])
        assert code == 0 and err == "", err
        project = json.loads(StudioPaths(update).record.read_text())["project"]
        tasks = call(server.url, chen, "GET", f"/api/tasks/?project={project}")["tasks"]
        for task in tasks:
            answer = ANSWERS[task["data"]["url"]][2]
            call(server.url, chen, "POST", f"/api/tasks/{task['id']}/annotations/",
                 {"result": result(answer, "", ""), "lead_time": 30})
        code, out, err = run(capsys, labels, ["studio", "export", "--out", update,
                                              "--url", server.url, "--token", server.token])
        assert code == 0, err
    export = StudioPaths(update).export

    # the mistakes, one line each
    batch = tmp_path / "batch"
    code, _, err = run(capsys, labels, ["merge", alice, bob, export, "--out", batch])
    assert code == 1
    one_line(err, f"{alice}, row ")
    assert "'C.13' is not a theme code" in err
    fill_workbook(alice, {f"{V}13": ("B.2", "")})
    _, others = issues_of("pytorch/pytorch", 33, 2026)
    stranger = blank_sheets(tmp_path / "elsewhere", others, ["dan"])[0]
    fill(stranger, {u: ("C.1", "") for u in others["url"]})
    code, _, err = run(capsys, labels, ["merge", alice, bob, stranger, "--out", batch])
    assert code == 1
    one_line(err, f"{stranger}, column 'selection': a sheet of another selection")
    code, out, err = run(capsys, labels, ["merge", alice, bob, "--out", tmp_path / "partial"])
    assert code == 0
    one_line(err, "merge: warning: the sheet of chen")
    assert "the batch has 2 annotator(s), not 3" in err
    code, _, err = run(capsys, select, [tmp_path / "gh", "--out", update, "--known", release,
                                        "--force", *common])
    assert code == 1
    one_line(err, "which the sheets (or the Label Studio project) beside it were made from")

    # the batch: alice, bob and chen in Label1..3; chen's unsure on the list
    code, out, err = run(capsys, labels, ["merge", alice, bob, export, "--out", batch])
    assert code == 0 and err == "", err
    assert "merge: 3 annotators (alice, bob, chen)" in out
    assert (f"merge: {bob.name}: 1 label(s) written in lower case, read as the code: line "
            in out) and "('c.4' as C.4)" in out
    assert f"merge: {bob.name}: read as windows-1252" in out
    layout = DumpLayout(batch)
    listed = read_rows(layout.adjudication)
    assert {r[0]: r[-2] for r in listed[1:]} == {f"{V}12": "unsure (1 of 3)"}
    comments = read_rows(layout.labels / "comments.csv")
    assert [f"{V}13", "2", "comment", "café – naïve"] in [r[1:] for r in comments[1:]]
    decisions = tmp_path / "decisions.csv"
    listed[1][-1] = "A.2"
    with decisions.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerows(listed)
    code, out, err = run(capsys, labels, ["merge", alice, bob, export, "--out", batch,
                                          "--decisions", decisions, "--force"])
    assert code == 0 and "0 undecided" in out, err
    rows = {r[0]: r[1:] for r in read_rows(layout.label_file("vllm"))[1:]}
    assert rows == {f"{V}11": ["C.1", "C.1", "C.1", "C.1"],
                    f"{V}12": ["A.2", "A.2", "", "A.2"],
                    f"{V}13": ["B.2", "B.3", "B.2", "B.2"]}
    assert read_rows(layout.label_file("pytorch"))[1] == [f"{P}31", "C.4", "C.4", "C.6",
                                                          "C.4"]
    assert [r[0] for r in read_rows(layout.excluded_file("vllm"))[1:]] == [f"{V}14"]

    # the study: a column each; the second batch by bob and alice in theirs again
    study = tmp_path / "study"
    code, out, err = run(capsys, labels, ["extend", "--base", release, "--batch", batch,
                                          "--out", study, "--name", "2026-03",
                                          "--projects", spec])
    assert code == 0 and "annotators in Label8..Label10" in out, err
    write_events(tmp_path / "gh2" / "2026-04-02-9.json.gz", opened_issues(
        "vllm-project/vllm", [(21, "2026-04-02T09:00:00Z", "OOM", ""),
                              (22, "2026-04-02T09:10:00Z", "fp8 support", "")]))
    update2 = tmp_path / "update2"
    code, _, err = run(capsys, select, [tmp_path / "gh2", "--out", update2, "--known", study,
                                        *common])
    assert code == 0, err
    code, _, err = run(capsys, labels, ["sheets", update2 / "selection/candidates.csv",
                                        "--annotators", "bob,alice", "--out", update2,
                                        "--details", "none"])
    assert code == 0, err
    second = [SheetPaths(update2).sheet(name) for name in ("bob", "alice")]
    for k, path in enumerate(second):
        fill(path, answers_of(k, SECOND))
    code, out, err = run(capsys, labels, ["merge", *second, "--out", tmp_path / "batch2"])
    assert code == 0 and "1 undecided" in out, err
    listed = read_rows(DumpLayout(tmp_path / "batch2").adjudication)
    listed[1][-1] = "B.1"
    with decisions.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerows(listed)
    code, _, err = run(capsys, labels, ["merge", *second, "--out", tmp_path / "batch2",
                                        "--decisions", decisions, "--force"])
    assert code == 0, err
    code, out, err = run(capsys, labels, ["extend", "--base", study, "--batch",
                                          tmp_path / "batch2", "--out", tmp_path / "study2",
                                          "--name", "2026-04", "--projects", spec])
    assert code == 0 and "annotators in Label9, Label8" in out, err
    header, *body = read_rows(DumpLayout(tmp_path / "study2").label_file("vllm"))
    assert header == ["Issue_URL", *[f"Label{n}" for n in range(1, 11)], "Final_Label",
                      "Batch"]
    by_url = {r[0]: dict(zip(header, r, strict=True)) for r in body}
    assert [by_url[f"{V}21"][c] for c in ("Label8", "Label9", "Label10", "Batch")] == [
        "C.2", "C.2", "", "2026-04"]
    assert [by_url[f"{V}22"][c] for c in ("Label8", "Label9", "Final_Label")] == [
        "A.3", "B.1", "B.1"]
    record = json.loads((tmp_path / "study2/labels/batches.json").read_text())
    assert record["annotators"] == {"alice": "Label8", "bob": "Label9", "chen": "Label10"}
    assert [b["annotator_names"] for b in record["batches"][1:]] == [
        ["alice", "bob", "chen"], ["bob", "alice"]]
