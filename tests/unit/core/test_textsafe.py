"""Unit tests of ``analysis.core.textsafe``."""

from __future__ import annotations

import pytest

from analysis.core.textsafe import neutralise_cell, visible


@pytest.mark.parametrize("cell,shown", [
    ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"), ("+cmd", "'+cmd"), ("-2+3", "'-2+3"),
    ("@SUM(A1)", "'@SUM(A1)"), ("\tx", "'\tx"), ("-12.5", "-12.5"), ("+1e3", "+1e3"),
    ("plain", "plain"), ("", ""),
])
def test_a_would_be_formula_gets_an_apostrophe_and_a_number_stays(cell, shown):
    assert neutralise_cell(cell) == shown


def test_hidden_characters_are_shown_as_markers():
    assert visible("a\u202eb\nc", keep="\n") == "a⟨U+202E⟩b\nc"
