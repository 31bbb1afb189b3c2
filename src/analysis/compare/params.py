"""The settings of the compare stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from analysis.core.params import WHOLE, PlainName, StageParams


class CompareParams(StageParams):
    section: ClassVar[str] = "compare"
    baseline: PlainName = Field(description=(
        "the name of a snapshot in data/baseline/ (without .json), e.g. upstream-2fba316"))
    resamples: Annotated[int, Field(ge=100, description=(
        "a whole number of at least 100, e.g. 10000"))]
    seed: Annotated[int, Field(ge=0, description=WHOLE)]
