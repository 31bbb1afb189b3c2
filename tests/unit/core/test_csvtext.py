"""Every CSV the package writes reads back as exactly the rows written: a cell holding a
carriage return, a line feed, U+2028 or U+2029 is quoted whatever the line ending (a bare
CR written unquoted made two rows of one, the second with the cells an attacker chose), a
NUL is written as U+FFFD; ordinary text is written byte for byte as the csv module and
pandas write it. One writer (``analysis.core.csvtext``), used by every writer of the
package, each tested here with hostile cells read back by pandas and by the csv module."""

from __future__ import annotations

import codecs
import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.core import csvtext
from analysis.core.artifacts import csv_float, write_csv
from analysis.core.textsafe import neutralise_cell
from analysis.report import downloads
from analysis.update.labels import extend, merge, tables

SRC = Path(__file__).resolve().parents[3] / "src"
HOSTILE = ["a\rb", "a\r\nb", "a\nb", "x\u2028y", "x\u2029y", "n\x00m", '"q"', "c,d", "",
           " lead ", "=1+1", "\r", "end\r", "\rvllm,https://github.com/x/y/issues/1,"
           "javascript:alert(1)", "é ü 漢字", "tab\there", "semi;colon"]
SHOWN = [c.replace("\x00", "\ufffd") for c in HOSTILE]  # NUL is written as U+FFFD


def hostile_rows() -> list[list[str]]:
    """A header and one row per hostile cell (the cell in the middle, as a title)."""
    return [["project", "title", "url"]] + [["vllm", c, f"https://github.com/o/r/issues/{i}"]
                                            for i, c in enumerate(HOSTILE)]


def expected_rows() -> list[list[str]]:
    return [["project", "title", "url"]] + [["vllm", c, f"https://github.com/o/r/issues/{i}"]
                                            for i, c in enumerate(SHOWN)]


def read_both(data: bytes, encoding: str = "utf-8") -> tuple[list[list[str]], list[list[str]]]:
    """The rows of CSV bytes read by the csv module (``newline=""``) and by pandas."""
    text = data.decode(encoding)
    by_csv = list(csv.reader(io.StringIO(text, newline="")))
    frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, encoding=encoding)
    by_pandas = [list(frame.columns)] + frame.to_numpy().tolist()
    return by_csv, by_pandas


def test_a_bare_carriage_return_is_quoted_so_one_row_stays_one():
    text = csvtext.csv_text([["a", "x\ry"], ["b", "z"]])
    assert text == 'a,"x\ry"\nb,z\n'
    assert csvtext.csv_line(["x\u2028y", "p\u2029q", "n\x00m"]) == \
        '"x\u2028y","p\u2029q",n\ufffdm\n'


def test_csv_text_reads_back_as_written_by_both_readers():
    for ending in ("\n", "\r\n"):
        data = csvtext.csv_text(hostile_rows(), ending).encode("utf-8")
        by_csv, by_pandas = read_both(data)
        assert by_csv == expected_rows()
        assert by_pandas == expected_rows()


def test_a_frame_with_hostile_cells_reads_back_as_written():
    frame = pd.DataFrame(hostile_rows()[1:], columns=hostile_rows()[0])
    frame["n"] = np.arange(len(frame)) / 3
    frame.loc[2, "n"] = np.nan
    text = csvtext.frame_csv_text(frame, index=False, lineterminator="\n",
                                  float_format=csv_float)
    by_csv, by_pandas = read_both(text.encode("utf-8"))
    want = [r + [""] for r in expected_rows()]
    want[0][-1] = "n"
    for i, row in enumerate(want[1:]):
        row[-1] = "" if i == 2 else csv_float(i / 3)
    assert by_csv == want and by_pandas == want


# Ordinary text: the bytes of every paper-side table are those pandas and the csv module
# wrote before (commas, quotes and line feeds are quoted by them already).
ORDINARY = ["plain", "with, comma", 'with "quote"', "multi\nline", "", "é 漢字 😀", " x ",
            "=SUM(A1)", "'apostrophe", "1.5", "tab\tin"]


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_ordinary_text_is_written_as_the_csv_module_writes_it(ending):
    rows = [["h1", "h2"], *[[c, c[::-1]] for c in ORDINARY], [""], [], ["", ""]]
    if ending == "\r\n":
        rows = [[c.replace("\n", "\r\n") for c in r] for r in rows]
    out = io.StringIO()
    csv.writer(out, lineterminator=ending).writerows(rows)
    assert csvtext.csv_text(rows, ending) == out.getvalue()


