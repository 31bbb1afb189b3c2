"""The one user-facing error type renders as a single line."""

from __future__ import annotations

from analysis.core.errors import InputError, user_error_line


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
