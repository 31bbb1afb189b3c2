"""`python -m analysis.tools.validate`: what it prints, that it agrees with the clean stage
whatever the chunks it reads, and the pandera schemas they share."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.clean.compute import clean_dump
from analysis.clean.rules import RULES
from analysis.core import schemas
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.quality import AnomalySample, make_anomaly
from analysis.core.taxonomy import load_taxonomy
from analysis.tools.validate import check_dump, main, report_lines
from tests.support.dumps import Project, write_dump


def test_a_dump_with_defects_is_reported_with_places_and_accounting(tmp_path, capsys):
    write_dump(tmp_path, [Project("vllm", {2024: 6})], study_files=False)
    label = tmp_path / "Issue Report/vllm/vllm.csv"
    lines = label.read_text().splitlines()
    lines[2] = lines[2].replace("https://", "ftp://", 1)  # line 3: not an issue URL
    lines[3] = lines[3].rsplit(",", 1)[0] + ",C.99"      # line 4: unknown final label
    label.write_text("\n".join(lines) + "\n")
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "projects: vllm" in out and "years: 2024" in out and "annotators: 7" in out
    assert "Issue Report/vllm/vllm.csv: 6 = 4 + 2" in out and "balanced: yes" in out
    assert "- invalid_url: 1, set_aside" in out and "vllm.csv, line 3, column" in out
    assert "- unknown_final_label: 1, set_aside" in out and "vllm.csv, line 4" in out


def test_a_dump_that_cannot_be_read_is_one_message(tmp_path, capsys):
    write_dump(tmp_path, [Project("vllm", {2024: 2})], study_files=False)
    (tmp_path / "Issue Report/vllm/vllm.csv").unlink()
    assert main([str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("validate: ") and "->" in err
    assert "Traceback" not in err


def test_schema_failures_name_the_cell_and_the_rule():
    frame = pd.DataFrame({"line": [2, 3, 4], "url": ["https://github.com/o/r/issues/1",
                                                     "nope", "https://github.com/o/r/issues/3"],
                          "final_label": ["C.1", "C.1", ""],
                          "annotator_1": ["C.1", None, "Z.9"]})
    got = schemas.failures(schemas.label_rows_schema(["annotator_1"], ["C.1"]), frame)
    assert sorted(map(tuple, got.values.tolist())) == [
        (1, "invalid_url", "url"), (1, "missing_rating", "annotator_1"),
        (2, "missing_final_label", "final_label"), (2, "unknown_label", "annotator_1")]
    assert schemas.failures(schemas.label_rows_schema(["annotator_1"], ["C.1"]),
                            frame.iloc[:1]).empty


def test_year_lines_are_marked_blank_or_not_a_url():
    frame = pd.DataFrame({"line": [1, 2, 3], "url": ["https://github.com/o/r/issues/1", "",
                                                     "see above"]})
    status = schemas.year_line_status(frame)
    assert status["blank"].tolist() == [False, True, False]
    assert status["is_url"].tolist() == [True, False, False]


def defective_dump(root: Path) -> None:
    """A dump with one or more of every row-level problem, in three projects (one with
    five annotators, one with excluded candidates, URLs shared across projects)."""
    write_dump(root, [Project("pytorch", {2023: 6, 2024: 5}, repo="pytorch/pytorch"),
                      Project("vllm", {2024: 5, 2025: 4}, annotators=5, repo="v/vllm"),
                      Project("newthing", {2025: 3}, annotators=3)], study_files=False)
    base = root / "Issue Report"
    py = base / "pytorch/pytorch.csv"
    lines = py.read_text().splitlines()
    shared = lines[1].split(",")[0]
    lines.insert(3, "")  # blank row
    lines.insert(4, lines[2])  # duplicate URL
    lines += ["https://github.com/pytorch/pytorch/issues/9,C.1,C.1",  # malformed
              "not-a-url," + ",".join(["C.1"] * 8),  # invalid URL
              "https://github.com/pytorch/pytorch/issues/10," + ",".join(["C.1"] * 7) + ",",
              "https://github.com/pytorch/pytorch/issues/11," + ",".join(["C.1"] * 8)[:-1]
              + "9",  # unknown final label
              "https://github.com/other/repo/issues/12," + ",".join(["C.2"] * 8),  # no year
              " https://github.com/pytorch/pytorch/issues/13,X.1,,C.1,C.1,C.1,C.2,C.2,C.1"]
    py.write_bytes(("\n".join(lines) + "\n").replace("\n", "\r\n").encode())
    year = base / "pytorch/pytorch_2024.txt"
    year.write_text(year.read_text() + "\nnot a url\nhttps://github.com/pytorch/pytorch/issues/"
                    f"13\n{shared}\nhttps://github.com/pytorch/pytorch/issues/404\n")
    (base / "pytorch/pytorch_excluded.csv").write_bytes(
        f"Issue_URL,Created_At\rhttps://github.com/pytorch/pytorch/issues/7001,2024-01-01\r\r"
        f"nope,2024\r{shared},2023-02-02\rhttps://github.com/pytorch/pytorch/issues/7001,x\r"
        .encode())
    vllm = base / "vllm/vllm.csv"
    rows = vllm.read_text().splitlines()
    rows[2] = shared + "," + rows[2].split(",", 1)[1]  # also labelled in pytorch
    vllm.write_text("\n".join(rows) + "\n")
    y = base / "vllm/vllm_2025.txt"
    y.write_text(y.read_text() + shared + "\n")


@pytest.mark.parametrize("policy", ["keep", "first"])
@pytest.mark.parametrize("chunk_rows", [2, 1000])
def test_validate_agrees_with_the_clean_stage_row_for_row(tmp_path, taxonomy, projects,
                                                          policy, chunk_rows):
    """Read in chunks and keeping only what the rules across rows need, the check finds
    what the clean stage finds: the same accounting, counts and first problems."""
    defective_dump(tmp_path)
    clean = clean_dump(tmp_path, taxonomy, projects, duplicates=policy).quality
    checked = check_dump(tmp_path, policy, max_problems=3, chunk_rows=chunk_rows)
    assert checked["files"] == clean["files"] and checked["summary"] == clean["summary"]
    assert checked["anomaly_counts"] == clean["anomaly_counts"]
    assert len(clean["anomaly_counts"]) >= 20
    first: dict[str, list] = {}
    for a in clean["anomalies"]:
        first.setdefault(a["kind"], []).append(a)
    assert checked["anomalies"] == sorted(
        (a for items in first.values() for a in items[:3]),
        key=lambda a: (a["file"], a["line"] is not None, a["line"] or 0, a["kind"],
                       a["column"] is not None, a["column"] or ""))
    assert report_lines(checked) == report_lines(clean, limit=3)[:len(report_lines(checked))]


def test_the_first_problems_are_kept_whatever_order_they_come_in():
    sample = AnomalySample(2)
    for line in (9, 3, None, 7, 3, 1):
        sample.append(make_anomaly(RULES, "blank_row", "a.csv", f"l{line}", line))
    sample.append(make_anomaly(RULES, "blank_row", "b.csv", "later file", 1))
    assert sample.counts == {"blank_row": 7}
    assert [a.message for a in sample.kept()] == ["lNone", "l1"]


SAMPLE = "Issue_URL,Label1,Label2,Final_Label\n" + "".join(
    f"https://github.com/o/r/issues/{i},C.1,C.{i % 3},C.1\n" for i in range(1, 7))
EDITS = st.lists(st.tuples(st.integers(0, len(SAMPLE)), st.sampled_from(
    ["", ",", '"', "\n", "\r\n", " ", "C.9", "x", "https://github.com/o/r/issues/2\n"])),
    min_size=1, max_size=6)


@settings(max_examples=int(os.environ.get("PROPERTY_EXAMPLES", "20")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(label_edits=EDITS, year_edits=EDITS)
def test_validate_and_clean_agree_on_mutated_files(tmp_path_factory, label_edits, year_edits):
    root = tmp_path_factory.mktemp("dump")
    folder = root / "Issue Report" / "r"
    folder.mkdir(parents=True)
    years = "".join(f"https://github.com/o/r/issues/{i}\n" for i in range(1, 6))
    for path, text, edits in ((folder / "r.csv", SAMPLE, label_edits),
                              (folder / "r_2024.txt", years, year_edits)):
        for pos, piece in edits:
            text = text[:pos] + piece + text[pos:]
        path.write_text(text, encoding="utf-8", newline="")
    taxonomy, projects = load_taxonomy(), Projects.load(PATHS.projects_file)
    try:
        clean = clean_dump(root, taxonomy, projects).quality
    except InputError as exc:
        with pytest.raises(InputError) as err:
            check_dump(root, chunk_rows=2)
        assert str(err.value) == str(exc)
        return
    checked = check_dump(root, max_problems=1000, chunk_rows=2)
    assert checked["files"] == clean["files"] and checked["summary"] == clean["summary"]
    assert checked["anomalies"] == clean["anomalies"]


def test_freed_memory_goes_back_to_the_system():
    import pyarrow as pa

    from analysis.tools.validate import give_back_freed_memory

    before = pa.default_memory_pool()
    try:
        give_back_freed_memory()
        assert pa.default_memory_pool().backend_name == "system"
    finally:
        pa.set_memory_pool(before)


def test_help_documents_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0" in out and "1 a problem stops it" in out and "2 bad options" in out
