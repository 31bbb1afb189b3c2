"""The table1 stage's table schemas (:mod:`analysis.table1.schemas`); every CSV of a run is
validated against them as it is written (tests/unit/table1/ test the outputs)."""

from __future__ import annotations

from analysis.core.columns import P, rel
from analysis.table1.schemas import SCHEMAS
from tests.support.table_checks import column_accepts, declared_problems


def test_every_csv_the_stage_writes_is_declared_and_described():
    assert not declared_problems("table1", SCHEMAS)


def test_a_column_checks_its_values():
    table = rel(P.table1.table("false_positives.csv"))
    assert column_accepts(SCHEMAS, table, "false_positive_percent", 12.5)
    assert not column_accepts(SCHEMAS, table, "false_positive_percent", 120)
