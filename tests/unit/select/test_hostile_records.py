"""Records select sets aside, counted with a reason, instead of a traceback or a candidate
the next steps refuse: GH Archive lines that are no event object (a JSON array, a
``payload`` or ``repo`` of another type), creation dates a study cannot hold (9999-12-31,
2262-04-12, 1677-09-21 passed select and merge, then the clean stage's schema failed;
0001-01-01 made merge write ``vllm_1.txt``), and addresses merge refuses (a URL ending
``#<img ...>``): what select accepts, the next steps accept."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson

from analysis.core.dates import date_problem, year_problem
from analysis.core.urls import url_problem
from analysis.update.select import __main__ as cli
from analysis.update.select import engine
from tests.support.gharchive import opened_issues

REPO = "vllm-project/vllm"
SPEC = ("projects:\n  vllm: {name: vLLM, order: 1, platform: github, "
        f"repository: {REPO}, filter: none}}\n")
BAD_DATES = ["9999-12-31T00:00:00Z", "2262-04-12T00:00:00Z", "1677-09-21T00:00:00Z",
             "0001-01-01T00:00:00Z", "2024-02-30T00:00:00Z", "1999-12-31T00:00:00Z"]
IMG = f"https://github.com/{REPO}/issues/77#<img src=x onerror=alert(1)>"
BAD_URLS = [IMG, f"https://github.com/{REPO}/issues/78\u202e", f"https://github.com/{REPO}/"
            "issues/79\x00", f"https://github.com/{REPO}/issues/80\rx,javascript:y"]


def test_the_date_check():
    assert date_problem("2024-02-29T10:00:00Z") is None
    assert date_problem("2008-01-01") is None and date_problem("2100-12-31") is None
    for bad in BAD_DATES + ["", "soon", None, "24-01-01"]:
        assert date_problem(bad) is not None, bad
    assert "outside the years an issue may have (2008-2100)" in date_problem("9999-12-31")
    assert year_problem(1) is not None and year_problem(2025) is None


def test_the_url_check():
    assert url_problem(f"https://github.com/{REPO}/issues/1") is None
    for bad in [*BAD_URLS, "", None, "javascript:alert(1)", "https://x/" + "a" * 3000]:
        assert url_problem(bad) is not None, bad


def hostile_hour(path: Path) -> Path:
    """One good issue, lines that are no event object, and issues with bad dates or
    addresses, all of the spec's repository."""
    good = opened_issues(REPO, [(1, "2025-02-01T00:00:00Z", "fine", "")])
    base = good[0]
    dated = opened_issues(REPO, [(10 + i, d, f"dated {i}", "") for i, d in
                                 enumerate(BAD_DATES)])
    addressed = [{**base, "payload": {**base["payload"], "issue": {
        **base["payload"]["issue"], "number": 50 + i, "html_url": u}}}
        for i, u in enumerate(BAD_URLS)]
    shapes = [[base], {**base, "payload": "opened"}, {**base, "payload": [1, 2]},
              {**base, "repo": [{"name": REPO}]}, {**base, "payload": {"action": "opened",
                                                                "issue": "x"}}]
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [orjson.dumps(e) for e in [*good, *dated, *addressed, *shapes]]
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n", mtime=0))
    return path


def test_hostile_gh_archive_lines_are_set_aside_and_counted(tmp_path, capsys):
    hour = hostile_hour(tmp_path / "gh" / "2025-02-01-0.json.gz")
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    code = cli.main([str(hour), "--projects", str(spec), "--out", str(tmp_path / "out"),
                     "--known", "none"])
    out, err = capsys.readouterr()
    assert code == 0, err
    record = json.loads((tmp_path / "out/selection/selection.json").read_text())
    assert engine.accounting_problems(record) == []
    assert record["candidates"] == 1
    skipped = record["skipped"]
    assert skipped["malformed_event"] == 4  # the array, payload text, payload list, repo
    assert skipped["missing_url"] == 1  # an issue that is no object: no address
    assert skipped["created_at_out_of_range"] == len(BAD_DATES)
    assert skipped["bad_url"] == len(BAD_URLS)
    assert "6 created at out of range" in out and "4 bad url" in out


def test_an_export_with_bad_dates_and_addresses_is_counted_too(tmp_path, capsys):
    rows = [{"html_url": f"https://github.com/{REPO}/issues/1", "title": "ok",
             "created_at": "2025-01-01T00:00:00Z", "body": ""}]
    rows += [{"html_url": f"https://github.com/{REPO}/issues/{10 + i}", "title": "d",
              "created_at": d, "body": ""} for i, d in enumerate(BAD_DATES)]
    rows += [{"html_url": u, "title": "u", "created_at": "2025-01-01T00:00:00Z", "body": ""}
             for u in BAD_URLS]
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(rows), encoding="utf-8")
    spec = tmp_path / "projects.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    assert cli.main([str(export), "--projects", str(spec), "--out", str(tmp_path / "out"),
                     "--known", "none"]) == 0
    record = json.loads((tmp_path / "out/selection/selection.json").read_text())
    assert record["candidates"] == 1 and engine.accounting_problems(record) == []
    assert record["skipped"] == {"bad_url": len(BAD_URLS),
                                 "created_at_out_of_range": len(BAD_DATES)}
