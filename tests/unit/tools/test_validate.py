"""`python -m analysis.tools.validate` and the pandera schemas it shares with the clean stage."""

from __future__ import annotations

import pandas as pd

from analysis.core import schemas
from analysis.tools.validate import main
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
