"""Cleaning the interview codebook (``CodeBook.csv``) into one row per participant and one
row per linked taxonomy node, and the orders the stage shows them in.

Every linked node is checked against the taxonomy: a well-formed code the taxonomy does
not have (``C.11``, ``B.5``) is kept and flagged, since Section IV.C of the paper reports
categories the interviewees suggested and these may be them; a token that is not a code at
all is set aside. Participants sort users first, then developers, ``U2`` before ``U10``.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from analysis.core.errors import InputError
from analysis.core.quality import Anomaly
from analysis.core.taxonomy import Taxonomy, theme_sort_key
from analysis.interviews.normalise import canonical, clean_text, match_columns, whitespace_change
from analysis.interviews.read import CODEBOOK_FILE
from analysis.interviews.rules import (
    CODEBOOK_COLUMNS,
    CODEBOOK_REQUIRED,
    LEVELS,
    TYPES,
    Findings,
)

NODE_RE = re.compile(r"^\s*([A-Za-z])\s*[.\-_ ]?\s*(\d+)\s*$")
NODE_SPLIT_RE = re.compile(r"[,;，；、]+")


def node_sort_key(code: str) -> tuple[str, int, str]:
    """Sort node codes as the taxonomy does (``C.10`` after ``C.9``), malformed last."""
    letter, number = theme_sort_key(code)
    return (letter, number, code)


def participant_sort_key(pid: str, ptype: str = "") -> tuple[int, bool, str, int, str]:
    """Users first, then developers, then others; ``U2`` before ``U10``; within a type,
    ids with the type's letter (U for users) before others."""
    type_rank = TYPES.index(ptype) if ptype in TYPES else len(TYPES)
    m = re.match(r"^([A-Za-z]*)(\d+)$", pid)
    prefix = m.group(1) if m else pid
    return (type_rank, prefix.upper() != ptype[:1].upper(), prefix,
            int(m.group(2)) if m else 0, pid)


def parse_node(token: str) -> tuple[str | None, bool]:
    """(code, respelled) for one linked-node token; code None if it is not a node code."""
    m = NODE_RE.match(token)
    if not m:
        return None, False
    code = f"{m.group(1).upper()}.{int(m.group(2))}"
    return code, code != token.strip()


CODEBOOK_TABLE_COLUMNS = ["participant", "type", "experience_level", "framework_context",
                          "prompt_category", "quote", "insight", "nodes", "nodes_raw",
                          "n_nodes", "line", "flags"]
NODE_COLUMNS = ["participant", "type", "experience_level", "node", "node_raw", "in_taxonomy",
                "theme", "issue_type", "line"]


@dataclass(frozen=True)
class Header:
    """The codebook's header: its line, its cleaned names, each known column's position."""

    line: int
    names: list[str]
    cols: dict[str, int]


@dataclass(frozen=True)
class Lookups:
    """What a codebook row is checked against: the participant types by their spellings
    (``interviews.groups`` included), the taxonomy's codes, theme names and type letters."""

    type_names: dict[str, str]
    known: frozenset[str]
    names: dict[str, str]
    type_letters: dict[str, str]

    @classmethod
    def of(cls, taxonomy: Taxonomy, groups: dict[str, str]) -> Lookups:
        type_names = {t.casefold(): t for t in TYPES}
        type_names.update({k.casefold(): v for k, v in groups.items()})
        return cls(type_names, frozenset(taxonomy.codes),
                   dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True)),
                   taxonomy.types)


def clean_codebook(text: str, rel: str, taxonomy: Taxonomy, groups: dict[str, str]
                   ) -> tuple[pd.DataFrame, pd.DataFrame, list[Anomaly], list[dict], list[dict]]:
    """Clean the codebook (see the module docstring): (codebook, nodes, anomalies,
    rejected, accounting). ``groups`` (params.yaml ``interviews.groups``) names more
    spellings of the participant types."""
    found = Findings(rel)
    records = read_records(text, rel)
    data = [r for r in records if any(x.strip() for x in r[1])]
    if not data:
        raise InputError("the codebook is empty", file=rel, fix=f"check {CODEBOOK_FILE}")
    header = read_header(*data[0], found)
    for ln, fields in records:
        if ln > header.line and not any(x.strip() for x in fields):
            found.note("blank_row", "empty line", ln)
    lookups = Lookups.of(taxonomy, groups)
    rows, node_rows, tokens, seen = [], [], [], Counter()
    for ln, fields in data[1:]:
        cleaned = clean_row(ln, fields, header, lookups, seen, found)
        if cleaned is not None:
            rows.append(cleaned[0])
            node_rows += cleaned[1]
            tokens += cleaned[2]
    codebook, nodes = codebook_tables(rows, node_rows, taxonomy)
    aside = sum(1 for r in found.rejected if r["column"] == "nodes")
    accounting = [
        {"file": rel, "role": "codebook_rows", "input": len(data) - 1, "kept": len(codebook),
         "set_aside": len(data) - 1 - len(codebook)},
        {"file": rel, "role": "node_links", "input": len(tokens), "kept": len(node_rows),
         "set_aside": aside},
    ]
    return codebook, nodes, found.anomalies, found.rejected, accounting


