"""The settings of the interviews stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`)."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import Field, field_validator

from analysis.core.params import Settings, StageParams


class RoleCategory(Settings):
    """One role category of Section IV.A (``interviews.role_categories``)."""

    key: str = Field(description="a name, e.g. engineer")
    type: str | None = Field(None, description="a participant type, e.g. User, or null")
    pattern: str = Field(description="a regular expression, e.g. engineer")
    label: str | None = Field(None, description="a text, e.g. professional engineer")

    @field_validator("pattern")
    @classmethod
    def compiles(cls, pattern: str) -> str:
        """The pattern is matched as a regular expression: it must be one."""
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(str(exc)) from None
        return pattern

    @property
    def shown(self) -> str:
        """The category as the pages name it: its label, else its key."""
        return self.key if self.label is None else self.label


class InterviewsParams(StageParams):
    section: ClassVar[str] = "interviews"
    sheet: str | None = Field(description="a sheet name of the background workbook, or "
                                           "null for its first sheet")
    groups: dict[str, str] = Field(description="role prefix -> participant type, e.g. "
                                               "'LLM User: User'")
    translations: dict[str, str] = Field(description="word -> its English meaning")
    role_categories: list[RoleCategory] = Field(
        description="a list of categories, each with a key, a type, a pattern and a label")
