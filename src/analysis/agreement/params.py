"""The settings of the agreement stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from analysis.core.params import WHOLE, StageParams


class AgreementParams(StageParams):
    section: ClassVar[str] = "agreement"
    bootstrap_resamples: Annotated[int, Field(ge=0, description=WHOLE)]
    seed: Annotated[int, Field(ge=0, description=WHOLE)]
    confidence_level: Annotated[float, Field(gt=0, lt=1, description=(
        "a number between 0 and 1, e.g. 0.95"))]
    ac1_categories: Literal["taxonomy"] | Annotated[int, Field(ge=2)] = Field(
        description="'taxonomy' or a whole number of at least 2 (the categories the "
                    "annotators used)")