def read_records(text: str, rel: str) -> list[tuple[int, list[str]]]:
    """The codebook's CSV records, each with the line it starts on; text that is not
    valid CSV is one message naming the line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    line = 1
    try:
        for fields in reader:
            records.append((line, fields))
            line = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"not valid CSV ({exc})", file=rel, line=reader.line_num,
                         fix="fix the quoting on that line") from exc
    return records


def read_header(line: int, fields: list[str], found: Findings) -> Header:
    """The header record: every known column placed; a required one missing is one
    message, an extra or a missing optional one an anomaly."""
    names = [clean_text(h) for h in fields]
    cols, extra = match_columns(names, CODEBOOK_COLUMNS)
    missing = [c for c in CODEBOOK_REQUIRED if c not in cols]
    if missing:
        raise InputError(f"no column for {', '.join(missing)} (header: {names})",
                         file=found.rel, line=line, fix="the codebook needs Participant, "
                         "Type and Linked Taxonomy Node(s) columns")
    for i in extra:
        found.note("extra_column", f"column {names[i]!r} not used", line, names[i])
    for name in CODEBOOK_COLUMNS:
        if name not in cols:
            found.note("missing_column", f"no {name} column", line, name)
    return Header(line, names, cols)


def clean_row(ln: int, fields: list[str], header: Header, lookups: Lookups, seen: Counter,
              found: Findings) -> tuple[dict, list[dict], list[str]] | None:
    """One participant's row: its record, its node links and its node tokens; None when
    it is set aside (fields that do not match the header, no participant id). ``seen``
    counts the participant ids so far."""
    if len(fields) != len(header.names):
        found.note("malformed_row", f"{len(fields)} fields, header has {len(header.names)}",
                   ln)
        found.set_aside(ln, None, None, "malformed_row")
        return None
    flags: list[str] = []
    rec: dict[str, object] = {"line": ln}
    for name in CODEBOOK_COLUMNS:
        raw = fields[header.cols[name]] if name in header.cols else ""
        text_ = clean_text(raw)
        if raw != text_ and name != "nodes":
            found.note("whitespace", whitespace_change(raw), ln,
                       header.names[header.cols[name]], flags=flags)
        rec[name] = text_
    pid = str(rec["participant"])
    if not pid:
        found.note("missing_participant", "no participant id", ln, "participant")
        found.set_aside(ln, "participant", "", "missing_participant")
        return None
    seen[pid] += 1
    if seen[pid] > 1:
        found.note("duplicate_participant", f"{pid} appears again", ln, "participant", pid,
                   flags)
    rec["type"] = participant_type(pid, str(rec["type"]), ln, lookups, found, flags)
    rec["experience_level"] = experience_level(str(rec["experience_level"]), ln, found, flags)
    raw_nodes = fields[header.cols["nodes"]]
    tokens = [t for t in (x.strip() for x in NODE_SPLIT_RE.split(raw_nodes)) if t]
    links = node_links(rec, tokens, ln, lookups, found, flags)
    if not links:
        found.note("no_nodes", f"{pid} has no linked node", ln, "nodes", flags=flags)
    rec.update(nodes_raw=raw_nodes, nodes=", ".join(n["node"] for n in links),
               n_nodes=len(links), flags=";".join(sorted(set(flags))))
    return rec, links, tokens


def participant_type(pid: str, written: str, ln: int, lookups: Lookups, found: Findings,
                     flags: list[str]) -> str:
    """The participant type a row's Type cell names (an unknown one kept as written), and
    whether the id's letter (U, D) agrees with it."""
    ptype = lookups.type_names.get(written.casefold())
    if ptype is None:
        ptype = written or "Unknown"
        found.note("unknown_type", f"type {written!r}", ln, "type", written, flags)
    letter = pid[:1].upper()
    if ptype in TYPES and letter in ("U", "D") and letter != ptype[0]:
        found.note("type_prefix_mismatch", f"{pid} is a {ptype}", ln, "type", ptype, flags)
    return ptype


