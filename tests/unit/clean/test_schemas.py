"""The clean stage's table schemas (:mod:`analysis.clean.schemas`); every CSV of a run is
validated against them as it is written (tests/unit/clean/ test the outputs)."""

from __future__ import annotations

from analysis.clean.schemas import SCHEMAS
from analysis.core.columns import P, rel
from tests.support.table_checks import column_accepts, declared_problems


def test_every_csv_the_stage_writes_is_declared_and_described():
    assert not declared_problems("clean", SCHEMAS)


def test_a_column_checks_its_values():
    table = rel(P.clean.processed_file("exclusions.csv"))
    assert column_accepts(SCHEMAS, table, "recorded", True)
    assert not column_accepts(SCHEMAS, table, "recorded", "maybe")
