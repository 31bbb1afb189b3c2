"""A stage's declaration (:class:`analysis.core.pipeline.Stage`)."""

from __future__ import annotations

import pytest

from analysis.core.pipeline import Stage


def test_an_analysis_stage_writes_its_folders_its_notebook_and_its_metrics():
    stage = Stage("keywords", reads=("data/raw",), writes=("vars", "tables"))
    assert stage.command == "python -m analysis.tools.nbrun keywords"
    assert stage.entry_module == "tools.nbrun"
    assert stage.inputs() == ["notebooks/07_keywords.py", "data/raw"]
    assert stage.outputs() == ["report/tables/keywords", "report/vars/keywords.json",
                               "report/notebooks/07_keywords.ipynb"]
    assert stage.metrics() == ["metrics/keywords.json"]


def test_another_stage_gives_its_command_module_and_outputs():
    stage = Stage("fetch", notebook=False, cmd="python -m analysis.x", module="analysis.x",
                  reads=("a",), outs=("b",))
    assert (stage.command, stage.entry_module) == ("python -m analysis.x", "x")
    assert (stage.inputs(), stage.outputs(), stage.metrics()) == (["a"], ["b"], [])


def test_a_declaration_is_checked():
    with pytest.raises(ValueError, match="unknown output kinds"):
        Stage("x", writes=("tables", "plots"))
    with pytest.raises(ValueError, match="needs its cmd and module"):
        Stage("x", notebook=False, cmd="run")
