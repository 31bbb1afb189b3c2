"""The report's includes on a whole run: each reads only the artifacts it declares
(traced: every file it opens), and each is made from those alone."""

from __future__ import annotations

from analysis.report.pages import INCLUDES
from analysis.report.pages.base import write_includes
from tests.support.reads import undeclared_reads


def test_every_include_reads_only_its_declared_inputs(small_run):
    assert undeclared_reads(INCLUDES, small_run.project) == {}
    made = write_includes(INCLUDES, small_run.project)  # no UndeclaredInput
    missing = [name for name, text in made.items()
               if text.startswith("*Not available in this build")]
    assert not missing, f"inputs not written by a whole run: {missing}"
