"""The one error type for problems a user can cause and fix (bad input, wrong parameter).

Such errors end a run with a single readable message (which file, which line or row, what
is wrong, what to do) instead of a traceback. Everything else is a bug and keeps its
traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from typing import TypeVar

T = TypeVar("T")
LINE_BREAKS = str.maketrans({"\r": "\\r", "\n": "\\n"})


def one_line(text: str) -> str:
    """``text`` with line breaks shown as ``\\n``/``\\r``: data quoted into a message (a
    header cell, a value) may hold them, and the message must stay a single line."""
    return text.translate(LINE_BREAKS)


class InputError(Exception):
    """A problem with the input or the configuration that the user can fix.

    Parameters name where the problem is (``file``, ``line``/``row``, ``column``), what is
    wrong (``problem``) and what to do about it (``fix``).
    """

    def __init__(self, problem: str, *, file: str | None = None, line: int | None = None,
                 row: int | None = None, column: str | None = None,
                 fix: str | None = None) -> None:
        self.problem = one_line(problem)
        self.file = file
        self.line = line
        self.row = row
        self.column = column
        self.fix = one_line(fix) if fix else fix
        super().__init__(self.message)

    @property
    def where(self) -> str:
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column:
            parts.append(f"column {self.column!r}")
        return ", ".join(parts)

    @property
    def message(self) -> str:
        text = f"{self.where}: {self.problem}" if self.where else self.problem
        if self.fix:
            text += f" -> {self.fix}"
        return text


def os_problem(exc: OSError) -> InputError:
    """An operating-system error on a file the user named (unreadable, a folder where a
    file was expected, a folder that cannot be made) as one message naming the file."""
    return InputError(f"cannot read or write it ({exc.strerror or exc})",
                      file=exc.filename and str(exc.filename),
                      fix="check the path, its permissions and the free space")


def user_error_line(prog: str, exc: InputError | OSError) -> str:
    """What a command prints for a problem the user can fix, on one line: ``prog: `` and
    the message (an operating-system error as :func:`os_problem` words it)."""
    return f"{prog}: {os_problem(exc) if isinstance(exc, OSError) else exc}"


def run_command(prog: str, work: Callable[[], T], done: Callable[[T], int] | None = None, *,
                status: int = 1, errors: tuple[type[Exception], ...] = (InputError, OSError),
                errnos: Collection[int] | None = None) -> int:
    """A command line's exit status: ``work()`` run, then ``done`` told its result (without
    ``done`` the result is the status). A problem the user can fix that stops the work (one
    of ``errors``; an operating-system error only with one of ``errnos``, when they are
    given) is the line :func:`user_error_line` words, on stderr, and ``status``, instead of
    a traceback. ``done``, which says what was done, is outside: an error of its own is a
    bug, not the user's. The commands share this so that each ends the same way."""
    try:
        result = work()
    except errors as exc:
        if errnos is not None and isinstance(exc, OSError) and exc.errno not in errnos:
            raise
        print(user_error_line(prog, exc), file=sys.stderr)
        return status
    return done(result) if done else result
