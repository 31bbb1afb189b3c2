"""The two tiers of the suite, enforced.

`make test-fast` runs every test not marked `slow`; such a test may not run a notebook, a
DVC stage, the pipeline's driver or a site render, which take seconds to minutes each.
`forbid_slow_work` is installed around every fast test (tests/conftest.py): a fast test
that starts any of them fails at once with one line saying to mark it `slow`, so the fast
tier stays fast by construction rather than by care.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

# A program or module whose start means a notebook, a DVC stage, the driver or a render.
SLOW_PROGRAMS = re.compile(
    r"(?:^|[\s/])(?:dvc|quarto|papermill|jupyter(?:-[\w-]+)?|label-studio)(?=\s|$)"
    r"|-m\s+(?:dvc|papermill|ipykernel_launcher|ipykernel|nbconvert"
    r"|analysis\.tools\.(?:nbrun|repro|pipeline|fresh_clone)|analysis\.report)(?=\s|$)"
)

# In-process entry points that run the same work without a new process.
SLOW_CALLS = (
    ("papermill", "execute_notebook"),
    ("analysis.report.site", "render"),
    ("analysis.report.preview", "render_site"),
    ("dvc.repo", "Repo.reproduce"),
)


class SlowWorkInFastTest(Exception):
    """A test outside the `slow` tier started slow work."""


def command_text(args: str | Sequence) -> str:
    """The command a subprocess would run, as one string (argv joined by spaces)."""
    if isinstance(args, (str, bytes)):
        return args.decode() if isinstance(args, bytes) else args
    return " ".join(str(a) for a in args)


def is_slow_command(args: str | Sequence) -> bool:
    """Whether a subprocess command starts a notebook, DVC, the driver or a render."""
    return SLOW_PROGRAMS.search(command_text(args)) is not None


def refusal(what: str) -> str:
    return (f"a test outside the slow tier started {what}; mark it "
            "@pytest.mark.slow (make test-fast runs no notebook, DVC stage or render)")


@contextmanager
def forbid_slow_work(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within the block, starting a slow program or calling a slow entry point raises
    SlowWorkInFastTest instead."""
    original = subprocess.Popen._execute_child

    def guarded(self, args, *rest, **kwargs):
        if is_slow_command(args):
            raise SlowWorkInFastTest(refusal(command_text(args)[:200]))
        return original(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", guarded)
    for module_name, attribute in SLOW_CALLS:
        try:
            module = __import__(module_name, fromlist=["_"])
        except ImportError:
            continue
        owner_name, _, name = attribute.rpartition(".")
        owner = getattr(module, owner_name) if owner_name else module

        def refuse(*_args, _what=f"{module_name}.{attribute}", **_kwargs):
            raise SlowWorkInFastTest(refusal(_what))

        monkeypatch.setattr(owner, name, refuse)
    yield


def run_order(items: list, shared_runs: Sequence[str], long_fast: tuple[str, ...],
              is_slow) -> list:
    """The order a session runs ``items`` in: first one user of each shared pipeline run
    (the one with the fewest other fixtures, so that the workers start building the runs
    side by side at once), then the other slow tests, then the fast ones whose node id
    starts with one of ``long_fast`` (so that no worker is left running one of them alone
    at the end), then the rest; each group keeps the items' order."""
    first: list = []
    for name in shared_runs:
        users = [i for i in items if name in getattr(i, "fixturenames", ()) and i not in first]
        if users:
            first.append(min(users, key=lambda i: len(i.fixturenames)))
    rest = [i for i in items if i not in first]
    slow = [i for i in rest if is_slow(i)]
    fast = [i for i in rest if not is_slow(i)]
    long = [i for i in fast if i.nodeid.startswith(long_fast)]
    return first + slow + long + [i for i in fast if i not in long]
