"""GH Archive files: blocks of whole lines, line numbers, damaged files, inputs expanded."""

from __future__ import annotations

import gzip
import json

import pytest

from analysis.core.errors import InputError
from analysis.update.select import gharchive
from analysis.update.select.formats import Tally


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
    # the closed issue is a later sighting of issue 1 (an update): its title and labels
    assert [(r.where, r.pull_request, r.update) for r in found] == [
        (3, False, False), (4, False, True), (5, True, False)]
    assert tally.records == 5 and tally.skipped["other_events"] == 2


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


# An IssuesEvent of GH Archive's pre-2015 schema (GitHub Timeline events), in the shape of
# the public 2013 hours: "repository" (owner and name apart), "actor" a login, and
# "payload.issue" the issue's id, without title or body.
PRE_2015 = {"actor": "moinmoin", "public": True, "type": "IssuesEvent",
            "url": "https://github.com/moinmoin/wso2registry-extensions/issues/2",
            "repository": {"owner": "moinmoin", "name": "wso2registry-extensions",
                           "url": "https://github.com/moinmoin/wso2registry-extensions",
                           "id": 7138004, "has_issues": True, "fork": False},
            "actor_attributes": {"login": "moinmoin", "type": "User"},
            "payload": {"number": 2, "action": "opened", "issue": 9600986},
            "created_at": "2013-01-01T00:00:45-08:00"}


def test_an_hour_of_the_pre_2015_schema_is_refused_naming_the_schema(tmp_path):
    path = tmp_path / "2013-01-01-8.json.gz"
    path.write_bytes(gzip.compress(json.dumps(PRE_2015).encode() + b"\n"))
    with pytest.raises(InputError) as err:
        list(gharchive.scan_file(path, gharchive.repo_pattern(["moinmoin/x"]), Tally()))
    text = str(err.value)
    assert text.startswith("2013-01-01-8.json.gz: a GH Archive hour in the pre-2015 schema")
    assert "'repository' object instead of 'repo'" in text and "\n" not in text
    assert "from 2015-01-01 on" in text


def test_a_pull_request_with_a_trimmed_payload_is_counted_once(tmp_path):
    trimmed = json.loads(line("PullRequestEvent", "pytorch/pytorch", number=8))
    trimmed["payload"] = {"action": "opened", "number": 8,
                          "pull_request": {"id": 1, "number": 8}}
    bare = json.loads(line("IssuesEvent", "pytorch/pytorch", number=9))
    del bare["payload"]["issue"]["html_url"]
    bare["payload"]["issue"]["number"] = 9
    path = tmp_path / "2025-11-01-0.json.gz"
    compact = {"separators": (",", ":")}  # as GH Archive writes its lines
    path.write_bytes(gzip.compress(json.dumps(trimmed, **compact).encode() + b"\n"
                                   + json.dumps(bare, **compact).encode() + b"\n"))
    tally = Tally()
    found = list(gharchive.scan_file(path, gharchive.repo_pattern(["pytorch/pytorch"]),
                                     tally))
    assert [(r.url, r.pull_request) for r in found] == [
        ("https://github.com/pytorch/pytorch/pull/8", True),
        ("https://github.com/pytorch/pytorch/issues/9", False)]
    assert tally.records == 2 and sum(tally.skipped.values()) == 0


INFLATERS = [pytest.param(__import__("zlib"), id="zlib")]
try:
    from isal import isal_zlib
    INFLATERS.append(pytest.param(isal_zlib, id="isal"))
except ImportError:  # the optional extra is not installed: zlib alone is tested
    pass


def test_typed_line_starts_finds_issue_and_pull_request_lines_once_each():
    lines = [line("PushEvent", "a/b"), line("IssuesEvent", "a/b"),
             line("PullRequestEvent", "a/b"), line("IssueCommentEvent", "a/b")]
    block = b"\n".join(lines) + b"\n"
    offsets = [0]
    for one in lines[:-1]:
        offsets.append(offsets[-1] + len(one) + 1)
    assert gharchive.typed_line_starts(block) == [offsets[1], offsets[2]]
    # within a range: the first typed line is outside it
    assert gharchive.typed_line_starts(block, offsets[2], len(block)) == [offsets[2]]
    # a line naming both types (one in a nested object) is given once
    both = lines[1][:-1] + b',"x":{"type":"PullRequestEvent"}}\n'
    assert gharchive.typed_line_starts(both) == [0]


def test_in_spec_reads_the_events_repository_not_a_name_in_its_payload():
    pattern = gharchive.repo_pattern(["pytorch/pytorch"])
    ours = line("IssuesEvent", "PyTorch/pytorch")
    theirs = line("IssuesEvent", "other/repo").replace(
        b'"payload":{', b'"payload":{"label":{"name":"pytorch/pytorch"},')
    assert gharchive.in_spec(ours, 0, len(ours), pattern)
    assert not gharchive.in_spec(theirs, 0, len(theirs), pattern)
    # without a repo object the whole line is searched
    bare = b'{"type":"IssuesEvent","x":{"name":"pytorch/pytorch"}}'
    assert gharchive.in_spec(bare, 0, len(bare), pattern)


def test_newlines_counts_line_breaks_in_a_range():
    block = b"a\nbb\n\nccc\n"
    assert gharchive.newlines(block) == 4
    assert gharchive.newlines(block, 2, 6) == 2
    assert gharchive.newlines(block, 3, 3) == 0


@pytest.mark.parametrize("inflater", INFLATERS)
def test_blocks_hand_over_whole_lines_as_ranges_without_losing_a_byte(
        tmp_path, monkeypatch, inflater):
    monkeypatch.setattr(gharchive, "BLOCK", 7)
    monkeypatch.setattr(gharchive, "OUT_BLOCK", 10)  # lines carried across many blocks
    body = b"".join(b"line %d " % n + b"x" * (n % 23) + b"\n" for n in range(300))
    path = tmp_path / "2024-01-01-0.json.gz"
    path.write_bytes(gzip.compress(body[:1000]) + gzip.compress(body[1000:] + b"tail"))
    parts = list(gharchive._blocks(path, path.name, inflate_module=inflater))
    assert all(b[lo:hi].endswith(b"\n") for b, lo, hi in parts)
    assert b"".join(b[lo:hi] for b, lo, hi in parts) == body + b"tail\n"


@pytest.mark.parametrize("inflater", INFLATERS)
def test_scan_gives_the_same_records_whatever_the_inflater(tmp_path, inflater):
    import zlib

    lines = [line("IssuesEvent", "pytorch/pytorch", number=n) if n % 3 else
             line("PushEvent", "pytorch/pytorch") for n in range(200)]
    path = tmp_path / "2024-01-01-0.json.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    pattern = gharchive.repo_pattern(["pytorch/pytorch"])
    runs = []
    for module in (zlib, inflater):
        tally = Tally()
        runs.append((list(gharchive.scan_file(path, pattern, tally, inflate_module=module)),
                     tally.records, dict(tally.skipped)))
    assert runs[0] == runs[1]
    assert runs[0][1] == 200 and len(runs[0][0]) == 133
