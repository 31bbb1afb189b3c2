"""The settings of the ingest stage: its section of ``params.yaml``, typed and checked
(:mod:`analysis.core.params`); read by ``python -m analysis.ingest`` and its ``fetch``
(not a notebook: they build it from the params file they are given)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field, ValidationInfo, field_validator

from analysis.core.dumpsafety import DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES
from analysis.core.params import StageParams


class IngestParams(StageParams):
    section: ClassVar[str] = "ingest"
    source: Annotated[str, Field(min_length=1, description=(
        "a folder in the upstream layout, a .zip/.tar.gz archive or an https:// URL, e.g. "
        "data/release"))]
    manifest: str | None = Field(None, description="a sha256sum manifest, e.g. "
                                                   "data/release.sha256, or null")
    mirror: str | None = Field(None, description="a folder holding the release, or null")
    release_url: str | None = Field(None, description="the https:// URL of the release "
                                                      "archive, or null")
    swh_directory: str | None = Field(None, pattern=r"^swh:1:dir:[0-9a-f]{40}$", description=(
        "the SWHID of the release's directory, swh:1:dir:<40 hex digits>, or null"))
    swh_revision: str | None = Field(None, pattern=r"^swh:1:rev:[0-9a-f]{40}$", description=(
        "the SWHID of the release's commit, swh:1:rev:<40 hex digits>, or null"))
    swh_api: str | None = Field(None, description="the https:// URL of Software Heritage's "
                                                  "web API, or null")
    swh_wait: Annotated[float, Field(ge=0, description=(
        "seconds to wait for Software Heritage's vault, e.g. 600"))] = 600.0
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
