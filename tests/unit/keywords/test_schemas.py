"""The keywords stage's table schemas (:mod:`analysis.keywords.schemas`); every CSV of a run is
validated against them as it is written (tests/unit/keywords/ test the outputs)."""

from __future__ import annotations

from analysis.core.columns import P, rel
from analysis.keywords.schemas import SCHEMAS
from tests.support.table_checks import column_accepts, declared_problems


def test_every_csv_the_stage_writes_is_declared_and_described():
    assert not declared_problems("keywords", SCHEMAS)


def test_a_column_checks_its_values():
    table = rel(P.keywords.table("audit.csv"))
    assert column_accepts(SCHEMAS, table, "kind", "exact_duplicate")
    assert not column_accepts(SCHEMAS, table, "kind", "typo")
