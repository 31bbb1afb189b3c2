"""The keywords notebook as a stage, with and without the keyword file, in a temporary
project root laid out as :class:`~analysis.core.paths.Paths` names it."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.core import artifacts
from analysis.core.paths import PATHS, Paths

KEYWORDS_FILE = "filter_keywords"  # params.yaml keywords.keywords_file (in data/raw)
SOURCE = """a_keywords = ['llm', 'LLM', 'llm', 'yi', 'ChatGLM', 'text generationglm',
  "few shot", 'transformer', 'transformer decoder']
b_keywords = ('x', 'y' 'z')
"""


@pytest.mark.slow
@pytest.mark.parametrize("present", [True, False], ids=["with_file", "without_file"])
def test_keywords_notebook_with_and_without_the_file(tmp_path, present):
    from analysis.tools.nbrun import run

    root = tmp_path / "root"
    if present:
        Paths(root).raw.mkdir(parents=True)
        (Paths(root).raw / KEYWORDS_FILE).write_text(SOURCE, encoding="utf-8")
    stage = Paths(root).keywords
    assert run(PATHS.keywords.notebook_source, stage.notebook,
               {"root": str(root), "params": {"keywords_file": KEYWORDS_FILE}}) == 0
    rep = artifacts.read_json(stage.reproduced)
    variables = artifacts.read_json(stage.vars)
    if present:
        assert rep["keywords.count.a"]["value"] == 8
        audit = pd.read_csv(stage.table("audit.csv"))
        assert audit["kind"].str.contains("looks_merged").any()
        assert pd.read_csv(stage.table("counts.csv"))["distinct"].tolist() == [8, 2]
    else:
        assert rep == {} and variables["available"] == "no"
        assert pd.read_csv(stage.table("lists.csv")).empty
    for name in stage.TABLES:
        assert stage.table(name).is_file()
    assert artifacts.read_json(stage.metrics)["lists"] == (2 if present else 0)
    # every text reads in a sentence of the website: an empty list is "none"
    assert all(v != "" for v in variables.values())
