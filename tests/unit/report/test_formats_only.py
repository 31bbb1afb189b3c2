"""The report package reads the stages' outputs and formats them; it computes nothing.

No statistics are called anywhere in ``src/analysis/report/`` (docs/website.md):
a number a page shows is written by a stage, where it is tested with the stage.
"""

from __future__ import annotations

import ast
from pathlib import Path

from analysis.core.paths import ROOT
from tests.support.sources import syntax_tree

REPORT = ROOT / "src" / "analysis" / "report"
STATISTICS = {"groupby", "value_counts", "crosstab", "pivot_table", "agg", "aggregate",
              "mean", "median"}


def statistics_called(source: str, name: str = "<source>") -> list[str]:
    """``file:line name()`` of every call of a statistic (a function or method named in
    :data:`STATISTICS`) in ``source``, by line."""
    found = []
    for node in ast.walk(syntax_tree(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if called in STATISTICS:
            found.append((node.lineno, f"{name}:{node.lineno} {called}()"))
    return [text for _, text in sorted(found)]


def test_the_report_package_calls_no_statistics():
    files = sorted(REPORT.rglob("*.py"))
    assert len(files) > 10
    found = [hit for path in files
             for hit in statistics_called(path.read_text(encoding="utf-8"),
                                          str(Path(path).relative_to(ROOT)))]
    assert not found, "compute these in the stage that writes the data:\n" + "\n".join(found)


def test_the_check_finds_statistics_and_only_calls():
    source = ("import pandas as pd\nx = df.groupby('a').size()\ny = pd.crosstab(a, b)\n"
              "z = df['a'].agg('sum').mean()\n# groupby in a comment\nw = 'median'\n"
              "mean_years = 1\n")
    assert statistics_called(source) == ["<source>:2 groupby()", "<source>:3 crosstab()",
                                         "<source>:4 agg()", "<source>:4 mean()"]
