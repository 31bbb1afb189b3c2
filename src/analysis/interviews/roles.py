"""How the free-text roles of the background sheet become the categories of Section IV.A,
and what other readings of them would count.

The sheet gives each participant a role in words ("LLM Inference and Deployment
Engineer"); the paper counts categories ("two for inference", "one developer working on
LLM deployment optimization"). ``interviews.role_categories`` in params.yaml maps a role to
the first category whose pattern it matches. A role can match several patterns, so the
counts depend on that order: :func:`role_claims` says, for every claim of Section IV.A that
counts a role category, which readings of the roles, if any, give the paper's count. Also
here: the planned length of a session, from the guideline (:func:`session_minutes`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pandas as pd

from analysis.core.claims import judge, paper_statement
from analysis.interviews.params import RoleCategory

ROLE_COLUMNS = ["type", "role_raw", "role_title", "participants", "category", "matching"]
MAPPING_COLUMNS = ["mapping", "description", "category", "participants"]
ROLE_CLAIM_COLUMNS = ["claim_id", "paper", "ours", "possible", "readings", "by_reading"]
# The claims of Section IV.A that count participants of role categories (the keys of
# interviews.role_categories in params.yaml), and the categories each counts.
ROLE_CLAIMS = {
    "interviews.users.engineers.count": ("engineer",),
    "interviews.users.students.count": ("student",),
    "interviews.developers.managers.count": ("manager",),
    "interviews.developers.feature_engineers.count": ("training", "inference"),
    "interviews.developers.training.count": ("training",),
    "interviews.developers.inference.count": ("inference",),
    "interviews.developers.deployment.count": ("deployment",),
}
MAX_MAPPINGS = 10_000  # beyond this, only the first MAX_MAPPINGS assignments are listed
_MINUTES_RE = re.compile(r"(\d+)\s*(?:[–—-]|to)\s*(\d+)\s*min(?:ute)?s?\b", re.IGNORECASE)


def matching_categories(title: str, ptype: str, role_categories: list[RoleCategory]
                        ) -> list[str]:
    """Every category key (in params order) whose pattern matches the role ``title`` and
    whose type is the participant's."""
    return [c.key for c in role_categories if c.type in (None, ptype)
            and re.search(c.pattern, title, flags=re.IGNORECASE)]


def role_table(background: pd.DataFrame, role_categories: list[RoleCategory]
               ) -> pd.DataFrame:
    """One row per distinct role (:data:`ROLE_COLUMNS`): how many participants have it, the
    category it gets and every category it matches."""
    if background.empty:
        return pd.DataFrame(columns=ROLE_COLUMNS)
    groups = background.groupby(["type", "role_raw", "role_title", "role_category"],
                                sort=True, dropna=False).size()
    rows = [{"type": t, "role_raw": raw, "role_title": title, "participants": int(n),
             "category": cat,
             "matching": ", ".join(matching_categories(str(title), str(t), role_categories))}
            for (t, raw, title, cat), n in groups.items()]
    return pd.DataFrame(rows, columns=ROLE_COLUMNS)


