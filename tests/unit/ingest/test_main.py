"""The command line of the ingest stage: user errors in one line, without a traceback;
the limits read from the params file."""

from __future__ import annotations

import os

from analysis.ingest import __main__ as cli
from tests.unit.ingest.sources import assert_untouched, flat_dump


def test_cli_reports_user_errors_without_traceback(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  source: http://example.org/x.zip\n")
    assert cli.main(["--params", str(params), "--out", str(tmp_path / "raw")]) == 1
    err = capsys.readouterr().err
    assert "only https" in err and "Traceback" not in err


def failed_run(tmp_path, source, out, capsys, extra: str) -> str:
    """What ingest's command line says when it refuses ``source`` (run here, from a
    scratch folder, as :func:`~tests.unit.ingest.sources.run_cli` runs it in a process of
    its own): its standard error."""
    params = tmp_path / "params.yaml"
    params.write_text(f"ingest:\n  source: {source}\n  manifest: null\n  commit: null\n{extra}")
    assert cli.main(["--params", str(params), "--out", str(out / "raw"),
                     "--provenance", str(out / "provenance.json")]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    return said.err


def test_max_files_is_read_from_params_and_checked(tmp_path, out, capsys, monkeypatch):
    src = flat_dump(tmp_path / "src", 3)
    (tmp_path / "scratch").mkdir()
    monkeypatch.chdir(tmp_path / "scratch")
    err = failed_run(tmp_path, src, out, capsys, extra="  max_files: 2\n")
    assert err == (f"ingest: {src}: source holds more than 2 files and folders "
                   "(ingest.max_files) -> check the source, or raise ingest.max_files in "
                   "params.yaml if it is genuine\n")
    err = failed_run(tmp_path, src, out, capsys, extra="  max_files: 0\n")
    params = tmp_path / "params.yaml"
    assert err == (f"ingest: {params}, column 'ingest.max_files': ingest.max_files is 0: it "
                   "must be a whole number of at least 1, e.g. 10000 (null: that default) -> "
                   f"set ingest.max_files in {params}\n")
    assert_untouched(out)
    assert os.listdir(tmp_path / "scratch") == []
