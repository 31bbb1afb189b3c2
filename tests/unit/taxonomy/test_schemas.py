"""The taxonomy stage's table schemas (:mod:`analysis.taxonomy.schemas`); every CSV of a run is
validated against them as it is written (tests/unit/taxonomy/ test the outputs)."""

from __future__ import annotations

from analysis.core.columns import P, rel
from analysis.taxonomy.schemas import SCHEMAS
from tests.support.table_checks import column_accepts, declared_problems


def test_every_csv_the_stage_writes_is_declared_and_described():
    assert not declared_problems("taxonomy", SCHEMAS)


def test_a_column_checks_its_values():
    table = rel(P.taxonomy.table("types.csv"))
    assert column_accepts(SCHEMAS, table, "issues", 3)
    assert not column_accepts(SCHEMAS, table, "issues", -1)