def compositions(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """Every way to split ``n`` participants among ``k`` categories (ordered counts),
    the all-in-the-first one first."""
    if k == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in compositions(n - first, k - 1):
            yield (first, *rest)


def role_mappings(roles: pd.DataFrame, keys: list[str],
                  limit: int = MAX_MAPPINGS) -> pd.DataFrame:
    """The counts per category (``keys``, plus any other category the roles get) of every
    assignment of each role's participants to the categories the role matches; mapping 0
    is the one used (each role's first match). Long format (:data:`MAPPING_COLUMNS`); at
    most ``limit`` mappings."""
    matched = [x for m in roles["matching"].astype(str) for x in m.split(", ") if x]
    all_keys = list(dict.fromkeys([*keys, *roles["category"].astype(str), *matched]))
    choices = []
    for r in roles.itertuples(index=False):
        options = [x for x in str(r.matching).split(", ") if x] or [str(r.category)]
        if str(r.category) in options:  # the used category first, so mapping 0 is the used one
            options.remove(str(r.category))
            options.insert(0, str(r.category))
        choices.append([(r.role_title, options, split)
                        for split in compositions(int(r.participants), len(options))])
    rows = []
    for number, combo in enumerate(itertools.islice(itertools.product(*choices), limit)):
        counts = dict.fromkeys(all_keys, 0)
        changed = []
        for title, options, split in combo:
            for key, n in zip(options, split, strict=True):
                counts[key] += n
            if split[0] != sum(split):
                changed.append(f"{title}: " + ", ".join(
                    f"{n} {key}" for key, n in zip(options, split, strict=True) if n))
        desc = "; ".join(changed)
        rows += [{"mapping": number, "description": desc, "category": k, "participants": v}
                 for k, v in counts.items()]
    return pd.DataFrame(rows, columns=MAPPING_COLUMNS)


def reading_counts(mappings: pd.DataFrame, keys: tuple[str, ...]) -> pd.Series:
    """mapping -> the participants of the categories ``keys`` under that reading of the
    roles (``mappings``: :func:`role_mappings`)."""
    mine = mappings[mappings["category"].isin(keys)]
    return (mine.groupby("mapping")["participants"].sum()
            .reindex(mappings["mapping"].drop_duplicates(), fill_value=0).astype(int))


def readings_note(mappings: pd.DataFrame, keys: tuple[str, ...]) -> str:
    """What a count of the categories ``keys`` is under each reading of the roles, and
    which reading the verdict uses (reading 1: each role in its first matching category);
    empty when every reading gives the same count."""
    counts = reading_counts(mappings, keys)
    if counts.nunique() <= 1:
        return ""
    desc = (mappings.drop_duplicates("mapping").set_index("mapping")["description"]
            .fillna("").astype(str))
    parts = [f"reading {m + 1}, " + ("the verdict's (each role in its first matching "
                                      "category)" if m == 0 else desc.get(m, ""))
             + f": {int(n)}" for m, n in counts.items()]
    return (f"the count depends on how the sheet's roles are read ({len(counts)} "
            "readings; the verdict uses reading 1): " + "; ".join(parts))


def role_claims(mappings: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """For every role claim of :data:`ROLE_CLAIMS` that ``claims`` holds
    (:data:`ROLE_CLAIM_COLUMNS`): the paper's count with its comparator, ours (mapping 0),
    the counts the readings of the roles give (``mappings``: :func:`role_mappings`), the
    readings that give the paper's count: those for which the claim's own verdict
    (:func:`~analysis.core.claims.judge`) would be exact, and the count under each reading
    in the mappings' order (``by_reading``)."""
    by_id = claims.set_index("claim_id")
    desc = mappings.drop_duplicates("mapping").set_index("mapping")["description"].fillna("")
    rows = []
    for cid, keys in ROLE_CLAIMS.items():
        if cid not in by_id.index:
            continue
        printed = str(by_id.loc[cid, "paper_value"])
        relation = str(by_id.loc[cid, "relation"] or "=")
        got = reading_counts(mappings, keys)
        hits = [m for m in got.index
                if judge(printed, float(got[m]), relation, "count") == "exact"]
        rows.append({
            "claim_id": cid, "paper": paper_statement(printed, relation),
            "ours": int(got.get(0, 0)),
            "possible": ", ".join(str(v) for v in sorted(set(int(x) for x in got))),
            "readings": ("the one used" if 0 in hits else "; ".join(
                desc[m] for m in hits) if hits else "none"),
            "by_reading": "; ".join(str(int(n)) for n in got)})
    return pd.DataFrame(rows, columns=ROLE_CLAIM_COLUMNS)


def session_minutes(text: str) -> tuple[int, int, int] | None:
    """(shortest, longest, line) of the first range of minutes ("N–M minutes") in the
    guideline, or None."""
    for number, line in enumerate(text.splitlines(), 1):
        m = _MINUTES_RE.search(line)
        if m:
            return int(m.group(1)), int(m.group(2)), number
    return None
