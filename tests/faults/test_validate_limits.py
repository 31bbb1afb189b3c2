"""Hostile label files given to `python -m analysis.tools.validate`: a line without end is
refused in one line, and a flood of bad rows is summarised, with small limits so that each
case takes a moment (the memory of the real sizes is measured by `make bench`)."""

from __future__ import annotations

import pytest

from analysis.tools.validate import main
from tests.support.dumps import Project, write_dump

LABELS = "Issue Report/vllm/vllm.csv"


@pytest.fixture
def dump(tmp_path):
    write_dump(tmp_path, [Project("vllm", {2024: 6})], study_files=False)
    return tmp_path


@pytest.mark.parametrize("where,junk", [
    ("header", "x," * 5_000),  # a header line without end, commas and all
    ("row", "https://github.com/org/vllm/issues/1," + "C.1" * 5_000 + "\n"),
    ("quoted", '"' + "a field\n" * 5_000),  # a quoted field that never closes
])
def test_an_overlong_line_is_refused_in_one_line(dump, capsys, where, junk):
    label = dump / LABELS
    text = label.read_text()
    label.write_text(junk if where == "header" else text + junk)
    assert main([str(dump), "--max-line", "1000"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    line = 1 if where == "header" else 8
    assert captured.err.startswith(f"validate: {LABELS}, line {line}: ")
    assert "longer than 1,000 characters" in captured.err and "->" in captured.err


def test_a_year_file_line_over_the_limit_is_refused_too(dump, capsys):
    (dump / "Issue Report/vllm/vllm_2024.txt").write_text("u" * 2_000)
    assert main([str(dump), "--max-line", "1000"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("validate: Issue Report/vllm/vllm_2024.txt, line 1: line longer")


def test_a_flood_of_bad_rows_is_summarised_and_every_row_accounted(dump, capsys):
    label = dump / LABELS
    junk = "".join(f"lorem,ipsum {i}\n" if i % 2 else f"not a url {i}," + "C.1," * 7 + "C.1\n"
                   for i in range(400))
    label.write_text(label.read_text() + junk)
    assert main([str(dump), "--max-problems", "3"]) == 0
    out = capsys.readouterr().out
    assert f"  {LABELS}: 406 = 6 + 400" in out and "balanced: yes" in out
    assert "- malformed_row: 200, set_aside" in out and "- invalid_url: 200, set_aside" in out
    malformed = out.split("- malformed_row:")[1].splitlines()[1:5]
    assert [m.split(":")[0].strip() for m in malformed[:3]] == [
        f"{LABELS}, line {n}" for n in (9, 11, 13)]
    assert malformed[3] == "    ... and 197 more (--max-problems shows more)"
    assert out.count("... and 197 more") == 2


def test_a_junk_header_with_line_breaks_is_one_line(dump, capsys):
    (dump / LABELS).write_text("lorem ipsum|dolor\nsit,amet\n" * 50)
    assert main([str(dump)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"validate: {LABELS}, line 1: missing column(s) ")


def test_junk_rows_under_a_valid_header_are_set_aside_and_counted(dump, capsys):
    label = dump / LABELS
    header = label.read_text().split("\n", 1)[0]
    label.write_text(header + "\n" + "".join(f"lorem {i}|ipsum,dolor\n" for i in range(30)))
    assert main([str(dump), "--max-problems", "2"]) == 0
    out = capsys.readouterr().out
    assert f"  {LABELS}: 30 = 0 + 30" in out and "balanced: yes" in out
    assert f"    {LABELS}, line 2: " in out and f"    {LABELS}, line 3: " in out
    assert "    ... and 28 more (--max-problems shows more)" in out
    assert "quality.json" not in out  # validate writes no quality report to point to


def test_a_folder_that_cannot_be_read_is_one_line(dump, capsys, monkeypatch):
    """As root no permission stops a read: the fault is made in the listing itself (the
    walk that checks the dump as ingest does)."""
    import os
    from pathlib import Path

    listing = os.scandir

    def refuse(path):
        if Path(path).name == "vllm":
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", refuse)
    assert main([str(dump)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Permission denied" in err
    assert err.startswith(f"validate: {dump / 'Issue Report/vllm'}: ")


@pytest.mark.parametrize("args", [["--max-problems", "0"], ["--max-line", "x"]])
def test_a_bad_option_is_a_usage_error(dump, capsys, args):
    with pytest.raises(SystemExit) as stop:
        main([str(dump), *args])
    assert stop.value.code == 2 and "Traceback" not in capsys.readouterr().err
