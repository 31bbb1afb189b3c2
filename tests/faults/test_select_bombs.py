"""Faults made on purpose in ``python -m analysis.update.select``: gzip bombs, lines that never end,
exports too big to read whole, a GH Archive hour under the wrong name, more workers than
cores. Each ends in one line naming the file and the limit, with no traceback, nothing in
``--out`` and an earlier selection kept. (Memory itself is measured in ``make bench``.)"""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import ROOT
from analysis.core.sizes import GiB, KiB, MiB, parse_size, size_text
from analysis.update.select import engine, gharchive
from analysis.update.select.__main__ import main, parser
from analysis.update.select.formats import Limits, Tally, read_records
from tests.support.bombs import repeated, write_gzip, zeros_bomb
from tests.support.gharchive import opened_issues, write_events

KEYWORDS = ("pytorch_keywords = ['llm']\ntensorflow_keywords = ['llm']\n"
            "mindspore_keywords = ['llm']\n")
ISSUES = [(1, "2024-01-01T10:00:00Z", "LLM hangs", "body"),
          (2, "2024-01-01T11:00:00Z", "llm crash", "body")]


@pytest.fixture
def keywords(tmp_path) -> Path:
    path = tmp_path / "filter_keywords"
    path.write_text(KEYWORDS, encoding="utf-8")
    return path


def select(capfd, keywords: Path, out: Path, *args: str) -> tuple[int, str]:
    """Run select; its exit status and what it printed to stderr."""
    code = main([*args, "--out", str(out), "--keywords", str(keywords), "--project",
                 "pytorch"])
    return code, capfd.readouterr().err


def assert_one_line(code: int, err: str, *phrases: str) -> str:
    """A refusal: status 1, one line on stderr holding every phrase, no traceback."""
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("select: ")
    for phrase in phrases:
        assert phrase in lines[0], (phrase, lines[0])
    return lines[0]


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def hidden(folder: Path) -> list[str]:
    """Temporary files or folders left anywhere under ``folder``."""
    return sorted(str(p) for p in folder.rglob(".*"))


@pytest.fixture
def earlier(tmp_path, keywords, capfd) -> tuple[Path, dict[str, bytes]]:
    """A good selection already in ``out``, and its bytes."""
    good = write_events(tmp_path / "good" / "2024-01-01-0.json.gz",
                        opened_issues("pytorch/pytorch", ISSUES))
    out = tmp_path / "out"
    code, err = select(capfd, keywords, out, str(good))
    assert code == 0, err
    return out, tree(out)


def zeros(path: Path) -> Path:
    """A gzip bomb: 64 MiB of zeros without a line break, in well under 1 MiB."""
    bomb = zeros_bomb(path, 64 * MiB)
    assert bomb.stat().st_size < MiB
    return bomb


def short_lines(path: Path) -> Path:
    """32 MiB of short events, in a few hundred KiB."""
    return write_gzip(path, repeated(b'{"type":"PushEvent"}\n', 32 * MiB))


@pytest.mark.parametrize("make, option, message", [
    (zeros, ["--max-line-bytes", "1MiB"],
     "2024-01-01-1.json.gz, line 1: a line longer than the limit of 1 MiB (--max-line-bytes)"),
    (short_lines, ["--max-file-bytes", "4MiB"],
     "2024-01-01-1.json.gz: decompresses to more than the limit of 4 MiB (--max-file-bytes)"),
])
def test_a_gzip_bomb_stops_at_its_limit_and_the_earlier_selection_stays(
        tmp_path, keywords, capfd, earlier, make, option, message):
    bomb = make(tmp_path / "2024-01-01-1.json.gz")
    out, before = earlier
    code, err = select(capfd, keywords, out, str(bomb), "--force", *option)
    assert_one_line(code, err, message)
    assert tree(out) == before and hidden(tmp_path) == []


def test_one_over_long_event_is_named_by_its_line(tmp_path, keywords, capfd):
    events = opened_issues("pytorch/pytorch", [*ISSUES, (3, "2024-01-01T12:00:00Z", "llm",
                                                         "x" * (3 * MiB))])
    hour = write_events(tmp_path / "2024-01-01-3.json.gz", [*events, events[0]])
    code, err = select(capfd, keywords, tmp_path / "out", str(hour), "--max-line-bytes",
                       "2MiB")
    assert_one_line(code, err, "2024-01-01-3.json.gz, line 3: a line longer than the limit "
                               "of 2 MiB")
    assert not (tmp_path / "out").exists() and hidden(tmp_path) == []
    # the same hour passes under the default limit
    code, err = select(capfd, keywords, tmp_path / "out", str(hour))
    assert code == 0, err


