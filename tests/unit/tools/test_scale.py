"""`analysis.tools.scale`: a dump N times as large, every issue under N issue numbers."""

from __future__ import annotations

import pytest

from analysis.clean.compute import clean_dump
from analysis.core.errors import InputError
from analysis.tools.scale import main, renumber, repeat_file, scale_dump, stride_for
from tests.support.dumps import small_dump
from tests.unit.tools.test_validate import defective_dump


def test_the_stride_is_the_power_of_ten_above_the_largest_number():
    assert [stride_for(n) for n in (0, 9, 10, 16071, 99999)] == [10, 10, 100, 100000, 100000]


def test_issue_and_pull_numbers_are_shifted_and_nothing_else():
    body = (b"https://github.com/o/r/issues/12,A.1\r\n"
            b"https://gitee.com/o/r/pull/7,B.2\nnot-a-url/99,C.1\n")
    assert renumber(body, 1000) == (b"https://github.com/o/r/issues/1012,A.1\r\n"
                                    b"https://gitee.com/o/r/pull/1007,B.2\nnot-a-url/99,C.1\n")
    assert renumber(body, 0) is body


@pytest.mark.parametrize(("raw", "header", "expected"), [
    (b"\xef\xbb\xbfIssue_URL,L\r\nh/issues/1,A\r\nh/issues/2,B\r\n", True,
     b"\xef\xbb\xbfIssue_URL,L\r\nh/issues/1,A\r\nh/issues/2,B\r\n"
     b"h/issues/11,A\r\nh/issues/12,B\r\nh/issues/21,A\r\nh/issues/22,B\r\n"),
    (b"h/issues/1\nh/issues/2", False,  # no final line ending: the copies still split
     b"h/issues/1\nh/issues/2\nh/issues/11\nh/issues/12\nh/issues/21\nh/issues/22"),
    (b"Issue_URL,Created_At\rh/issues/3,x\r\r", True,  # CR line endings, a blank line
     b"Issue_URL,Created_At\rh/issues/3,x\r\rh/issues/13,x\r\rh/issues/23,x\r\r"),
    (b"Issue_URL,L\n", True, b"Issue_URL,L\n"),
    (b"", False, b""),
])
def test_a_file_body_is_repeated_under_new_numbers_and_its_header_kept_once(raw, header,
                                                                            expected):
    assert repeat_file(raw, 3, 10, header) == expected


def test_the_scaled_dump_cleans_to_n_times_every_count(tmp_path, taxonomy, projects):
    """Every row-level count of the clean stage, defects included, grows N-fold; the shares
    and the files do not change."""
    defective_dump(tmp_path / "src")
    (tmp_path / "src/CodeBook.csv").write_text("kept as it is\n")
    done = scale_dump(tmp_path / "src", tmp_path / "x3", 3)
    assert done["stride"] == 10000
    assert done["files"] == sum(1 for p in (tmp_path / "src").rglob("*") if p.is_file())
    one = clean_dump(tmp_path / "src", taxonomy, projects)
    three = clean_dump(tmp_path / "x3", taxonomy, projects)
    assert len(three.issues) == 3 * len(one.issues) and len(three.rejected) == 3 * len(
        one.rejected)
    assert three.quality["summary"] == {**one.quality["summary"],
                                        "issues": 3 * one.quality["summary"]["issues"]}
    per_file = {"crlf_line_endings", "cr_line_endings", "unknown_project",
                "annotator_count_differs"}  # one a file or project, whatever its rows
    counts = one.quality["anomaly_counts"]
    assert three.quality["anomaly_counts"] == {kind: n if kind in per_file else 3 * n
                                               for kind, n in counts.items()}
    assert len(counts) > 20
    assert (three.issues["final_label"].value_counts() == 3 * one.issues["final_label"]
            .value_counts()).all()
    assert three.issues["issue_url"].nunique() == 3 * one.issues["issue_url"].nunique()
    assert (tmp_path / "x3/CodeBook.csv").read_text() == "kept as it is\n"


def test_a_factor_of_one_copies_the_dump_byte_for_byte(tmp_path):
    small_dump(tmp_path / "src")
    scale_dump(tmp_path / "src", tmp_path / "x1", 1)
    files = sorted(p.relative_to(tmp_path / "src") for p in (tmp_path / "src").rglob("*")
                   if p.is_file())
    assert files and all((tmp_path / "src" / f).read_bytes() == (tmp_path / "x1" / f)
                         .read_bytes() for f in files)
    assert sorted(p.relative_to(tmp_path / "x1") for p in (tmp_path / "x1").rglob("*")
                  if p.is_file()) == files


@pytest.mark.parametrize(("times", "make_dest", "message"), [
    (0, False, "scale factor 0 is below 1"),
    (2, True, "destination exists"),
])
def test_bad_arguments_end_in_one_line_and_write_nothing(tmp_path, capsys, times, make_dest,
                                                         message):
    small_dump(tmp_path / "src")
    if make_dest:
        (tmp_path / "out").mkdir()
    with pytest.raises(InputError, match=message):
        scale_dump(tmp_path / "src", tmp_path / "out", times)
    assert main([str(tmp_path / "src"), str(tmp_path / "out"), "--times", str(times)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [*["out"] * make_dest, "src"]


def test_the_command_writes_the_dump_and_says_so(tmp_path, capsys):
    small_dump(tmp_path / "src")
    assert main([str(tmp_path / "src"), str(tmp_path / "x2"), "--times", "2"]) == 0
    assert "repeated 2 times" in capsys.readouterr().out
    lines = (tmp_path / "x2/Issue Report/vllm/vllm.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * 25 and lines[26].endswith(lines[1][lines[1].index(","):])
