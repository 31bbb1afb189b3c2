"""The settings of the compare stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from analysis.core.params import PlainName, StageParams


class CompareParams(StageParams):
    section: ClassVar[str] = "compare"
    baseline: PlainName = Field(description=(
        "the name of a snapshot in data/baseline/ (without .json), e.g. upstream-2fba316"))
