"""Real exports read right: one small file a case, in the exact shape the real tools write
(PyGithub's 2012 replay pages, octokit's search fixture, the /pulls endpoint, Perceval's
GitHub and Gitee items, gh, CSV from a spreadsheet), each giving the right counts or a
one-line refusal, never a traceback, and no --out folder after a failure."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.update.select.__main__ import main
from analysis.update.select.engine import accounting_problems

SPEC = """projects:
  pygithub: {name: PyGithub, order: 1, platform: github, repository: jacquev6/PyGithub,
             former_names: [PyGithub/OldName], filter: none}
  search: {name: Search, order: 2, platform: github,
           repository: octokit-fixture-org/search-issues, filter: pytorch}
  example: {name: Example, order: 3, platform: gitee, repository: example/example,
            filter: none}
"""
KEYWORDS = "pytorch_keywords = ['llm', 'sesame', 'pop']\n"


def pygithub_issue(number: int, title: str, created: str, pr_url: str | None = None) -> dict:
    """An issue of PyGithub's ReplayData (AuthenticatedUser.testGetIssues, May 2012): every
    object carries "pull_request", with null URLs on plain issues."""
    url = f"https://github.com/jacquev6/PyGithub/{'pull' if pr_url else 'issues'}/{number}"
    return {"repository": {"full_name": "jacquev6/PyGithub", "id": 3544490},
            "milestone": None, "state": "open", "user": {"login": "jacquev6", "id": 327146},
            "title": title, "comments": 0, "assignee": None,
            "updated_at": created, "body": "List known clients.\r\n", "number": number,
            "closed_at": None,
            "pull_request": {"diff_url": pr_url and pr_url + ".diff", "html_url": pr_url,
                             "patch_url": pr_url and pr_url + ".patch"},
            "html_url": url, "labels": [], "id": 4452000 + number, "created_at": created,
            "url": f"https://api.github.com/repos/jacquev6/PyGithub/issues/{number}"}


def octokit_item(number: int, title: str, body: str) -> dict:
    """An item of octokit/fixtures' search-issues scenario."""
    base = "https://api.github.com/repos/octokit-fixture-org/search-issues"
    return {"url": f"{base}/issues/{number}", "repository_url": base,
            "html_url": f"https://github.com/octokit-fixture-org/search-issues/issues/{number}",
            "id": 1000 + number, "node_id": "MDA6RW50aXR5MQ==", "number": number,
            "title": title, "user": {"login": "octokit-fixture-user-b", "type": "User"},
            "labels": [], "state": "open", "locked": False, "assignee": None,
            "assignees": [], "milestone": None, "comments": 42,
            "created_at": "2017-10-10T16:00:00Z", "updated_at": "2017-10-10T16:00:00Z",
            "closed_at": None, "author_association": "NONE", "body": body, "score": 42}


def pulls_item(number: int) -> dict:
    """An object of the /pulls endpoint: no pull_request key, a /pull/ URL."""
    return {"url": f"https://api.github.com/repos/jacquev6/PyGithub/pulls/{number}",
            "html_url": f"https://github.com/jacquev6/PyGithub/pull/{number}",
            "diff_url": f"https://github.com/jacquev6/PyGithub/pull/{number}.diff",
            "number": number, "state": "open", "title": "Add a method",
            "user": {"login": "x"}, "body": "", "created_at": "2012-05-20T10:00:00Z",
            "head": {"ref": "topic"}, "base": {"ref": "master"}}


def perceval_item(backend: str, category: str, data: dict) -> dict:
    return {"backend_name": backend, "backend_version": "0.12.0", "category": category,
            "classified_fields_filtered": None, "data": data,
            "origin": "https://gitee.com/example/example", "perceval_version": "1.0.2",
            "search_fields": {"item_id": "2299552", "owner": "example", "repo": "example"},
            "tag": "https://gitee.com/example/example", "timestamp": 1585704775.0,
            "updated_on": 1585704775.0, "uuid": "0f1e2d3c"}


def gitee_issue(number: str, created: str) -> dict:
    """An issue of Perceval's Gitee test data (tests/data/gitee/gitee_issues1)."""
    return {"id": 2299552, "url": f"https://gitee.com/api/v5/repos/example/example/issues/"
            f"{number}", "html_url": f"https://gitee.com/example/example/issues/{number}",
            "number": number, "state": "open", "title": "tittle", "body": "body",
            "user": {"login": "willemjiang"}, "labels": [], "created_at": created,
            "updated_at": created, "issue_type": "任务", "security_hole": False}


