"""The interview stage's anomaly rules and vocabularies: what can be wrong in the released
interview files, what the stage does about it (:mod:`analysis.core.quality`), and the
values and column spellings it recognises.

Every anomaly the stage reports has a kind listed in :data:`RULES`; the quality report
(``quality.json`` of the stage) accounts for every row with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analysis.core.paths import PATHS
from analysis.core.quality import Anomaly, Rule, make_anomaly, stage_rules

# the curated taxonomy file as the stage's texts name it (relative to the project root)
TAXONOMY_FILE = PATHS.taxonomy_file.relative_to(PATHS.root).as_posix()

RULES: dict[str, Rule] = stage_rules("interviews")  # analysis/core/rules.yaml

TYPES = ("User", "Developer")
LEVELS = ("Beginner", "Intermediate", "Advanced")
GENDERS = ("Female", "Male")
# Columns whose values are personal and unpublished: anomalies name the spelling, not the row.
PRIVATE_COLUMNS = ("gender",)

# canonical name -> accepted header spellings (compared after
# :func:`analysis.interviews.normalise.header_key`)
BACKGROUND_COLUMNS = {
    "role": ("roles", "role"),
    "gender": ("gender", "sex"),
    "experience": ("experience years for llms", "experience years", "experience",
                   "years of experience"),
    "responsibilities": ("responsibilities", "responsibility"),
}
BACKGROUND_REQUIRED = ("role", "experience")
CODEBOOK_COLUMNS = {
    "participant": ("participant", "participant id", "id"),
    "type": ("type", "participant type"),
    "experience_level": ("experience level", "level"),
    "framework_context": ("framework context", "framework"),
    "prompt_category": ("prompt category", "category"),
    "quote": ("thematic quote", "quote"),
    "nodes": ("linked taxonomy node s", "linked taxonomy nodes", "linked nodes", "nodes"),
    "insight": ("research insight", "insight"),
}
CODEBOOK_REQUIRED = ("participant", "type", "nodes")


@dataclass
class Findings:
    """What cleaning one file (``rel``) found, in the order found: its anomalies (kinds of
    :data:`RULES`) and what it set aside, each with the reason."""

    rel: str
    anomalies: list[Anomaly] = field(default_factory=list)
    rejected: list[dict] = field(default_factory=list)

    def note(self, kind: str, message: str, line: int | None = None,
             column: str | None = None, value: object = None,
             flags: list[str] | None = None) -> None:
        """An anomaly of ``kind``; given a row's ``flags``, the row is flagged with it."""
        if flags is not None:
            flags.append(kind)
        self.anomalies.append(make_anomaly(RULES, kind, self.rel, message, line, column,
                                           value))

    def set_aside(self, line: int, column: str | None, value: str | None,
                  reason: str) -> None:
        """A row (or a value of one) left out, and why."""
        self.rejected.append({"file": self.rel, "line": line, "column": column,
                              "value": value, "reason": reason})
