"""The one user-facing error type renders as a single line."""

from __future__ import annotations

import errno

import pytest

from analysis.core.errors import InputError, run_command, user_error_line


def test_message_names_place_problem_and_fix():
    exc = InputError("unknown label 'C.99'", file="a.csv", line=3, column="Label2",
                     fix="use a code from data/taxonomy.yaml")
    assert str(exc) == ("a.csv, line 3, column 'Label2': unknown label 'C.99' -> "
                        "use a code from data/taxonomy.yaml")


def test_line_breaks_from_the_data_stay_on_one_line():
    exc = InputError("missing column(s) (header: a\nb\r\nc)", file="x.csv", line=1)
    assert "\n" not in str(exc) and "\r" not in str(exc)
    assert exc.problem == "missing column(s) (header: a\\nb\\r\\nc)"


def test_a_command_prints_a_user_error_on_one_line_after_its_name():
    exc = InputError("no such column", file="a.csv", fix="add it")
    assert user_error_line("select", exc) == "select: a.csv: no such column -> add it"
    denied = PermissionError(13, "Permission denied", "out/x.csv")
    assert user_error_line("merge", denied) == (
        "merge: out/x.csv: cannot read or write it (Permission denied) -> check the path, "
        "its permissions and the free space")


def fails(exc: Exception):
    def work():
        raise exc
    return work


def test_a_command_ends_a_user_error_with_its_line_and_status(capsys):
    assert run_command("select", lambda: 0) == 0
    assert run_command("release", lambda: "out.zip", lambda target: len(target)) == 7
    assert run_command("select", fails(InputError("bad", file="a.csv"))) == 1
    assert capsys.readouterr().err == "select: a.csv: bad\n"
    denied = PermissionError(errno.EACCES, "Permission denied", "x")
    assert run_command("report", fails(denied), status=2, errnos=(errno.EACCES,)) == 2
    assert capsys.readouterr().err.startswith("report: x: cannot read or write it")


def test_a_command_keeps_the_traceback_of_what_is_not_the_users():
    with pytest.raises(FileNotFoundError):
        run_command("report", fails(FileNotFoundError(errno.ENOENT, "gone")),
                    errnos=(errno.EACCES,))
    with pytest.raises(OSError):
        run_command("release", fails(OSError("disk")), errors=(InputError,))
    with pytest.raises(KeyError):  # what is done with the result is not guarded
        run_command("select", lambda: 1, lambda n: {}[n])