def run(tmp_path: Path, export: Path, *extra: str) -> tuple[int, str, Path]:
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    kw = tmp_path / "filter_keywords"
    kw.write_text(KEYWORDS, encoding="utf-8")
    out = tmp_path / "out"
    err = io.StringIO()
    from contextlib import redirect_stderr, redirect_stdout

    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        code = main([str(export), "--out", str(out), "--projects", str(spec),
                     "--keywords", str(kw), "--known", "none", *extra])
    return code, err.getvalue(), out


def selection(out: Path) -> dict:
    """The selection record, checked to add up (every record counted once)."""
    record = json.loads((out / "selection/selection.json").read_text(encoding="utf-8"))
    assert accounting_problems(record) == []
    return record


def test_a_2012_api_page_keeps_its_issues_and_skips_its_pull_requests(tmp_path):
    page = [pygithub_issue(n, f"Issue {n}", f"2012-05-{n:02d}T10:00:00Z") for n in range(1, 16)]
    page.append(pygithub_issue(16, "A pull", "2012-05-16T10:00:00Z",
                               pr_url="https://github.com/jacquev6/PyGithub/pull/16"))
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(page), encoding="utf-8")
    code, err, out = run(tmp_path, export)
    assert code == 0, err
    p = selection(out)["projects"]["pygithub"]
    assert (p["records"], p["pull_requests"], p["candidates"]) == (16, 1, 15)


def test_a_search_response_gives_its_items(tmp_path):
    response = {"total_count": 3, "incomplete_results": False,
                "items": [octokit_item(2, "Sesame seeds split without a pop!", "no pop"),
                          octokit_item(1, "The doors don’t open", 'I tried "open sesame"'),
                          octokit_item(3, "Unrelated", "nothing")]}
    export = tmp_path / "search.json"
    export.write_text(json.dumps(response, indent=2, ensure_ascii=False), encoding="utf-8")
    code, err, out = run(tmp_path, export)
    assert code == 0, err
    s = selection(out)
    assert s["inputs"]["containers"] == {"JSON (search response)": 1}
    p = s["projects"]["search"]
    assert (p["records"], p["not_matched"], p["candidates"]) == (3, 1, 2)
    cand = pd.read_csv(out / "selection/candidates.csv", keep_default_na=False)
    assert cand["keywords_title"].tolist() == ["", "sesame;pop"]  # same date: URL order
    assert cand["keywords_body"].tolist() == ["sesame", "pop"]


def test_output_of_the_pulls_endpoint_is_skipped_with_a_count(tmp_path):
    export = tmp_path / "pulls.jsonl"
    export.write_text("".join(json.dumps(pulls_item(n)) + "\n" for n in (3, 4)),
                      encoding="utf-8")
    code, err, out = run(tmp_path, export)
    assert code == 3, err  # no candidates: nothing to label
    p = selection(out)["projects"]["pygithub"]
    assert (p["records"], p["pull_requests"], p["candidates"]) == (2, 2, 0)


def test_perceval_items_of_github_and_gitee(tmp_path):
    items = [perceval_item("Gitee", "issue", gitee_issue("I1DACG", "2020-04-01T09:32:55+08:00")),
             perceval_item("Gitee", "pull_request", {
                 **gitee_issue("7", "2020-04-02T09:32:55+08:00"),
                 "html_url": "https://gitee.com/example/example/pulls/7"}),
             perceval_item("GitHub", "issue", pygithub_issue(5, "x", "2012-05-05T00:00:00Z"))]
    export = tmp_path / "perceval.jsonl"
    export.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items),
                      encoding="utf-8")
    code, err, out = run(tmp_path, export)
    assert code == 0, err
    s = selection(out)
    assert s["formats"] == {"perceval (Perceval items)": 1}
    assert s["projects"]["example"]["candidates"] == 1
    assert s["projects"]["example"]["pull_requests"] == 1
    assert s["projects"]["pygithub"]["candidates"] == 1


def write_csv(path: Path, rows: list[list[str]], encoding: str = "utf-8") -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(
        [["url", "title", "body", "created_at"], *rows])
    path.write_bytes(buf.getvalue().encode(encoding))
    return path


ROWS = [["https://github.com/jacquev6/PyGithub/issues/1", "Über", "é", "2012-05-01"],
        ["https://github.com/jacquev6/PyGithub/pull/2", "a pull", "", "2012-05-02"],
        ["https://github.com/PyGithub/OldName/issues/3", "old name", "", "2012-05-03"]]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le",
                                      "utf-16-be"])