def experience_level(level: str, ln: int, found: Findings, flags: list[str]) -> str | None:
    """A row's experience level in its canonical spelling (one not recognised kept)."""
    canon = canonical(level, LEVELS) if level else None
    if level and canon is None:
        found.note("unknown_experience_level", f"level {level!r}", ln, "experience_level",
                   level, flags)
    elif canon and canon != level:
        found.note("spelling_variant", f"{level!r} -> {canon!r}", ln, "experience_level",
                   level, flags)
    return canon or level or None


def node_links(rec: dict, tokens: list[str], ln: int, lookups: Lookups, found: Findings,
               flags: list[str]) -> list[dict]:
    """The taxonomy nodes a row links, one row each: a token that is no node code, or a
    node listed twice, is set aside; a code the taxonomy lacks is kept, flagged."""
    pid, links = rec["participant"], []
    for token in tokens:
        code, respelled = parse_node(token)
        if code is None:
            found.note("node_malformed", f"{pid}: {token!r} is not a node code", ln, "nodes",
                       token, flags)
            found.set_aside(ln, "nodes", token, "node_malformed")
            continue
        if code in {n["node"] for n in links}:
            found.note("duplicate_node", f"{pid}: {code} listed twice", ln, "nodes", token)
            found.set_aside(ln, "nodes", token, "duplicate_node")
            continue
        if respelled:
            found.note("node_respelled", f"{pid}: {token!r} -> {code}", ln, "nodes", token,
                       flags)
        in_tax = code in lookups.known
        if not in_tax:
            found.note("node_not_in_taxonomy", f"{pid}: {code} is not in the taxonomy; kept "
                       "(possibly a category added from the interviews)", ln, "nodes", code,
                       flags)
        links.append({"participant": pid, "type": rec["type"],
                      "experience_level": rec["experience_level"], "node": code,
                      "node_raw": token, "in_taxonomy": in_tax,
                      "theme": lookups.names.get(code),
                      "issue_type": lookups.type_letters.get(code[:1]), "line": ln})
    return links


def codebook_tables(rows: list[dict], node_rows: list[dict], taxonomy: Taxonomy
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The codebook (participants sorted: users first, ``U2`` before ``U10``) and its node
    links (in taxonomy order), with their column types."""
    codebook = pd.DataFrame(rows, columns=CODEBOOK_TABLE_COLUMNS)
    order = sorted(range(len(codebook)), key=lambda i: (
        participant_sort_key(codebook.at[i, "participant"], codebook.at[i, "type"]),
        codebook.at[i, "line"]))
    codebook = codebook.iloc[order].reset_index(drop=True)
    nodes = sort_nodes_long(pd.DataFrame(node_rows, columns=NODE_COLUMNS), taxonomy)
    for col in ("n_nodes", "line"):
        codebook[col] = codebook[col].astype("int64")
    nodes["line"] = nodes["line"].astype("int64")
    nodes["in_taxonomy"] = nodes["in_taxonomy"].astype(bool)
    return codebook, nodes


def node_order(codes: list[str], taxonomy: Taxonomy) -> list[str]:
    """Every taxonomy theme plus the other codes found, by type (taxonomy order) and number.

    A code outside the taxonomy sits with its type (``B.5`` after ``B.4``); a code of an
    unknown type comes last.
    """
    letters = list(taxonomy.types)
    every = set(taxonomy.codes) | set(codes)

    def key(code: str) -> tuple[int, tuple[str, int, str]]:
        letter = code.split(".", 1)[0]
        return (letters.index(letter) if letter in letters else len(letters),
                node_sort_key(code))

    return sorted(every, key=key)


def sort_nodes_long(nodes: pd.DataFrame, taxonomy: Taxonomy) -> pd.DataFrame:
    """Node links sorted by node (taxonomy order), then participant."""
    order = {c: i for i, c in enumerate(node_order(list(nodes["node"]), taxonomy))}
    keys = [(order[n], participant_sort_key(p, t)) for n, p, t in
            zip(nodes["node"], nodes["participant"], nodes["type"], strict=True)]
    idx = sorted(range(len(nodes)), key=lambda i: keys[i])
    return nodes.iloc[idx].reset_index(drop=True)


