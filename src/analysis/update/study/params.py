"""The settings of the study's stages: the ``study`` section of ``params.yaml``, the list
of the team's batches (their records are ``labels/<batch>/``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Annotated, ClassVar

from pydantic import AfterValidator, Field, field_validator

from analysis.core.params import StageParams
from analysis.core.paths import PATHS, ROOT
from analysis.update.labels.extend import RELEASE
from analysis.update.labels.records import NAME_RE, NAME_RULE


def batch_name(value: str) -> str:
    """A batch's name: the name of its records' folder, a plain name, never ``release``
    (the name of the release's rows)."""
    if not NAME_RE.fullmatch(value) or value == RELEASE:
        raise ValueError(f"not a plain name of a folder of labels/ ({NAME_RULE}), nor "
                         "'release'")
    return value


def no_repeats(values: list[str]) -> list[str]:
    """The same batch twice would extend the study with it twice."""
    twice = sorted({v for v in values if values.count(v) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} listed twice")
    return values


class StudyParams(StageParams):
    section: ClassVar[str] = "study"
    batches: Annotated[list[Annotated[str, AfterValidator(batch_name)]],
                       AfterValidator(no_repeats), Field(description=(
                           "a list of batch names, each a folder of labels/, e.g. "
                           "[2026-01, 2026-02]; [] for the release alone"))] = []

    @field_validator("batches", mode="before")
    @classmethod
    def null_is_none(cls, value: object) -> object:
        """``batches:`` left empty is no batch."""
        return [] if value is None else value


def add_params_option(parser: argparse.ArgumentParser, reads: str) -> None:
    """A study command's ``--params`` option; ``reads`` names the sections it reads."""
    parser.add_argument("--params", default=str(PATHS.params), metavar="FILE",
                        help=f"params file ({reads}) (default: %(default)s)")


def listed_batches(params: str) -> tuple[Path, list[str]]:
    """The project a study command works in (the folder of the params file ``params``:
    the other paths it is given are relative to it) and the batches ``study.batches``
    lists there, so that a command run on another checkout's params reads that checkout.
    A list that is not valid is an :class:`~analysis.core.errors.InputError`."""
    root = Path(params).resolve().parent if params else ROOT
    return root, StudyParams.load(params).batches
