"""select's command line: which study dump's issues it leaves out (said in one line), the
summary that adds up, what --workers auto chose, no candidates (status 3), an unreachable
scheduler in one line naming its address, and the next command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.update.select import __main__ as cli
from analysis.update.select import engine, outputs
from tests.support.dumps import Project, write_dump
from tests.support.gharchive import opened_issues, write_events

SPEC = """projects:
  vllm: {name: vLLM, order: 1, platform: github, repository: vllm-project/vllm,
         filter: none}
"""
ISSUES = [(1001, "2025-01-01T00:00:00Z", "known", ""), (5, "2025-02-01T00:00:00Z", "new", "")]


@pytest.fixture
def inputs(tmp_path) -> list[str]:
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    hour = write_events(tmp_path / "gh" / "2025-02-01-0.json.gz",
                        opened_issues("vllm-project/vllm", ISSUES))
    write_dump(tmp_path / "dump", [Project("vllm", {2024: 1}, repo="vllm-project/vllm")],
               study_files=False)
    return [str(hour), "--projects", str(spec), "--out", str(tmp_path / "out")]


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    said = capsys.readouterr()
    return code, said.out, said.err


def test_known_issues_of_a_given_dump_are_left_out_and_counted(inputs, tmp_path, capsys):
    code, out, err = run(capsys, *inputs, "--known", str(tmp_path / "dump"))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"select: known issues: 1 in {tmp_path / 'dump'}, left out"
    assert "candidates: vllm 1 of 2 (1 already in the study left out)" in lines[1]
    assert lines[2].startswith("select: next: ") and lines[2].endswith(
        f"-m analysis.update.labels sheets {tmp_path}/out/selection/candidates.csv --annotators N "
        f"--out {tmp_path}/out")
    record = json.loads((tmp_path / "out/selection/selection.json").read_text())
    assert record["known"]["left_out"] == 1 and engine.accounting_problems(record) == []


def test_annotators_of_older_commands_name_the_sheets_to_write(inputs, tmp_path, capsys):
    code, out, _ = run(capsys, *inputs, "--known", "none", "--annotators", "5")
    assert code == 0 and out.splitlines()[-1].endswith(
        "--annotators 5 --out " + str(tmp_path / "out") + " (select writes no sheets)")
    assert not (tmp_path / "out" / "sheets").exists()


def test_the_default_is_the_current_study_dump_said_in_one_line(inputs, tmp_path, capsys,
                                                                monkeypatch):
    monkeypatch.setattr(cli, "current_dump", lambda: (tmp_path / "dump", "the dump (here)"))
    code, out, _ = run(capsys, *inputs)
    assert code == 0 and out.splitlines()[0] == (
        "select: known issues: 1 in the dump (here), left out (--known none keeps them)")
    monkeypatch.setattr(cli, "current_dump", lambda: (None, "no current study dump -> x"))
    code, out, _ = run(capsys, *inputs, "--force")
    assert code == 0 and out.splitlines()[0] == "select: known issues: no current study dump -> x"
    code, out, _ = run(capsys, *inputs, "--force", "--known", "none")
    assert out.splitlines()[0] == ("select: known issues: --known none, nothing left out as "
                                   "already labelled")
    assert "candidates: vllm 2 of 2" in out


def test_no_candidates_ends_with_status_3_and_says_so(inputs, tmp_path, capsys):
    code, _, err = run(capsys, *inputs, "--known", "none", "--since", "2026-01-01")
    assert code == cli.NO_CANDIDATES == 3
    assert err.startswith("select: no candidates: nothing to label") and err.count("\n") == 1
    assert (tmp_path / "out/selection/selection.json").is_file()


def test_workers_auto_says_which_engine_it_chose(inputs, capsys, monkeypatch):
    monkeypatch.setattr(engine, "available_cores", lambda: 2)
    code, out, _ = run(capsys, *inputs, "--known", "none", "--workers", "auto")
    assert code == 0
    assert "select: --workers auto: streaming (0.0 MB of input, below the crossover" in out
    assert "engine: streaming;" in out


def test_a_workers_value_that_is_not_one_is_an_argument_error(capsys):
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["x", "--out", "o", "--workers", "many"])
    assert "not a number of workers: 'many'" in capsys.readouterr().err


def test_an_unreachable_scheduler_is_one_line(inputs, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(engine, "SCHEDULER_TIMEOUT", "1s")
    code, _, err = run(capsys, *inputs, "--known", "none", "--scheduler",
                       "tcp://127.0.0.1:9")
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("select: cannot reach the Dask scheduler at tcp://127.0.0.1:9 (")
    assert not Path(tmp_path / "out").exists()


def test_a_selection_that_sheets_were_made_from_is_replaced_only_set_aside(inputs, tmp_path,
                                                                         capsys):
    """--force alone refuses to replace the candidates the sheets beside were made from
    (in one line, before reading anything); with --set-aside the old list is kept where
    the merge of those sheets finds it, and said so, even when the new selection is
    empty (status 3)."""
    out = tmp_path / "out"
    assert run(capsys, *inputs, "--known", "none")[0] == 0
    old = (out / "selection/candidates.csv").read_bytes()
    (out / "sheets").mkdir()
    (out / "sheets" / "annotator_1.csv").write_text("a sheet\n", encoding="utf-8")
    code, _, err = run(capsys, *inputs, "--known", "none", "--force", "--since", "2030-01-01")
    assert code == 1 and err.count("\n") == 1
    assert "which the sheets (or the Label Studio project) beside it were made from" in err
    assert err.rstrip().endswith("for their merge")
    assert (out / "selection/candidates.csv").read_bytes() == old
    code, _, err = run(capsys, *inputs, "--known", "none", "--force", "--set-aside",
                       "--since", "2030-01-01")
    assert code == 3
    old_id = engine.selection_id(pd.read_csv(io.BytesIO(old), dtype=str,
                                             keep_default_na=False))
    aside = [p for p in out.iterdir() if p.name.startswith("selection-")]
    assert aside == [outputs.set_aside_folder(out, old_id)]
    assert (aside[0] / "candidates.csv").read_bytes() == old
    assert f"is kept in {aside[0]}/" in err.splitlines()[0]
    assert err.splitlines()[1].startswith("select: no candidates")


def test_gh_archive_says_it_holds_no_gitee_projects(tmp_path, capsys):
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC + "  MindSpeed: {name: MindSpeed, order: 2, platform: gitee,\n"
                           "              repository: ascend/MindSpeed, filter: none}\n",
                    encoding="utf-8")
    hour = write_events(tmp_path / "gh" / "2025-02-01-0.json.gz",
                        opened_issues("vllm-project/vllm", ISSUES))
    code, _, err = run(capsys, str(hour), "--projects", str(spec), "--out",
                       str(tmp_path / "out"), "--known", "none")
    assert code == 0 and err.count("\n") == 1
    assert err.startswith("select: GH Archive holds GitHub's events only, so the Gitee "
                          "project(s) MindSpeed got no candidates -> export their issues "
                          "with Perceval's Gitee backend (perceval gitee OWNER REPO")
    gitee = tmp_path / "gitee.json"
    gitee.write_text(json.dumps({"backend_name": "Gitee", "category": "issue", "data": {
        "html_url": "https://gitee.com/ascend/MindSpeed/issues/I9ABCD", "title": "t",
        "body": "", "created_at": "2025-02-02T00:00:00+08:00"}}) + "\n", encoding="utf-8")
    code, out, err = run(capsys, str(hour), str(gitee), "--projects", str(spec), "--out",
                         str(tmp_path / "out2"), "--known", "none")
    assert code == 0 and err == "" and "MindSpeed 1 of 1" in out


def test_a_huge_title_and_labels_are_cut_so_the_sheets_can_read_them(tmp_path, capsys):
    """Titles and labels are cut like bodies (at 1,000 characters, with a note), so that
    the next step reads select's own file: a 300,000-character title and labels were
    written whole, and ``labels sheets`` refused it (a field over the csv module's
    limit)."""
    from analysis.update.labels import __main__ as labels_cli
    from tests.support.gharchive import edited_issue

    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    title = "crash " * 50_000
    opened = opened_issues("vllm-project/vllm", [(5, "2025-02-01T00:00:00Z", title, "b")])
    labelled = edited_issue(opened[0], "2025-02-01T00:10:00Z", title,
                            labels=[f"label-{i}" for i in range(30_000)])
    hour = write_events(tmp_path / "gh" / "2025-02-01-0.json.gz", [*opened, labelled])
    out = tmp_path / "out"
    code, _, err = run(capsys, str(hour), "--projects", str(spec), "--out", str(out),
                       "--known", "none")
    assert code == 0, err
    row = pd.read_csv(out / "selection/candidates.csv", dtype=str,
                      keep_default_na=False).iloc[0]
    assert row["title"] == (title[:engine.TITLE_CHARS]
                            + f" [cut at 1,000 characters of {len(title):,}]")
    assert len(row["labels"]) < 1_100 and row["labels"].startswith("label-0;label-1;")
    whole = ";".join(f"label-{i}" for i in range(30_000))
    assert row["labels"].endswith(f" [cut at 1,000 characters of {len(whole):,}]")
    code = labels_cli.main(["sheets", str(out / "selection/candidates.csv"),
                            "--annotators", "2", "--out", str(out)])
    assert code == 0, capsys.readouterr().err


def test_a_second_select_for_the_same_out_meanwhile_is_one_line(inputs, tmp_path, capsys):
    """Two selects for one --out at once both said "wrote": the second now stops in one
    line while the first holds the folder (its lock: flock on the folder), and runs once
    the first has ended."""
    import fcntl
    import os

    out = tmp_path / "out"
    out.mkdir()
    held = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # what a running select holds
        code, stdout, err = run(capsys, *inputs, "--known", "none")
    finally:
        os.close(held)
    assert code == 1 and "wrote" not in stdout
    assert err == (f"select: {out}: another select is writing this folder now -> wait for "
                   "it to end, or choose another --out\n")
    assert list(out.iterdir()) == []
    code, stdout, _ = run(capsys, *inputs, "--known", "none")
    assert code == 0 and "wrote" in stdout


def test_a_refused_select_leaves_no_folder_it_made(tmp_path, capsys):
    out = tmp_path / "new" / "out"
    code, _, err = run(capsys, str(tmp_path / "missing.json"), "--out", str(out),
                       "--known", "none", "--projects", str(tmp_path / "none.yaml"))
    assert code == 1 and err.count("\n") == 1
    assert not out.exists()