def test_csv_exports_in_any_unicode_encoding_with_pull_requests_by_url(tmp_path, encoding):
    export = write_csv(tmp_path / "export.csv", ROWS, encoding)
    code, err, out = run(tmp_path, export)
    assert code == 0, err
    p = selection(out)["projects"]["pygithub"]
    assert (p["records"], p["pull_requests"], p["candidates"]) == (3, 1, 2)
    cand = pd.read_csv(out / "selection/candidates.csv", keep_default_na=False)
    assert cand["title"].tolist() == ["Über", "old name"]
    # a former name is rewritten to the current one
    assert cand["url"].tolist()[1] == "https://github.com/jacquev6/PyGithub/issues/3"
    assert not (out / "sheets").exists()  # labels sheets writes them


@pytest.mark.parametrize("content,what", [
    (b"url,title,body,created_at\r\nhttps://github.com/jacquev6/PyGithub/issues/1,caf\xe9,"
     b",2012-05-01\r\n", "line 2: not valid UTF-8 (byte 0xe9"),
    (b"url,title,body,created_at\r\nhttps://github.com/jacquev6/PyGithub/issues/1,"
     b'"multi\r\nline,2012-05-01\r\nx,y\r\n', "line 2: not valid CSV"),
    (b"\xff\xfeu\x00r\x00l\x00\x00\xd8\n\x00", "not valid UTF-16"),
    (b'{"id": 1, "name": "x"}\n', "unrecognised export format (first record has: id, name)"),
    (b'{\n  "html_url": "x"\n}\n', "pretty-printed"),
    (b'{"html_url": "https://github.com/a/b/issues/1", "title": "a", "created_at": '
     b'"2024-01-01"}\n{"html_url": "https://g/o/r/issues/2", "tit\n', "line 2: not valid JSON"),
    (b'{"html_url": "https://github.com/a/b/issues/1", "title": "caf\xe9", "created_at": '
     b'"2024-01-01"}\n', "line 1: not valid UTF-8"),
    (b"a,b\n1,2\n", "CSV without column(s) url, title, body, created_at"),
    (b"", "empty"),
    (b"\x1f\x8b\x08\x00", "the gzip file is truncated"),
    (b"\x1f\x8b\x07\x00" + b"\x00" * 20, "not a valid gzip file"),
])
def test_unusable_exports_are_refused_in_one_line_and_leave_nothing(tmp_path, content, what):
    export = tmp_path / ("export.json.gz" if content.startswith(b"\x1f\x8b") else "export")
    export.write_bytes(content)
    code, err, out = run(tmp_path, export)
    assert code == 1 and what in err and "->" in err, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert not out.exists()
    assert [p.name for p in tmp_path.rglob(".select*")] == []


def test_a_second_run_replaces_a_selection_only_with_force_and_never_the_sheets(tmp_path):
    export = write_csv(tmp_path / "export.csv", ROWS)
    assert run(tmp_path, export)[0] == 0
    sheet = tmp_path / "out/sheets/annotator_1.csv"
    sheet.parent.mkdir()
    sheet.write_text("labelled", encoding="utf-8")
    code, err, _ = run(tmp_path, export)
    assert code == 1 and "already holds a selection" in err
    code, err, _ = run(tmp_path, export, "--force")
    assert code == 1 and "add --set-aside" in err  # the sheets were made from it
    code, err, _ = run(tmp_path, export, "--force", "--set-aside")
    assert code == 0 and "the earlier selection sel-" in err and "is kept in" in err
    assert sheet.read_text(encoding="utf-8") == "labelled"


def test_a_selection_without_candidates_says_so_with_its_own_status(tmp_path):
    export = write_csv(tmp_path / "export.csv", ROWS)
    code, err, out = run(tmp_path, export, "--since", "2020-01-01")
    assert code == 3 and "no candidates: nothing to label" in err, err
    assert selection(out)["candidates"] == 0
    assert not (out / "sheets").exists()


def test_the_window_and_duplicates_are_counted(tmp_path):
    rows = ROWS + [ROWS[0], ["https://github.com/jacquev6/PyGithub/issues/9", "t", "",
                             "2013-01-01"]]
    export = write_csv(tmp_path / "export.csv", rows)
    code, err, out = run(tmp_path, export, "--until", "2012-12-31")
    assert code == 0, err
    p = selection(out)["projects"]["pygithub"]
    assert (p["records"], p["pull_requests"], p["out_of_window"], p["duplicates"],
            p["candidates"]) == (5, 1, 1, 1, 2)
