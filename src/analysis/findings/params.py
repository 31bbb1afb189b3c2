"""The settings of the findings stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from analysis.core.params import StageParams


class FindingsParams(StageParams):
    section: ClassVar[str] = "findings"
    dominant_share: Annotated[float, Field(gt=0, lt=100, description=(
        "a share in percent between 0 and 100, e.g. 50"))]
