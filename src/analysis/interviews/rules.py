"""The interview stage's anomaly rules and vocabularies: what can be wrong in the released
interview files, what the stage does about it (:mod:`analysis.core.quality`), and the
values and column spellings it recognises.

Every anomaly the stage reports has a kind listed in :data:`RULES`; the quality report
(``quality.json`` of the stage) accounts for every row with them.
"""

from __future__ import annotations

from analysis.core.paths import PATHS
from analysis.core.quality import Rule, stage_rules

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