def event_line(size: int) -> bytes:
    """An event opening an issue in a/b, padded in its body to exactly ``size`` bytes."""
    def line(body: str) -> bytes:
        return json.dumps({"type": "IssuesEvent", "repo": {"name": "a/b"}, "payload": {
            "action": "opened", "issue": {"html_url": "https://github.com/a/b/issues/1",
                                          "title": "t", "created_at": "2024-01-01T00:00:00Z",
                                          "body": body}}}, separators=(",", ":")).encode()
    bare = len(line(""))
    return line("x" * (size - bare))


@pytest.mark.parametrize("block", [7, 64, 1000, 1 << 20])
@pytest.mark.parametrize("limit", [300, 4096])
def test_a_line_of_the_limit_passes_and_one_byte_more_does_not(tmp_path, monkeypatch,
                                                               block, limit):
    monkeypatch.setattr(gharchive, "BLOCK", block)
    limits = Limits(line=limit)
    pattern = gharchive.repo_pattern(["a/b"])
    fits = tmp_path / "fits.json.gz"
    write_gzip(fits, [b"\n".join([event_line(200), event_line(limit), event_line(limit),
                                  b"{}", event_line(limit)])])  # the last without a break
    found = list(gharchive.scan_file(fits, pattern, Tally(), limits=limits))
    assert [r.where for r in found] == [1, 2, 3, 5]
    over = tmp_path / "over.json.gz"
    write_gzip(over, [event_line(limit) + b"\n" + event_line(limit + 1) + b"\n"])
    with pytest.raises(InputError, match=f"over.json.gz, line 2: a line longer than the "
                                         f"limit of {size_text(limit)}"):
        list(gharchive.scan_file(over, pattern, Tally(), limits=limits))


def test_a_file_of_the_limit_passes_and_one_byte_more_does_not(tmp_path):
    data = b"".join(event_line(250) + b"\n" for _ in range(40))
    assert len(data) == 10_040
    path = write_gzip(tmp_path / "h.json.gz", [data])
    pattern = gharchive.repo_pattern(["a/b"])
    assert len(list(gharchive.scan_file(path, pattern, Tally(),
                                        limits=Limits(line=300, file=len(data))))) == 40
    with pytest.raises(InputError, match="h.json.gz: decompresses to more than the limit of "
                                         "10,039 bytes"):
        list(gharchive.scan_file(path, pattern, Tally(),
                                 limits=Limits(line=300, file=len(data) - 1)))


CSV_HEAD = "url,title,body,created_at\n"
ROW = "https://github.com/a/b/issues/1,t,b,2024-01-01T00:00:00Z\n"


@pytest.mark.parametrize("name, data, message", [
    ("lines.json", b'{"html_url": "https://github.com/a/b/issues/1", "title": "t", '
                   b'"created_at": "2024-01-01"}\n{"title": "' + b"x" * 5000 + b'"}\n',
     "lines.json, line 2: a line longer than the limit of 1,000 bytes"),
    ("array.json", b"[" + b'{"title": "x"},' * 500 + b"{}]",
     "array.json: a JSON array is read whole, and this one is over the limit of 1,000 bytes"),
    ("record.csv", (CSV_HEAD + ROW + 'https://github.com/a/b/issues/2,t,"' + "b\n" * 600
                    + '",2024-01-01\n').encode(),
     "record.csv, line 3: a CSV record longer than the limit of 1,000 bytes"),
    ("line.csv", (CSV_HEAD + ROW * 2 + "x" * 2000 + "\n").encode(),
     "line.csv, line 4: a line longer than the limit"),
    ("utf16.csv", codecs.BOM_UTF16_LE + (CSV_HEAD + ROW * 20).encode("utf-16-le"),
     "utf16.csv: a UTF-16 export is read whole, and this one is over the limit"),
    ("nobreak.json", b'{"a": "' + b"x" * 5000, "nobreak.json, line 1: a line longer than"),
])
def test_exports_hold_lines_and_whole_documents_to_the_line_limit(tmp_path, name, data,
                                                                  message):
    (tmp_path / name).write_bytes(data)
    with pytest.raises(InputError) as info:
        list(read_records(tmp_path / name, Tally(), Limits(line=1000)))
    assert str(info.value).startswith(message) and "--max-line-bytes" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.slow  # starts a Dask cluster