def test_ordinary_frames_are_written_as_pandas_writes_them():
    frame = pd.DataFrame({"text": ORDINARY, "count": range(len(ORDINARY)),
                          "share": [i / 7 for i in range(len(ORDINARY))],
                          "flag": [i % 2 == 0 for i in range(len(ORDINARY))],
                          "maybe": [None if i % 3 else f"v{i}" for i in range(len(ORDINARY))],
                          "cat": pd.Categorical(["a,b" if i % 2 else "c" for i in
                                                 range(len(ORDINARY))])})
    kwargs = {"index": False, "lineterminator": "\n", "float_format": csv_float}
    assert csvtext.frame_csv_text(frame, **kwargs) == frame.to_csv(**kwargs)
    # a frame that needs the placeholders writes its ordinary cells as pandas does
    mixed = frame.assign(text=[*ORDINARY[:-1], "cr\rhere"])
    lines = csvtext.frame_csv_text(mixed, **kwargs).split("\n")
    assert lines[:-3] == frame.to_csv(**kwargs).split("\n")[:-3]


def test_a_cell_that_looks_like_a_placeholder_is_written_as_itself():
    frame = pd.DataFrame({"a": ['"\n0\n"', "x\ry", "\n1\n"], "b": ["\n0\n", '"', "k"]})
    text = csvtext.frame_csv_text(frame, index=False, lineterminator="\n")
    assert csvtext_rows(text) == [["a", "b"], ['"\n0\n"', "\n0\n"], ["x\ry", '"'],
                                  ["\n1\n", "k"]]


def csvtext_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


# --------------------------------------------------------------- every writer, read back


def test_write_csv_reads_back(tmp_path):
    frame = pd.DataFrame(hostile_rows()[1:], columns=hostile_rows()[0])
    path = write_csv(tmp_path / "candidates.csv", frame)
    by_csv, by_pandas = read_both(path.read_bytes())
    assert by_csv == by_pandas == expected_rows()


def test_the_spreadsheet_csv_of_labels_reads_back():
    data = tables.csv_bytes(hostile_rows())
    assert data.startswith(codecs.BOM_UTF8)
    by_csv, by_pandas = read_both(data, "utf-8-sig")
    assert by_csv == by_pandas == expected_rows()
    neutral = tables.spreadsheet_csv(pd.DataFrame(hostile_rows()[1:],
                                                  columns=hostile_rows()[0]))
    by_csv, by_pandas = read_both(neutral, "utf-8-sig")
    want = [expected_rows()[0]] + [[neutralise_cell(c) for c in r]
                                   for r in expected_rows()[1:]]
    assert by_csv == by_pandas == want


def test_extend_and_merge_label_files_read_back():
    for data in (extend.csv_bytes(hostile_rows()),
                 merge.csv_text(hostile_rows()[0], hostile_rows()[1:]).encode("utf-8")):
        by_csv, by_pandas = read_both(data)
        assert by_csv == by_pandas == expected_rows()


def test_the_sites_downloads_read_back(tmp_path):
    src, dest = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_bytes(csvtext.csv_text(hostile_rows()).encode("utf-8"))
    downloads.neutralise_csv(src, dest)
    by_csv, by_pandas = read_both(dest.read_bytes())
    want = [expected_rows()[0]] + [[neutralise_cell(c) for c in r]
                                   for r in expected_rows()[1:]]
    assert by_csv == by_pandas == want


def test_select_writes_one_row_per_issue_whatever_its_title(tmp_path):
    from analysis.update.select import __main__ as cli
    from tests.support.gharchive import opened_issues, write_events

    spec = tmp_path / "projects.yaml"
    spec.write_text("projects:\n  vllm: {name: vLLM, order: 1, platform: github, "
                    "repository: vllm-project/vllm, filter: none}\n", encoding="utf-8")
    forged = "\rvllm,javascript:alert(1),2025-01-01,,x,,,,,"
    issues = [(i + 1, "2025-02-01T00:00:00Z", title, f"body {title}")
              for i, title in enumerate(HOSTILE[:12] + [forged])]
    hour = write_events(tmp_path / "gh" / "2025-02-01-0.json.gz",
                        opened_issues("vllm-project/vllm", issues))
    assert cli.main([str(hour), "--projects", str(spec), "--out", str(tmp_path / "out"),
                     "--known", "none"]) == 0
    data = (tmp_path / "out/selection/candidates.csv").read_bytes()
    by_csv, by_pandas = read_both(data)
    assert len(by_csv) == len(by_pandas) == len(issues) + 1
    assert by_csv == by_pandas
    url, title = by_csv[0].index("url"), by_csv[0].index("title")
    assert {r[url]: r[title] for r in by_csv[1:]} == {
        f"https://github.com/vllm-project/vllm/issues/{n}": t.replace("\x00", "\ufffd")
        for n, _, t, _ in issues}
    candidates = tables.read_candidates(tmp_path / "out/selection/candidates.csv")
    assert len(candidates) == len(issues)
    assert not any(u.startswith("javascript") for u in candidates["url"])


# The one writer: no other module writes CSV itself.
WRITER_RE = re.compile(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(")


def test_every_csv_is_written_by_the_one_writer():
    found = [f"{p.relative_to(SRC)}:{n}" for p in sorted(SRC.rglob("*.py"))
             if p.name != "csvtext.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if WRITER_RE.search(line) and not line.lstrip().startswith("#")]
    assert found == []
