"""Label Studio as the annotators' tool, against a real server (tests/support/studio.py:
the pinned Label Studio in its own environment, installed when missing, started on
127.0.0.1 with a SQLite database): the reference page's commands, as it shows them, make
the project of a selection and merge its export (docs/update-loop.md, "Label Studio");
three people annotate through the API with their own tokens (two signed up with the
invitation link, one given an account by ``studio create``), one skips a task before
answering it, one is unsure; the batch is byte for byte the one the same answers in CSV
sheets give (but ``labels/sources.json``, which names the files read), and so is the
batch merged again with the adjudicators' decisions. The tutorial's commands
(docs/update-tutorial.md, step 3) make a second project for the same people, found by
their e-mail this time: the same answers there give the same batch again."""

from __future__ import annotations

import csv
import json
import stat
import time
import urllib.request
from pathlib import Path

import pytest

from analysis.core.paths import DumpLayout, SheetPaths, StudioPaths
from analysis.update.labels import studio
from analysis.update.labels.__main__ import main as labels
from tests.e2e.test_update_loop import archive
from tests.support.exports import result
from tests.support.sheets import fill, read_rows
from tests.support.studio import call, running, sign_up, token_of
from tests.unit.test_doc_commands import BASE, make_project, run_block

pytestmark = pytest.mark.slow

TEAM = ("alice", "bob", "chen")
V = "https://github.com/vllm-project/vllm/issues/"
D = "https://github.com/deepspeedai/DeepSpeed/issues/"
P = "https://github.com/pytorch/pytorch/issues/"
# url -> each annotator's (answer, confidence, comment, minutes): a code, excluded, unsure
ANSWERS = {
    f"{V}1": [("C.3", "high", "", 1), ("C.3", "medium", "", 2), ("C.3", "", "", 0.5)],
    f"{V}2": [("B.2", "", "", 1), ("B.2", "low", "", 1), ("B.4", "", "", 3)],
    f"{V}3": [("A.1", "", "", 2), ("A.2", "", "", 2), ("A.3", "", "", 2)],
    f"{V}4": [("excluded", "", "", 1), ("C.1", "", "", 1), ("C.1", "", "", 1)],
    f"{V}5": [("excluded", "high", "", 1), ("excluded", "", "", 1), ("excluded", "", "", 1)],
    f"{D}2": [("C.5", "", "", 1), ("C.5", "", "OOM – naïve retry, « réessai »", 1),
              ("unsure", "low", "C.5 or C.2?", 4)],
    f"{P}3": [("A.4", "", "", 1), ("A.4", "", "", 1), ("A.4", "", "", 1)],
}
DECIDED = {f"{V}3": "A.2", f"{V}4": "excluded", f"{D}2": "C.5"}


def annotate(server, project: int, tokens: dict[str, str]) -> None:
    """Every annotator answers every task with their own token; bob skips one task
    first (a cancelled annotation), then answers it."""
    found = call(server.url, tokens["alice"], "GET",
                 f"/api/tasks/?project={project}&page_size=1000")
    tasks = {t["data"]["url"]: t["id"] for t in found["tasks"]}
    assert sorted(tasks) == sorted(ANSWERS)
    skipped = f"{V}2"
    call(server.url, tokens["bob"], "POST", f"/api/tasks/{tasks[skipped]}/annotations/",
         {"result": [], "was_cancelled": True, "lead_time": 4.0})
    for url, answers in ANSWERS.items():
        for name, (answer, confidence, comment, minutes) in zip(TEAM, answers, strict=True):
            call(server.url, tokens[name], "POST", f"/api/tasks/{tasks[url]}/annotations/",
                 {"result": result(answer, confidence, comment), "lead_time": minutes * 60})


