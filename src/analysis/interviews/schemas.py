"""Pandera schemas of the CSVs the interviews stage writes: the participants, the codebook,
its links to the taxonomy, the quotes and the roles; and the processed files
(:data:`SCHEMAS`, checked as they are written; see :mod:`analysis.core.columns`).
"""

from __future__ import annotations

import pandera.pandas as pa

from analysis.core.columns import (
    P,
    TableSchemas,
    count,
    decimal,
    percent,
    table,
    text,
    yes_no,
)

PARTICIPANT_TYPE = ("`User` (LLM user) or `Developer` (DL framework developer), from the "
                    "role's prefix (interviews.groups in params.yaml); `Unknown` when no "
                    "prefix matches")
CODEBOOK_TYPE = ("`User` or `Developer`, as the codebook gives it (spelled canonically); "
                 "another value is kept as written")


PARTICIPANT = ("the participant id as in the codebook (U1, U2 ... for users, D1 ... for "
               "developers)")
NODE = ("a taxonomy node linked in the codebook, normalised to a code such as C.3 (a code "
        "the taxonomy lacks, e.g. C.11, is kept)")
LEVEL_WORDS = ("the participant's experience level: Beginner, Intermediate or Advanced "
               "(canonical spelling; another value kept as written); empty when blank")
CONTEXT = ("the frameworks and hardware the participant works with (e.g. PyTorch + NVIDIA "
           "GPU); empty when blank")
PROMPT = "the interview topic the quote answers (e.g. Installation & Onboarding)"
QUOTE = "the participant's thematic quote"
INSIGHT = "the researchers' insight drawn from the quote"
ROLE_KEY = ("the role category of Section IV.A (the `key` of interviews.role_categories in "
            "params.yaml, e.g. student); `other` when no pattern matches")
ROLE_LABEL = ("the role category in words (its `label` in interviews.role_categories, e.g. "
              "professional engineer); `other` when no pattern matches")
NODE_TYPE = ("the node's issue type from its letter in data/taxonomy.yaml (A Question, "
             "B Requirement, C Bug); empty for an unknown letter")
THEME_NAME = "the theme's name; empty for a node outside the taxonomy"


def _codebook_columns(*names: str) -> dict[str, pa.Column]:
    """The codebook's columns about a participant and a quote (all, or those ``names``), as
    the codebook, quotes and nodes tables repeat them."""
    columns = {"participant": text(PARTICIPANT), "type": text(CODEBOOK_TYPE),
               "experience_level": text(LEVEL_WORDS, nullable=True),
               "framework_context": text(CONTEXT, nullable=True),
               "prompt_category": text(PROMPT, nullable=True),
               "quote": text(QUOTE, nullable=True), "insight": text(INSIGHT, nullable=True)}
    return {name: columns[name] for name in names or columns}


PARTICIPANTS = table(
    P.interviews.table("participants.csv"),
    "The interview participants of "
    "the background sheet (Interviewee Background.xlsx) as published: no gender, "
    "gender-neutral responsibilities.", {
        "sheet_row": count("the participant's row number in the background "
                           "sheet", low=1),
        "type": text(PARTICIPANT_TYPE),
        "role": text("the role without its group prefix, translated and spelled "
                     "consistently (e.g. Software Engineer)"),
        "role_category": text(ROLE_LABEL),
        "experience": text("years of LLM experience as the sheet writes them "
                           "(whitespace tidied); empty when blank", nullable=True),
        "experience_years": decimal("that experience in years (months "
                                    "converted: 8 months = 0.67), rounded to 2 "
                                    "decimals; empty when it cannot be read"),
        "responsibilities": text("the participant's responsibilities, gendered "
                                 "pronouns made neutral; empty when blank",
                                 nullable=True),
    })


_YEARS = "years of LLM experience in the group, rounded to 4 decimals; empty when none " \
        "can be read"
GROUPS = table(
    P.interviews.table("groups.csv"),
    "Participants and their years of LLM "
    "experience per type and role category (Section IV.A).", {
        "type": text(PARTICIPANT_TYPE),
        "role_category": text(ROLE_KEY),
        "label": text(ROLE_LABEL),
        "participants": count("participants of this type and category"),
        "years_min": decimal(f"the fewest {_YEARS}"),
        "years_mean": decimal(f"the mean {_YEARS}"),
        "years_max": decimal(f"the most {_YEARS}"),
        "roles": text("the distinct roles of the group, separated by `; `",
                      nullable=True),
    })


