"""The engine: every record counted once (an input holding one of each fate, each count
checked), known issues left out, the inputs summarised, --workers auto, an unreachable
scheduler and the --out rules."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.core.projects import Projects
from analysis.keywords.compute import read_keyword_file
from analysis.update.select import engine, outputs
from analysis.update.select.formats import Tally
from analysis.update.select.known import dump_issues
from analysis.update.select.spec import build_spec
from tests.support.dumps import Project, write_dump
from tests.support.gharchive import OTHERS, edited_issue, event, opened_issues, write_events

SPEC = """projects:
  pytorch: {name: PyTorch, order: 1, platform: github, repository: pytorch/pytorch,
            filter: pytorch}
  DeepSpeed: {name: DeepSpeed, order: 2, platform: github, repository: deepspeedai/DeepSpeed,
              former_names: [microsoft/DeepSpeed], filter: none}
"""
P = "pytorch/pytorch"


def spec_of(tmp_path: Path):
    path = tmp_path / "projects.yaml"
    path.write_text(SPEC, encoding="utf-8")
    keywords = tmp_path / "filter_keywords"
    keywords.write_text("pytorch_keywords = ['llm', 'llama']\n", encoding="utf-8")
    return build_spec(Projects.load(path), read_keyword_file(keywords), since="2025-01-01")


def one_of_each(folder: Path) -> list[Path]:
    """Two hours holding one record of each fate (and one duplicate across them)."""
    rng = random.Random(3)
    issues = opened_issues(P, [(1, "2025-02-01T00:00:00Z", "LLM hangs", ""),     # candidate
                               (2, "2025-02-02T00:00:00Z", "conv is slow", ""),  # not matched
                               (3, "2024-06-01T00:00:00Z", "llama", ""),         # out of window
                               (4, "2025-02-03T00:00:00Z", "llama known", "")])  # known
    ds = opened_issues("microsoft/DeepSpeed", [(9, "2025-03-01T00:00:00Z", "x", "")])
    pull = event(rng, 1, "PullRequestEvent", P, "2025-02-01T00:00:00Z")
    pull["payload"]["action"] = "opened"
    trimmed = copy.deepcopy(pull)  # the Events API's trimmed payload: no html_url, no title
    trimmed["payload"]["pull_request"] = {"number": 77, "id": 5}
    closed = copy.deepcopy(issues[1])
    closed["payload"]["action"] = "closed"
    no_date = copy.deepcopy(issues[0])
    del no_date["payload"]["issue"]["created_at"], no_date["created_at"]
    no_url = copy.deepcopy(issues[0])
    del no_url["payload"]["issue"]["html_url"], no_url["payload"]["issue"]["number"]
    push = event(rng, 2, "PushEvent", P, "2025-02-01T00:00:00Z")
    other = event(rng, 3, "IssuesEvent", OTHERS[1], "2025-02-01T00:00:00Z")
    return [write_events(folder / "2025-03-01-9.json.gz",
                         [*issues, *ds, pull, trimmed, closed, no_date, no_url, push, other]),
            write_events(folder / "2025-03-01-10.json.gz", [issues[0]])]  # a duplicate


@pytest.mark.parametrize("known_url", [
    "https://github.com/pytorch/pytorch/pull/4",
    "https://github.com.:443/pytorch//pytorch/issues/004"])  # the same report (issue_key)
def test_every_record_is_counted_once_in_exactly_one_place(tmp_path, known_url):
    spec = spec_of(tmp_path)
    files = one_of_each(tmp_path / "gh")
    base = tmp_path / "base"
    write_dump(base, [Project("pytorch", {2024: 1}, repo=P)], study_files=False)
    (base / "Issue Report/pytorch/pytorch.csv").write_text(
        f"Issue_URL,Label1,Final_Label\n{known_url},C.1,C.1\n", encoding="utf-8")
    parts = [engine.scan_input(str(f), spec) for f in files]
    known = dump_issues(base, engine.renames_of(spec))
    record = engine.summary(engine.merge(spec, parts, known))
    assert engine.accounting_problems(record) == []
    assert record["records"] == 13
    # the closed issue is a later sighting of issue 2 (an update), no longer another event
    assert record["skipped"] == {"missing_created_at": 1, "missing_url": 1, "other_events": 2}
    assert {k: v for k, v in record["projects"]["pytorch"].items()
            if k in engine.PROJECT_COUNTS} == {
        "records": 8, "pull_requests": 2, "updates": 1, "out_of_window": 1,
        "not_matched": 1, "duplicates": 1, "known": 1, "candidates": 1}
    deepspeed = record["projects"]["DeepSpeed"]
    assert (deepspeed["records"], deepspeed["candidates"]) == (1, 1)
    assert record["known"]["left_out"] == 1 and record["known"]["dump"] == base.name
    assert record["skipped_examples"]["missing_url"] == ["2025-03-01-9.json.gz:10"]


def test_the_accounting_check_names_what_does_not_add_up():
    record = {"records": 5, "skipped": {"other_events": 1},
              "projects": {"p": dict.fromkeys(engine.PROJECT_COUNTS, 1)}}
    record["projects"]["p"]["records"] = 3
    assert engine.accounting_problems(record) == [
        "records 5 != skipped 1 + projects' records 3",
        "p: records 3 != the sum of its counts 7"]


def test_a_partition_is_a_tally_with_its_file_size_and_digest(tmp_path):
    spec = spec_of(tmp_path)
    path = write_events(tmp_path / "2025-01-01-0.json.gz",
                        opened_issues(P, [(1, "2025-02-01T00:00:00Z", "llm", "")]))
    part = engine.scan_input(str(path), spec)
    assert isinstance(part, Tally) and part.fmt == "gharchive" and part.records == 1
    assert part.size == path.stat().st_size and len(part.sha256) == 64


def test_the_inputs_are_summarised_whatever_their_number(tmp_path):
    parts = [engine.PartResult(input=f"/x/2025-01-01-{h}.json.gz", size=10 + h,
                               sha256=f"{h:064d}", container="gzip JSON lines")
             for h in (10, 9, 2)]
    summary = engine.inputs_summary(parts)
    assert (summary["files"], summary["first"], summary["last"], summary["bytes"]) == (
        3, "2025-01-01-2.json.gz", "2025-01-01-10.json.gz", 51)
    assert summary["containers"] == {"gzip JSON lines": 3}
    parts[0].sha256 = "f" * 64
    assert engine.inputs_summary(parts)["sha256"] != summary["sha256"]


@pytest.mark.parametrize("size, cores, workers, said", [
    (10_000_000, 2, None, "streaming (10.0 MB of input, below the crossover"),
    (engine.CROSSOVER_BYTES, 2, 2, "a local Dask cluster of 2 workers"),
    (10 ** 12, 1, None, "streaming (1 core here"),
    (10 ** 12, 8, 8, "a local Dask cluster of 8 workers")])
def test_workers_auto_streams_below_the_crossover(size, cores, workers, said):
    chosen, note = engine.auto_workers(size, cores)
    assert chosen == workers and note.startswith("--workers auto: ") and said in note


def test_an_unreachable_scheduler_is_one_line_naming_its_address():
    with pytest.raises(InputError) as err:
        engine.dask_client(scheduler="tcp://127.0.0.1:9", timeout="1s")
    text = str(err.value)
    assert text.startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:9 (")
    assert "column" not in text and "\n" not in text and " -> start it" in text


def test_out_may_hold_sheets_and_an_earlier_selection_only_with_force(tmp_path):
    out = tmp_path / "out"
    outputs.check_out(out, False)  # new
    (out / "sheets").mkdir(parents=True)
    outputs.check_out(out, False)  # sheets alone: labels sheets wrote them first
    (out / "selection").mkdir()
    with pytest.raises(InputError, match="already holds a selection"):
        outputs.check_out(out, False)
    outputs.check_out(out, True)
    (out / "notes.txt").write_text("x")
    with pytest.raises(InputError, match=r"holds other files \(notes.txt\)"):
        outputs.check_out(out, True)
    with pytest.raises(InputError, match="is a file"):
        outputs.check_out(out / "notes.txt", True)


def test_publish_replaces_the_selection_only_when_it_is_complete(tmp_path):
    out = tmp_path / "out"
    (out / "sheets").mkdir(parents=True)
    (out / "sheets" / "annotator_1.csv").write_text("sheet\n")
    (out / engine.SELECTION_DIR).mkdir()
    (out / engine.SELECTION_DIR / "candidates.csv").write_text("earlier\n")

    def failing(folder: Path) -> dict:
        (folder / "candidates.csv").write_text("half\n")
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        outputs.publish(out, failing)
    assert (out / engine.SELECTION_DIR / "candidates.csv").read_text() == "earlier\n"
    assert sorted(p.name for p in out.iterdir()) == [engine.SELECTION_DIR, "sheets"]

    def complete(folder: Path) -> dict:
        (folder / "candidates.csv").write_text("new\n")
        return {"records": 1}

    assert outputs.publish(out, complete) == {"records": 1}
    assert [p.name for p in (out / engine.SELECTION_DIR).iterdir()] == ["candidates.csv"]
    assert (out / engine.SELECTION_DIR / "candidates.csv").read_text() == "new\n"
    assert (out / "sheets" / "annotator_1.csv").read_text() == "sheet\n"


def test_an_issue_has_the_title_body_and_labels_of_its_latest_event(tmp_path):
    """GH Archive: an issue opened in haste ("[Bug]: crash") and edited in the next hour
    gets the edited title, body (cut, the keyword beyond the cut still matched) and
    labels; one whose edit removed its keyword matches no more; a sighting of an issue no
    hour opened is no issue; the order of the hours does not matter."""
    spec = spec_of(tmp_path)
    opened = opened_issues(P, [(5, "2025-02-01T10:00:00Z", "[Bug]: crash", "short"),
                               (6, "2025-02-01T10:05:00Z", "LLM is slow", "")])
    long_body = "x " * 3_000 + "it loads a llama checkpoint"
    later = [edited_issue(opened[0], "2025-02-01T10:30:00Z",
                          "[Bug]: crash when loading a checkpoint", long_body,
                          ["bug", "module: checkpoint"]),
             edited_issue(opened[1], "2025-02-01T11:00:00Z", "conv is slow"),
             edited_issue(opened_issues(P, [(7, "2025-02-01T09:00:00Z", "llm", "")])[0],
                          "2025-02-01T11:00:00Z", "llm again")]
    files = [write_events(tmp_path / "2025-02-01-10.json.gz", opened),
             write_events(tmp_path / "2025-02-01-11.json.gz", later)]
    for order in (files, files[::-1]):
        selection = engine.merge(spec, [engine.scan_input(str(f), spec) for f in order])
        record = engine.summary(selection)
        assert engine.accounting_problems(record) == []
        counts = record["projects"]["pytorch"]
        assert (counts["records"], counts["updates"], counts["not_matched"],
                counts["candidates"]) == (5, 3, 1, 1)
        row = selection.candidates.iloc[0].to_dict()
        assert row["title"] == "[Bug]: crash when loading a checkpoint"
        assert row["created_at"] == "2025-02-01T10:00:00Z"  # the opening's
        assert row["updated_at"] == "2025-02-01T10:30:00Z"
        assert row["labels"] == "bug;module: checkpoint"
        assert row["keywords_body"] == "llama" and row["keywords_title"] == ""
        assert row["body"] == engine.cut_body(long_body)
        assert len(row["body"]) < len(long_body) and row["body"].startswith("x x")
        assert row["body"].endswith(f"[cut at 4,000 characters of {len(long_body):,}: "
                                    "the whole issue is at its URL]")
        assert row["source"] == "2025-02-01-10.json.gz:1"


def test_exports_give_labels_and_the_time_of_their_state(tmp_path):
    """A REST API page's labels and updated_at; of two records of one issue, the later
    one's text (a CSV with labels and updated_at columns)."""
    spec = spec_of(tmp_path)
    rest = tmp_path / "issues.json"
    rest.write_text(json.dumps([{
        "html_url": f"https://github.com/{P}/issues/8", "title": "old llm title", "body": "",
        "created_at": "2025-03-01T00:00:00Z", "updated_at": "2025-03-01T00:00:00Z",
        "labels": [{"name": "triaged"}]}]), encoding="utf-8")
    table = tmp_path / "issues.csv"
    table.write_text("url,title,body,created_at,labels,updated_at\n"
                     f"https://github.com/{P}/issues/8,new llm title,b,2025-03-01T00:00:00Z,"
                     "triaged;oncall: llm,2025-03-04T00:00:00Z\n", encoding="utf-8")
    selection = engine.merge(spec, [engine.scan_input(str(f), spec) for f in (rest, table)])
    row = selection.candidates.iloc[0]
    assert (row["title"], row["labels"], row["updated_at"]) == (
        "new llm title", "triaged;oncall: llm", "2025-03-04T00:00:00Z")
    assert engine.summary(selection)["projects"]["pytorch"]["duplicates"] == 1
