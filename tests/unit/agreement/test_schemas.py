"""The agreement stage's table schemas (:mod:`analysis.agreement.schemas`); every CSV of a run is
validated against them as it is written (tests/unit/agreement/ test the outputs)."""

from __future__ import annotations

from analysis.agreement.schemas import SCHEMAS
from analysis.core.columns import P, rel
from tests.support.table_checks import column_accepts, declared_problems


def test_every_csv_the_stage_writes_is_declared_and_described():
    assert not declared_problems("agreement", SCHEMAS)


def test_a_column_checks_its_values():
    table = rel(P.agreement.table("statistics.csv"))
    assert column_accepts(SCHEMAS, table, "statistic", "gwet_ac1")
    assert not column_accepts(SCHEMAS, table, "statistic", "cohen")