def fill_sheets(project: Path) -> list[Path]:
    """The same answers, in CSV sheets."""
    paths = [SheetPaths(project / RECORDS).sheet(name) for name in TEAM]
    for k, path in enumerate(paths):
        marks, cells = {}, {}
        for url, answers in ANSWERS.items():
            answer, confidence, comment, minutes = answers[k]
            marks[url] = ("", "x") if answer == "excluded" else (answer, "")
            cells[url] = {"confidence": confidence, "comment": comment,
                          "minutes": f"{minutes:g}"}
        fill(path, marks, cells=cells)
    return paths


RECORDS = "labels/2026-01"  # the batch's folder, where the pages' commands write


def merge_export(project: Path, out: str) -> None:
    """The batch's export merged by hand, as the pipeline's merge of the batch does."""
    assert labels(["merge", str(StudioPaths(project / RECORDS).export), "--out",
                   str(project / out)]) == 0


def batch_files(folder: Path) -> dict[str, bytes]:
    """A batch's files but the record of the files read (sources.json)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "sources.json"}


def decide(listed: Path, out: Path) -> Path:
    rows = read_rows(listed)
    for row in rows[1:]:
        row[-1] = DECIDED[row[0]]
    with out.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle, lineterminator="\r\n").writerows(rows)
    return out


def private_and_quiet(server) -> None:
    """The server's data are its owner's only, its export snapshots too, and its pages
    load nothing from Sentry."""
    data = server.data
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "label_studio.sqlite3").stat().st_mode) == 0o600
    snapshots = [p for p in (data / "media" / "export").rglob("*") if p.is_file()]
    assert snapshots and {stat.S_IMODE(p.stat().st_mode) for p in snapshots} == {0o600}
    with urllib.request.urlopen(server.url + "/user/login/", timeout=60) as response:
        page = response.read().decode("utf-8")
    assert "sentry-cdn" not in page and "ingest.sentry.io" not in page


def data_manager_lists_issues_not_html(server, project: int) -> None:
    """The project's data manager opens on the view studio create made: each task by its
    title, link, project and date; the issue's HTML (raw text there), its Markdown, the
    team and the selection hidden, by the keys the server's own columns have."""
    (view,) = call(server.url, server.token, "GET", f"/api/dm/views/?project={project}")
    assert view["data"]["title"] == "Issues"
    hidden = view["data"]["hiddenColumns"]
    for mode in ("explore", "labeling"):
        assert {"tasks:data.issue_html", "tasks:data.body", "tasks:data.annotators",
                "tasks:data.selection"} <= set(hidden[mode])
        assert "tasks:data.title" not in hidden[mode]
    assert not {"tasks:data.url", "tasks:data.project", "tasks:data.created_at",
                "tasks:id"} & set(hidden["explore"])
    columns = call(server.url, server.token, "GET", f"/api/dm/columns/?project={project}")
    keys = {studio.column_key(c) for c in columns["columns"]}
    assert set(hidden["explore"]) | set(hidden["labeling"]) <= keys


