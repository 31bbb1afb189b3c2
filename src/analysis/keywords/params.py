"""The settings of the keywords stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from analysis.core.params import DumpFile, StageParams


class KeywordsParams(StageParams):
    section: ClassVar[str] = "keywords"
    keywords_file: DumpFile = Field(description="a file under data/raw, e.g. filter_keywords")
