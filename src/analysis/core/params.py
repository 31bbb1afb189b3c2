"""The run parameters, typed: one model a stage, its fields named as in ``params.yaml``.

A stage's notebook gets its section of params.yaml as injected values
(:mod:`analysis.tools.nbrun`) and builds its model from them once (``Model.of(...)``); the
model checks every value as it is built, and the stage passes it on, so a setting keeps its
params.yaml name down to the code that uses it (``params.confidence_level``, or a keyword
of that name). A wrong value is one message naming the setting, what it must be and where
to set it (:func:`setting_error`), instead of a traceback from deep in the stage; checks
that need the data (AC1's categories against the labels used, the detail files' types
against the taxonomy) stay with the code that has the data.
"""

from __future__ import annotations

import os
import re
from typing import Annotated, Any, ClassVar, Literal, Self, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from analysis.core.config import load_params
from analysis.core.dumpsafety import DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES
from analysis.core.errors import InputError
from analysis.core.paths import PATHS

PARAMS_FILE = PATHS.params.name
WHOLE = "a whole number of at least 0"


class Settings(BaseModel):
    """Checked settings: no conversion (a ``"5"`` is not 5, ``true`` is not a number), no
    unknown names, and no change after they are built."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")


class StageParams(Settings):
    """The settings of one stage: the section ``section`` of params.yaml."""

    section: ClassVar[str]

    @classmethod
    def of(cls, file: str = PARAMS_FILE, **values: Any) -> Self:
        """The settings from their values (as injected from ``file``), or the
        :class:`~analysis.core.errors.InputError` of the first wrong one."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise setting_error(cls, exc.errors()[0], file) from None

    @classmethod
    def load(cls, params_file: str | os.PathLike[str]) -> Self:
        """The settings of the section :attr:`section` of the params file ``params_file``
        (what a stage that is no notebook reads)."""
        values = load_params(params_file).get(cls.section) or {}
        if not isinstance(values, dict):
            raise InputError(f"the {cls.section} section is not a mapping",
                             file=str(params_file),
                             fix=f"see the {cls.section} section of the repository's "
                                 f"{PARAMS_FILE}")
        return cls.of(file=str(params_file), **{str(k): v for k, v in values.items()})


def setting_at(model: type[StageParams], loc: tuple) -> tuple[str, str]:
    """The setting a validation error's location names (``agreement.seed``,
    ``interviews.role_categories[2].pattern``) and what it must be (the description of the
    innermost field that has one). A union's member tags in ``loc`` are not part of the
    name."""
    name, must, kind = model.section, "", model
    for part in loc:
        origin = get_origin(kind)
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            if part not in kind.model_fields:
                break
            field = kind.model_fields[part]
            name, must, kind = f"{name}.{part}", field.description or must, field.annotation
        elif origin is list and isinstance(part, int):
            name, kind = f"{name}[{part}]", get_args(kind)[0]
        elif origin is dict:
            name, kind = f"{name}[{part!r}]", get_args(kind)[1]
        else:  # a union's member tag, or a name that is no setting
            break
    return name, must


def setting_error(model: type[StageParams], error: dict, file: str = PARAMS_FILE
                  ) -> InputError:
    """One pydantic validation error as the message of a wrong setting: its name, its
    value, what it must be, and where to set it."""
    name, must = setting_at(model, error["loc"])
    if error["type"] == "missing":
        problem = f"{name} is not set: it must be {must}"
    elif error["type"] == "extra_forbidden":
        name = f"{name}.{error['loc'][-1]}"
        problem = f"{name} is not a setting of this stage"
    else:
        problem = f"{name} is {error['input']!r}: it must be {must}"
        if error["type"] == "value_error":
            problem += f" ({error['ctx']['error']})"
    fix = (f"remove {name} from {file}" if error["type"] == "extra_forbidden"
           else f"set {name} in {file}")
    return InputError(problem, file=file, column=name, fix=fix)


# --------------------------------------------------------------------------- the stages


class IngestParams(StageParams):
    """The ``ingest`` section, read by ``python -m analysis.ingest`` and its ``fetch``
    (not a notebook: they build it from the params file they are given)."""

    section: ClassVar[str] = "ingest"
    source: Annotated[str, Field(min_length=1, description=(
        "a folder in the upstream layout, a .zip/.tar.gz archive or an https:// URL, e.g. "
        "data/release"))]
    manifest: str | None = Field(None, description="a sha256sum manifest, e.g. "
                                                   "data/release.sha256, or null")
    mirror: str | None = Field(None, description="a folder holding the release, or null")
    release_url: str | None = Field(None, description="the https:// URL of the release "
                                                      "archive, or null")
    commit: str | None = Field(None, description="an upstream commit id, or null")
    archive_sha256: str | None = Field(None, description="the archive's SHA-256 (64 hex "
                                                         "digits), or null")
    max_bytes: Annotated[int, Field(ge=1, description=(
        f"a whole number of at least 1, e.g. {DEFAULT_MAX_BYTES} (null: that default)"))] = (
        DEFAULT_MAX_BYTES)
    max_files: Annotated[int, Field(ge=1, description=(
        f"a whole number of at least 1, e.g. {DEFAULT_MAX_FILES} (null: that default)"))] = (
        DEFAULT_MAX_FILES)

    @field_validator("max_bytes", "max_files", mode="before")
    @classmethod
    def null_is_the_default(cls, value: object, info: ValidationInfo) -> object:
        """A limit set to null is its default."""
        return cls.model_fields[info.field_name].default if value is None else value


class CleanParams(StageParams):
    section: ClassVar[str] = "clean"
    duplicates: Literal["keep", "first"] = Field(description="'keep' or 'first'")


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


class AgreementParams(StageParams):
    section: ClassVar[str] = "agreement"
    bootstrap_resamples: Annotated[int, Field(ge=0, description=WHOLE)]
    seed: Annotated[int, Field(ge=0, description=WHOLE)]
    confidence_level: Annotated[float, Field(gt=0, lt=1, description=(
        "a number between 0 and 1, e.g. 0.95"))]
    ac1_categories: Literal["taxonomy"] | Annotated[int, Field(ge=2)] = Field(
        description="'taxonomy' or a whole number of at least 2 (the categories the "
                    "annotators used)")


class TaxonomyParams(StageParams):
    section: ClassVar[str] = "taxonomy"
    detail_files: dict[str, str] = Field(description=(
        "issue type -> a file under data/raw, e.g. 'Bug: Issue Report/bug_symptoms.csv'"))
    item_split: Literal["comma", "parentheses"] = Field(description="'comma' or "
                                                                    "'parentheses'")


class CompareParams(StageParams):
    section: ClassVar[str] = "compare"
    baseline: Annotated[str, Field(min_length=1, description=(
        "the name of a snapshot in data/baseline/, e.g. upstream-2fba316"))]


class KeywordsParams(StageParams):
    section: ClassVar[str] = "keywords"
    keywords_file: Annotated[str, Field(min_length=1, description=(
        "a file under data/raw, e.g. filter_keywords"))]


class FindingsParams(StageParams):
    section: ClassVar[str] = "findings"
    dominant_share: Annotated[float, Field(gt=0, lt=100, description=(
        "a share in percent between 0 and 100, e.g. 50"))]


STAGE_PARAMS: tuple[type[StageParams], ...] = (
    IngestParams, CleanParams, InterviewsParams, AgreementParams, TaxonomyParams, CompareParams,
    KeywordsParams, FindingsParams)
