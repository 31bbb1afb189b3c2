"""GH Archive files: blocks of whole lines, line numbers, damaged files, inputs expanded."""

from __future__ import annotations

import gzip
import json

import pytest

from analysis.core.errors import InputError
from analysis.select import gharchive
from analysis.select.formats import Tally


def line(kind: str, repo: str, action: str = "opened", number: int = 1) -> bytes:
    """An event line in GH Archive's shape (Events API schema, since 2015)."""
    item = {"html_url": f"https://github.com/{repo}/"
                        f"{'pull' if kind == 'PullRequestEvent' else 'issues'}/{number}",
            "title": "LLM", "body": 'say "name":"pytorch/pytorch"',
            "created_at": "2024-01-01T00:00:00Z"}
    payload = {"action": action,
               ("pull_request" if kind == "PullRequestEvent" else "issue"): item}
    return json.dumps({"id": "1", "type": kind, "actor": {"login": "u"},
                       "repo": {"id": 5, "name": repo, "url": "x"}, "payload": payload,
                       "public": True, "created_at": "2024-01-01T00:00:01Z"},
                      separators=(",", ":")).encode()


def test_only_lines_of_the_spec_are_read_and_line_numbers_are_right(tmp_path, monkeypatch):
    monkeypatch.setattr(gharchive, "BLOCK", 64)  # many small blocks
    lines = [line("PushEvent", "pytorch/pytorch"), line("IssuesEvent", "other/repo"),
             line("IssuesEvent", "PyTorch/PyTorch", number=3),
             line("IssuesEvent", "pytorch/pytorch", "closed"),
             line("PullRequestEvent", "pytorch/pytorch", number=4)]
    path = tmp_path / "2024-01-01-0.json.gz"
    # two gzip members, as concatenated downloads are
    path.write_bytes(gzip.compress(b"\n".join(lines[:2]) + b"\n")
                     + gzip.compress(b"\n".join(lines[2:]) + b"\n"))
    tally = Tally()
    found = list(gharchive.scan_file(path, gharchive.repo_pattern(["pytorch/pytorch"]),
                                     tally))
    assert [(r.where, r.pull_request) for r in found] == [(3, False), (5, True)]
    assert tally.records == 5 and tally.skipped["other_events"] == 3


def test_a_truncated_hour_is_refused(tmp_path):
    path = tmp_path / "h.json.gz"
    path.write_bytes(gzip.compress(line("IssuesEvent", "a/b") + b"\n")[:-12])
    with pytest.raises(InputError, match="truncated"):
        list(gharchive.scan_file(path, gharchive.repo_pattern(["a/b"]), Tally()))


def test_inputs_are_expanded_in_natural_order(tmp_path):
    for h in (10, 9, 0):
        (tmp_path / f"2024-01-01-{h}.json.gz").write_bytes(b"")
    names = [p.rsplit("/", 1)[1] for p in gharchive.expand([str(tmp_path)])]
    assert names == ["2024-01-01-0.json.gz", "2024-01-01-9.json.gz", "2024-01-01-10.json.gz"]
    assert gharchive.expand([str(tmp_path / "*-1?.json.gz")]) == [
        str(tmp_path / "2024-01-01-10.json.gz")]
    with pytest.raises(InputError, match="matches no"):
        gharchive.expand([str(tmp_path / "2025-*.json.gz")])