def test_a_label_studio_project_gives_the_batch_the_sheets_give(tmp_path, monkeypatch,
                                                                capsys):
    project = make_project(tmp_path / "project", BASE)
    archive(project / "gharchive")
    run_block("update-loop/select-gharchive", project)
    began = time.monotonic()
    with running(tmp_path) as server:
        monkeypatch.setenv("LABEL_STUDIO_URL", server.url)
        monkeypatch.setenv("LABEL_STUDIO_API_KEY", server.token)
        tokens = {name: sign_up(server, f"{name}@localhost", f"{name}-passphrase-2026")
                  for name in ("alice", "bob")}  # chen has no account yet
        said = run_block("update-loop/studio-create", project)
        assert "3 annotators (alice, bob, chen)" in said
        assert "chen: account chen@localhost made without a password" in said
        assert "alice: account" not in said
        record = json.loads(StudioPaths(project / RECORDS).record.read_text())
        assert [u["created"] for u in record["annotators"]] == [False, False, True]
        settings = call(server.url, server.token, "GET", f"/api/projects/{record['project']}")
        assert (settings["maximum_annotations"], settings["overlap_cohort_percentage"],
                settings["sampling"]) == (3, 100, "Uniform sampling")
        assert '<Choice value="unsure" alias="unsure"' in settings["label_config"]
        assert 'choice="single-radio"' in settings["label_config"]  # radio buttons
        assert settings["title"] == "Batch 2026-01 (7 candidates)"
        data_manager_lists_issues_not_html(server, record["project"])
        tokens["chen"] = token_of(server, "chen@localhost")
        annotate(server, record["project"], tokens)
        said = run_block("update-loop/studio-export", project)
        capsys.readouterr()
        private_and_quiet(server)
        merge_export(project, "batch")
        said += capsys.readouterr().out
        tutorial = make_project(tmp_path / "tutorial", BASE)
        archive(tutorial / "gharchive")
        run_block("update-loop/select-gharchive", tutorial)
        again = run_block("update-tutorial/studio-create", tutorial)
        assert "made without a password" not in again  # the three are users now
        annotate(server, json.loads(StudioPaths(tutorial / RECORDS).record.read_text())[
            "project"], tokens)
        run_block("update-tutorial/studio-export", tutorial)
        merge_export(tutorial, "batch")
        timings = server.timings
    assert "1 skipped (counted, not labels)" in said
    assert "merge: export.json: 1 skipped (cancelled) annotation(s) counted, not taken as " \
           "labels: bob 1" in said
    assert "3 annotators (alice, bob, chen)" in said and "3 undecided" in said
    export = json.loads(StudioPaths(project / RECORDS).export.read_text())
    assert all(isinstance(a["completed_by"], dict) for t in export for a in t["annotations"])

    # the same answers in sheets: the same batch, byte for byte
    run_block("update-loop/sheets", project)
    sheets = fill_sheets(project)
    assert labels(["merge", *map(str, sheets), "--out", str(project / "from-sheets")]) == 0
    studio_batch = batch_files(project / "batch")
    assert studio_batch == batch_files(project / "from-sheets")
    assert studio_batch == batch_files(tutorial / "batch")  # another project, the same
    layout = DumpLayout(project / "batch")
    adjudication = read_rows(layout.adjudication)
    assert {r[0]: r[-2] for r in adjudication[1:]} == {
        f"{V}3": "no majority (A.1: 1; A.2: 1; A.3: 1)",
        f"{V}4": "split on exclusion (1 of 3 excluded)",
        f"{D}2": "unsure (1 of 3)"}
    annotations = read_rows(layout.labels / "annotations.csv")
    chen = [r for r in annotations[1:] if r[0] == "DeepSpeed" and r[3] == "chen"]
    assert chen == [["DeepSpeed", f"{D}2", "3", "chen", "", "", "x", "low", "240"]]
    sources = json.loads((layout.labels / "sources.json").read_text())["sources"]
    assert sources[0]["kind"] == "label-studio" and sources[0]["cancelled"] == {
        "alice": 0, "bob": 1, "chen": 0}

    # the adjudicators decide once; both routes give the same decided batch
    decisions = decide(layout.adjudication, project / "decisions.csv")
    export_path = StudioPaths(project / RECORDS).export
    for inputs, out in (([export_path], "decided-studio"), (sheets, "decided-sheets")):
        assert labels(["merge", *map(str, inputs), "--out", str(project / out),
                       "--decisions", str(decisions)]) == 0
    capsys.readouterr()
    decided = batch_files(project / "decided-studio")
    assert decided == batch_files(project / "decided-sheets")
    rows = {r[0]: r[1:] for r in read_rows(
        DumpLayout(project / "decided-studio").label_file("DeepSpeed"))[1:]}
    assert rows[f"{D}2"] == ["C.5", "C.5", "", "C.5"]  # chen's unsure: no rating
    print(f"Label Studio: install {timings['install']} s, template database "
          f"{timings['template']} s, server start {timings['start']} s; the test's server "
          f"time {time.monotonic() - began:.0f} s")
