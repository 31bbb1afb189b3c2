"""A batch's records read as a dump is: FIFOs, links and files past the limits refused in
one line, by the merge stage, the batches stage and the pipeline's driver before DVC
hashes labels/ (analysis.core.batchfiles)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.core import batchfiles, sizes
from analysis.core.errors import InputError
from analysis.tools import repro
from analysis.update.labels import tables
from analysis.update.labels.merge import merge_folder
from analysis.update.study import batch, records
from tests.unit.study.test_study import params_file, write_records

BATCH = "labels/2026-01"


@pytest.fixture
def project(tmp_path, taxonomy) -> Path:
    """A project with the records of one batch, 2026-01."""
    root = tmp_path / "project"
    write_records(root, "2026-01", 2025, taxonomy)
    return root


def run_stages(project: Path, capsys) -> tuple[str, str]:
    """The batches and merge stages on 2026-01; their error output."""
    params_file(project, "[2026-01]")
    assert records.main(["--params", str(project / "params.yaml")]) == 1
    listed = capsys.readouterr().err
    assert batch.main([str(project / BATCH), "--out", str(project / "out")]) == 1
    merged = capsys.readouterr().err
    assert not (project / "out").exists()
    return listed, merged


def one_line(err: str, *words: str) -> None:
    assert err.count("\n") == 1 and "Traceback" not in err and "->" in err, err
    assert all(w in err for w in words), err


@pytest.mark.parametrize("rel", ["sheets/annotator_zed.csv", "decisions.csv",
                                 "selection/notes.csv"])
def test_a_fifo_in_a_batch_s_records_is_refused_without_opening_it(project, capsys,
                                                                    rel):
    os.mkfifo(project / BATCH / rel)  # opened, it would block the run for ever
    listed, merged = run_stages(project, capsys)
    for err in (listed, merged):
        one_line(err, rel, "FIFO", "regular files only")
    with pytest.raises(InputError, match="FIFO"):
        repro.before_dvc(project)


def link_outside(project: Path, rel: str, tmp_path: Path) -> None:
    target = project / BATCH / rel
    outside = tmp_path / "outside" / Path(rel).name
    outside.parent.mkdir(parents=True, exist_ok=True)
    os.replace(target, outside) if target.exists() else outside.write_text(
        "url,decision\n", encoding="utf-8")
    target.symlink_to(outside)


@pytest.mark.parametrize("rel", ["sheets/annotator_bob.csv", "decisions.csv", "sheets"])
def test_a_link_in_a_batch_s_records_is_refused(project, capsys, tmp_path, rel):
    link_outside(project, rel, tmp_path)
    listed, merged = run_stages(project, capsys)
    for err in (listed, merged):
        one_line(err, rel, "symbolic link")
    with pytest.raises(InputError, match="symbolic link"):
        repro.before_dvc(project)


def test_a_batch_s_folder_linked_outside_is_refused(project, capsys, tmp_path):
    outside = tmp_path / "elsewhere"
    os.replace(project / BATCH, outside)
    (project / BATCH).symlink_to(outside)
    listed, merged = run_stages(project, capsys)
    for err in (listed, merged):
        one_line(err, "2026-01", "folder is a symbolic link")


def test_a_file_past_the_byte_limit_is_refused_before_it_is_read(project, capsys):
    big = project / BATCH / "decisions.csv"
    with big.open("wb") as fh:  # sparse: 2 GiB declared, nothing written
        fh.truncate(2 * sizes.GiB)
    listed, merged = run_stages(project, capsys)
    for err in (listed, merged):
        one_line(err, "decisions.csv", "more than 64 MiB")


def test_a_file_grown_since_the_walk_is_read_no_further_than_its_limit(tmp_path,
                                                                       monkeypatch):
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "decisions.csv").write_bytes(b"x" * 10)
    walk = batchfiles.walk_records(folder, "labels merge")
    monkeypatch.setattr(batchfiles, "MAX_RECORD_BYTES", 16)
    (folder / "decisions.csv").write_bytes(b"x" * 100)
    with pytest.raises(InputError, match="more than 16 bytes"):
        batchfiles.read_record(walk, "decisions.csv")


def sheet_with(columns: int, rows: int) -> bytes:
    header = ["url", "label", *(f"c{i}" for i in range(columns - 2))]
    return "\n".join([",".join(header)] + ["u,C.1"] * rows).encode() + b"\n"


def test_a_csv_wider_than_a_spreadsheet_is_refused_in_one_line(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_bytes(sheet_with(sizes.MAX_COLUMNS + 1, 1))
    with pytest.raises(InputError, match="16,385 cells, more than 16,384 columns") as caught:
        tables.read_table(path)
    assert caught.value.line == 1 and "wide.csv" in str(caught.value)
    path.write_bytes(sheet_with(sizes.MAX_COLUMNS, 1))
    assert len(tables.read_table(path).header) == sizes.MAX_COLUMNS


def test_a_csv_longer_than_a_spreadsheet_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "MAX_ROWS", 5)
    path = tmp_path / "long.csv"
    path.write_bytes(sheet_with(2, 4))
    assert len(tables.read_table(path).body) == 4
    path.write_bytes(sheet_with(2, 5))
    with pytest.raises(InputError, match="more than 5 rows"):
        tables.read_table(path)
    monkeypatch.setattr(tables, "MAX_CELLS", 7)
    path.write_bytes(sheet_with(2, 3))
    with pytest.raises(InputError, match="more than 7 cells"):
        tables.read_table(path)


def test_a_sheet_named_on_the_command_line_is_read_within_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "MAX_RECORD_BYTES", 8)
    path = tmp_path / "s.csv"
    path.write_bytes(sheet_with(2, 3))
    with pytest.raises(InputError, match="s.csv: holds more than 8 bytes"):
        tables.read_table(path)


def test_the_limits_live_in_one_place_and_the_docs_state_them():
    from analysis.core import workbooks

    assert (workbooks.MAX_ROW_CELLS, workbooks.MAX_SHEET_ROWS, workbooks.MAX_WORKBOOK_CELLS) \
        == (sizes.MAX_COLUMNS, sizes.MAX_ROWS, sizes.MAX_CELLS)
    doc = (Path(__file__).parents[3] / "docs" / "guarantees.md").read_text(encoding="utf-8")
    for stated in ("64 MiB", "512 MiB", "16,384 columns", "1,048,576 rows",
                   "5,000,000 cells"):
        assert stated in doc, stated


def test_merge_folder_reads_the_records_it_walked(project, taxonomy):
    out = project / "out"
    result = merge_folder(project / BATCH, out, set(taxonomy.codes))
    assert result.annotators == ["alice", "bob", "chen"] and out.is_dir()


def test_a_deeply_nested_sheets_record_is_no_traceback(project, taxonomy):
    (project / BATCH / "sheets" / "sheets.json").write_text("[" * 100_000, encoding="utf-8")
    result = merge_folder(project / BATCH, project / "out", set(taxonomy.codes))
    assert sorted(result.annotators) == ["alice", "bob", "chen"]