def test_the_dask_engine_refuses_a_bomb_alike(tmp_path, keywords, capfd):
    bomb = zeros_bomb(tmp_path / "hours" / "2024-01-01-4.json.gz", 16 * MiB)
    write_events(tmp_path / "hours" / "2024-01-01-5.json.gz",
                 opened_issues("pytorch/pytorch", ISSUES))
    code, err = select(capfd, keywords, tmp_path / "out", str(bomb.parent), "--workers", "1",
                       "--max-line-bytes", "1MiB")
    assert_one_line(code, err, "2024-01-01-4.json.gz, line 1: a line longer than the limit "
                               "of 1 MiB (--max-line-bytes)")
    assert not (tmp_path / "out").exists() and hidden(tmp_path) == []


def test_the_defaults_are_the_documented_ones():
    assert Limits() == Limits(line=128 * MiB, file=8 * GiB)
    text = " ".join(parser().format_help().split())
    assert "--max-line-bytes SIZE" in text and "(default: 128MiB)" in text
    assert "--max-file-bytes SIZE" in text and "(default: 8GiB;" in text
    readme = " ".join((ROOT / "docs" / "update-loop.md").read_text(encoding="utf-8").split())
    assert re.search(r"`--max-line-bytes` \(default 128MiB\)", readme)
    assert re.search(r"`--max-file-bytes` \(default 8GiB\)", readme)


@pytest.mark.parametrize("text, size", [("1", 1), ("128MiB", 128 * MiB), ("8gib", 8 * GiB),
                                        ("64 K", 64 * KiB), ("2T", 2 << 40)])
def test_sizes_are_read_as_written(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5GiB", "8GB", "lots"])
def test_a_size_that_is_not_one_is_an_argument_error(text, capfd):
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)
    with pytest.raises(SystemExit):
        parser().parse_args(["x", "--out", "o", "--max-line-bytes", text])
    assert "not a size" in capfd.readouterr().err


def test_sizes_are_shown_in_the_largest_unit_that_divides_them():
    assert [size_text(n) for n in (128 * MiB, 8 * GiB, 1000, 3 * KiB, 3 * MiB + 1)] == [
        "128 MiB", "8 GiB", "1,000 bytes", "3 KiB", "3,145,729 bytes"]


def test_a_gh_archive_hour_named_json_is_told_its_name(tmp_path, keywords, capfd):
    hour = write_events(tmp_path / "2024-01-01-15.json",
                        opened_issues("pytorch/pytorch", ISSUES))
    code, err = select(capfd, keywords, tmp_path / "out", str(hour))
    assert_one_line(code, err, "2024-01-01-15.json: a GH Archive hour whose name does not "
                               "end in .json.gz -> rename it 2024-01-01-15.json.gz")
    other = write_gzip(tmp_path / "issues.json.gzip", [b'{"html_url": "x"}\n'])
    code, err = select(capfd, keywords, tmp_path / "out", str(other))
    assert_one_line(code, err, "issues.json.gzip: a gzip file that is not a GH Archive hour "
                               "-> decompress it (gunzip)")
    bomb = zeros_bomb(tmp_path / "zeros.json", 256 * MiB)  # looked at, never inflated whole
    code, err = select(capfd, keywords, tmp_path / "out", str(bomb))
    assert_one_line(code, err, "zeros.json: a gzip file that is not a GH Archive hour")
    assert not (tmp_path / "out").exists()


def test_workers_past_the_cores_are_reduced_to_the_cores():
    assert engine.local_workers(2, 2) == (2, None)
    assert engine.local_workers(1, 8) == (1, None)
    workers, note = engine.local_workers(64, 2)
    assert workers == 2 and note == ("--workers 64 is more than the 2 cores here: running 2 "
                                     "workers (more would only wait for a core)")


def test_select_starts_no_more_workers_than_cores(tmp_path, keywords, capfd, monkeypatch):
    hour = write_events(tmp_path / "2024-01-01-0.json.gz",
                        opened_issues("pytorch/pytorch", ISSUES))
    started = []

    def client(workers, scheduler):
        started.append(workers)
        raise InputError("stop here")

    monkeypatch.setattr(engine, "available_cores", lambda: 2)
    monkeypatch.setattr(engine, "dask_client", client)
    code, err = select(capfd, keywords, tmp_path / "out", str(hour), "--workers", "64")
    assert code == 1 and started == [2]
    assert err.splitlines()[0] == ("select: --workers 64 is more than the 2 cores here: "
                                   "running 2 workers (more would only wait for a core)")
