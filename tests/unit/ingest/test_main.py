"""The command line of the ingest stage: user errors in one line, without a traceback;
the limits read from the params file."""

from __future__ import annotations

from analysis.ingest import __main__ as cli
from tests.unit.ingest.sources import assert_untouched, flat_dump, run_cli


def test_cli_reports_user_errors_without_traceback(tmp_path, capsys):
    params = tmp_path / "params.yaml"
    params.write_text("ingest:\n  source: http://example.org/x.zip\n")
    assert cli.main(["--params", str(params), "--out", str(tmp_path / "raw")]) == 1
    err = capsys.readouterr().err
    assert "only https" in err and "Traceback" not in err


def test_max_files_is_read_from_params_and_checked(tmp_path, out):
    src = flat_dump(tmp_path / "src", 3)
    err, _ = run_cli(tmp_path, src, out, extra="  max_files: 2\n")
    assert err == (f"ingest: {src}: source holds more than 2 files and folders "
                   "(ingest.max_files) -> check the source, or raise ingest.max_files in "
                   "params.yaml if it is genuine\n")
    err, _ = run_cli(tmp_path, src, out, extra="  max_files: 0\n")
    params = tmp_path / "params.yaml"
    assert err == (f"ingest: {params}, column 'ingest.max_files': ingest.max_files is 0: it "
                   "must be a whole number of at least 1, e.g. 10000 (null: that default) -> "
                   f"set ingest.max_files in {params}\n")
    assert_untouched(out)