CODEBOOK = table(
    P.interviews.table("codebook.csv"),
    "The interview codebook "
    "(CodeBook.csv) as the website shows it: one row per participant.", {
        **_codebook_columns("participant", "type", "experience_level",
                            "framework_context", "prompt_category"),
        "nodes": text("the taxonomy nodes the quote is linked to, normalised "
                      "(e.g. A.1, B.1) and separated by `, `; empty when none",
                      nullable=True),
        **_codebook_columns("quote", "insight"),
    })


# Participant ids are letters and a number (U1, D3, P-12), the form the interviews
# module sorts them by (:func:`analysis.interviews.codebook.participant_sort_key`); the
# pipeline's own column names never end in a number.
MATRIX = table(
    P.interviews.table("matrix.csv"),
    "Which participant linked which "
    "taxonomy node: a node x participant 0/1 matrix.", {
        "node": text("the node: every theme code of the taxonomy, then the "
                     "codes the codebook links that the taxonomy lacks (e.g. "
                     "C.11)"),
        r"^[A-Za-z]*[-_ ]?\d+$": count("one column per codebook participant (U1, U2 "
                                "... users, then D1 ... developers): 1 if the "
                                "participant linked the node, 0 if not",
                                regex=True, high=1),
    })


THEME_COUNTS = table(
    P.interviews.table("theme_counts.csv"),
    "How many users and developers "
    "linked each node, and as a percentage of their group.", {
        "node": text(NODE),
        "theme": text(THEME_NAME, nullable=True),
        "issue_type": text(NODE_TYPE, nullable=True),
        "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
        "users": count("codebook users who linked the node"),
        "users_percent": percent("users as a percentage of all codebook users, "
                                 "rounded to 2 decimals (0-100); empty when "
                                 "there are no users", nullable=True),
        "developers": count("codebook developers who linked the node"),
        "developers_percent": percent("developers as a percentage of all "
                                      "codebook developers, rounded to 2 "
                                      "decimals (0-100); empty when there are "
                                      "no developers", nullable=True),
        "total": count("users + developers"),
    })


QUOTES = table(
    P.interviews.table("quotes.csv"),
    "Every quote under every node it is "
    "linked to (a quote with three nodes appears three times), in taxonomy "
    "order.", {
        "node": text(NODE),
        "node_label": text("the node code and theme name (e.g. A.1 Unclear "
                           "Installation Guidance), or the code and `(not in "
                           "taxonomy)`"),
        "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
        **_codebook_columns(),
    })


GUIDELINE_QUESTIONS = table(
    P.interviews.table("guideline_questions.csv"),
    "The questions of the "
    "interview guideline (Interview GuideLine.md).", {
        "part": text("the guideline part: the numeral of its `Part` heading "
                     "(e.g. I)"),
        "part_title": text("the part's title", nullable=True),
        "audience": text("who is asked: `All`, or the audience of a `For ...:` "
                         "heading (e.g. LLM Users)"),
        "number": count("the question's number within its part and audience "
                        "(1 = first)", low=1),
        "question": text("the question's text (an indented example list under "
                         "it appended)", nullable=True),
    })


_RAW = "as written in the sheet; empty when blank or filled from a merged cell"
BACKGROUND_PROCESSED = table(
    P.interviews.processed_file("background.csv"),
    "The background sheet cleaned: "
    "one row per participant, each value as written and normalised (processed "
    "data; genders are never published).", {
        "sheet_row": count("the participant's row number in the sheet", low=1),
        "type": text(PARTICIPANT_TYPE),
        "role_raw": text(f"the role cell {_RAW}", nullable=True),
        "role": text("the role, trimmed and translated (e.g. LLM User-Software "
                     "Engineer)"),
        "role_title": text("the role without its group prefix, spelled "
                           "consistently (e.g. Software Engineer)",
                           nullable=True),
        "role_category": text(ROLE_KEY),
        "role_category_label": text(ROLE_LABEL),
        "gender_raw": text(f"the gender cell {_RAW}", nullable=True),
        "gender": text("the gender in canonical spelling (Female or Male), "
                       "another value as written; empty when blank. Never shown "
                       "on the website", nullable=True),
        "experience_raw": text(f"the experience cell {_RAW}", nullable=True),
        "experience": text("the experience cell, whitespace tidied; empty when "
                           "blank", nullable=True),
        "experience_years": decimal("that experience in years (months "
                                    "converted), not rounded; empty when it "
                                    "cannot be read"),
        "responsibilities_raw": text(f"the responsibilities cell {_RAW}",
                                     nullable=True),
        "responsibilities": text("the responsibilities, whitespace tidied "
                                 "(pronouns as written); empty when blank",
                                 nullable=True),
        "flags": text("the anomalies noted on this row (rules of "
                      "analysis.interviews.rules.RULES such as whitespace or "
                      "experience_months), separated by `;`; empty when none",
                      nullable=True),
    })


