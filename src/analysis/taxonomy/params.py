"""The settings of the taxonomy stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from analysis.core.params import DumpFile, StageParams


class TaxonomyParams(StageParams):
    section: ClassVar[str] = "taxonomy"
    detail_files: dict[str, DumpFile] = Field(description=(
        "issue type -> a file under data/raw, e.g. 'Bug: Issue Report/bug_symptoms.csv'"))
    item_split: Literal["comma", "parentheses"] = Field(description="'comma' or "
                                                                    "'parentheses'")
