"""The interview stage's anomaly rules and vocabularies: what can be wrong in the released
interview files, what the stage does about it (:mod:`analysis.core.quality`), and the
values and column spellings it recognises.

Every anomaly the stage reports has a kind listed in :data:`RULES`; the quality report
(``quality.json`` of the stage) accounts for every row with them.
"""

from __future__ import annotations

from analysis.core.paths import PATHS
from analysis.core.quality import IGNORED, KEPT, SET_ASIDE, Rule

# the curated taxonomy file as the stage's texts name it (relative to the project root)
TAXONOMY_FILE = PATHS.taxonomy_file.relative_to(PATHS.root).as_posix()

RULES: dict[str, Rule] = {
    # both files
    "utf8_bom": Rule(KEPT, "info", "The file starts with a UTF-8 byte-order mark; removed."),
    "crlf_line_endings": Rule(KEPT, "info", "Windows (CRLF) line endings; normalised to LF."),
    "cr_line_endings": Rule(KEPT, "info", "Old Mac (CR) line endings; normalised to LF."),
    "whitespace": Rule(KEPT, "info", "Leading or trailing whitespace or line breaks around a "
                       "value, or a run of whitespace inside it; trimmed and collapsed (the "
                       "raw value is kept next to the normalised one)."),
    "missing_column": Rule(KEPT, "warning", "An optional column is absent; its values are "
                           "left empty."),
    "extra_column": Rule(IGNORED, "info", "A column the stage does not use; not read."),
    "blank_row": Rule(IGNORED, "info", "An empty row; not data."),
    "missing_value": Rule(KEPT, "warning", "An empty cell (outside any merged range); left "
                          "empty."),
    # background sheet
    "extra_sheet": Rule(IGNORED, "info", "The workbook has more than one sheet; only the "
                        "configured one (default: the first) is read."),
    "merged_cell_filled": Rule(KEPT, "info", "A cell inside a merged range is empty in the "
                               "file: a merged cell continues the one above, so it takes the "
                               "value of the range's first cell."),
    "spelling_variant": Rule(KEPT, "info", "A value spelled differently from its canonical "
                             "form (letter case, hyphenation); normalised, raw value kept."),
    "bilingual_text": Rule(KEPT, "info", "Non-English (CJK) words in a value; known words are "
                           "translated (interviews.translations), the raw value kept."),
    "untranslated_text": Rule(KEPT, "warning", "CJK text without a known translation; kept "
                              "as it is."),
    "experience_months": Rule(KEPT, "info", "Experience given in months (or years and "
                              "months); converted to years (months / 12)."),
    "experience_no_unit": Rule(KEPT, "warning", "Experience given as a bare number; read as "
                               "years."),
    "experience_unparsed": Rule(KEPT, "warning", "Experience that is not a number with a "
                                "unit; the years are left empty."),
    "unknown_group": Rule(KEPT, "warning", "The role does not start with a known group prefix "
                          "(interviews.groups); the participant's type is 'Unknown'."),
    "unknown_role_category": Rule(KEPT, "warning", "The role matches no pattern of "
                                  "interviews.role_categories; its category is 'other'."),
    "no_role": Rule(SET_ASIDE, "error", "A row with data but no role: the participant cannot "
                    "be placed in a group."),
    # codebook
    "malformed_row": Rule(SET_ASIDE, "error", "A codebook row whose number of fields differs "
                          "from the header's."),
    "missing_participant": Rule(SET_ASIDE, "error", "A codebook row without a participant "
                                "id."),
    "duplicate_participant": Rule(KEPT, "warning", "The same participant id on several rows; "
                                  "every row is kept."),
    "unknown_type": Rule(KEPT, "warning", "A participant type other than User or Developer; "
                         "kept as given."),
    "type_prefix_mismatch": Rule(KEPT, "warning", "The id's letter (U/D) disagrees with the "
                                 "Type column; the Type column is used."),
    "unknown_experience_level": Rule(KEPT, "warning", "An experience level other than "
                                     "Beginner, Intermediate or Advanced; kept as given."),
    "no_nodes": Rule(KEPT, "warning", "A participant linked to no taxonomy node."),
    "node_respelled": Rule(KEPT, "info", "A node code written differently from the taxonomy's "
                           "form (e.g. 'c.3', 'C3'); normalised to 'C.3'."),
    "node_malformed": Rule(SET_ASIDE, "error", "A linked node that is not a code like 'C.3'; "
                           "the link is set aside."),
    "duplicate_node": Rule(SET_ASIDE, "info", "The same node twice in one row; the repeat is "
                           "set aside."),
    "node_not_in_taxonomy": Rule(KEPT, "warning", "A well-formed node code that "
                                 f"{TAXONOMY_FILE} does not have. Kept and shown apart: it may "
                                 "be a category the interviews added (Section IV.C reports "
                                 "new categories suggested by interviewees)."),
    # across files
    "no_shared_key": Rule(KEPT, "info", "The background sheet and the codebook share no "
                          "participant id and their row orders do not line up; the files are "
                          "not joined, only group sizes are compared."),
    "group_size_mismatch": Rule(KEPT, "warning", "The background sheet and the codebook count "
                                "different numbers of participants in a group."),
    # guideline
    "raw_html": Rule(KEPT, "info", "Raw HTML in the guideline; '<' is escaped so it shows as "
                     "text."),
}

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