CODEBOOK_PROCESSED = table(
    P.interviews.processed_file("codebook.csv"),
    "The codebook cleaned: one row per "
    "participant, with its linked nodes normalised.", {
        **_codebook_columns(),
        "nodes": text("the linked nodes kept, normalised and separated by `, `; "
                      "empty when none", nullable=True),
        "nodes_raw": text("the linked-nodes cell as written", nullable=True),
        "n_nodes": count("linked nodes kept"),
        "line": count("the row's line in CodeBook.csv", low=1),
        "flags": text("the anomalies noted on this row (rules of "
                      "analysis.interviews.rules.RULES such as "
                      "node_not_in_taxonomy), "
                      "separated by `;`; empty when none", nullable=True),
    })


NODES_PROCESSED = table(
    P.interviews.processed_file("nodes.csv"),
    "One row per participant and linked "
    "taxonomy node of the codebook, in taxonomy order.", {
        **_codebook_columns("participant", "type", "experience_level"),
        "node": text(NODE),
        "node_raw": text("the node as written in the codebook"),
        "in_taxonomy": yes_no("whether the node is a theme of data/taxonomy.yaml"),
        "theme": text(THEME_NAME, nullable=True),
        "issue_type": text(NODE_TYPE, nullable=True),
        "line": count("the row's line in CodeBook.csv", low=1),
    })


REJECTED_PROCESSED = table(
    P.interviews.processed_file("rejected.csv"),
    "Rows of the interview files and "
    "node links set aside, with the reason.", {
        "file": text("the file: the codebook (CodeBook.csv) or the background "
                     "sheet"),
        "line": count("the row's line (sheet row) in that file", low=1),
        "column": text("the column at fault (role, participant or nodes); empty "
                       "for a malformed row", nullable=True),
        "value": text("the value set aside (a node as written); empty when the "
                      "whole row is", nullable=True),
        "reason": text("why: `no_role`, `malformed_row` (wrong number of "
                       "fields), `missing_participant`, `node_malformed` (not a "
                       "code like C.3) or `duplicate_node` (the same node twice "
                       "in a row)",
                       words=("no_role", "malformed_row", "missing_participant",
                              "node_malformed", "duplicate_node")),
    })


ROLES = table(
    P.interviews.table("roles.csv"),
    "One row per distinct role of the background sheet: its category under "
    "interviews.role_categories, and every category whose pattern it matches.", {
        "type": text(PARTICIPANT_TYPE),
        "role_raw": text("the role as the sheet spells it"),
        "role_title": text("the role after translation and normalisation, "
                           "without its group prefix"),
        "participants": count("participants with this role"),
        "category": text("the category it gets (the first matching pattern; "
                         "`other` when none)"),
        "matching": text("every category whose pattern matches the role, "
                         "separated by `, `; empty when none", nullable=True),
    })


ROLE_MAPPINGS = table(
    P.interviews.table("role_mappings.csv"),
    "Every assignment of participants to the categories their role matches "
    "(one row per mapping and category): the counts of Section IV.A each "
    "gives.", {
        "mapping": count("the mapping's number (0: the one used, each role's "
                         "first match)"),
        "description": text("the roles assigned differently from mapping 0; "
                            "empty for mapping 0", nullable=True),
        "category": text("a role category key"),
        "participants": count("participants in that category under the "
                              "mapping"),
    })


ROLE_CLAIMS = table(
    P.interviews.table("role_claims.csv"),
    "Per claim of Section IV.A that counts participants of role categories: "
    "the paper's count, ours, and which readings of the roles give the paper's "
    "count.", {
        "claim_id": text("the claim's id in data/claims.yaml"),
        "paper": text("the paper's count with its comparator (e.g. `>1`)"),
        "ours": count("our count: the reading used (each role's first matching "
                      "category)"),
        "possible": text("every count the readings give, separated by `, `"),
        "readings": text("the readings that give the paper's count: `the one "
                         "used`, the roles assigned otherwise (as in "
                         "role_mappings.csv), or `none`"),
    })


SCHEMAS = TableSchemas.of(
    BACKGROUND_PROCESSED,
    CODEBOOK_PROCESSED,
    NODES_PROCESSED,
    REJECTED_PROCESSED,
    PARTICIPANTS,
    GROUPS,
    CODEBOOK,
    MATRIX,
    THEME_COUNTS,
    QUOTES,
    GUIDELINE_QUESTIONS,
    ROLES,
    ROLE_MAPPINGS,
    ROLE_CLAIMS)
