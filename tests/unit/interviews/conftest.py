"""Fixtures of the interviews unit tests: the synthetic files, read, cleaned, computed."""

from __future__ import annotations

import pytest

from analysis.interviews.read import read_release
from tests.support.stages import interviews_result
from tests.unit.interviews.synthetic import PARAMS, write_inputs


@pytest.fixture
def inputs(tmp_path):
    """Paths of the synthetic codebook, background workbook and guideline."""
    return write_inputs(tmp_path / "raw")


@pytest.fixture
def files(inputs):
    return read_release(inputs[0].parent, PARAMS.sheet)


@pytest.fixture
def result(files, taxonomy):
    return interviews_result(files, taxonomy, PARAMS)


@pytest.fixture
def data(result):
    return result.data
