"""The settings of the clean stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from analysis.core.params import StageParams


class CleanParams(StageParams):
    section: ClassVar[str] = "clean"
    duplicates: Literal["keep", "first"] = Field(description="'keep' or 'first'")
