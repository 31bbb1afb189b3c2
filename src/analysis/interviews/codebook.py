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

import pandas as pd

from analysis.core.errors import InputError
from analysis.core.quality import Anomaly, make_anomaly
from analysis.core.taxonomy import Taxonomy, theme_sort_key
from analysis.interviews.normalise import canonical, clean_text, match_columns, whitespace_change
from analysis.interviews.read import CODEBOOK_FILE
from analysis.interviews.rules import CODEBOOK_COLUMNS, CODEBOOK_REQUIRED, LEVELS, RULES, TYPES

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


def clean_codebook(text: str, rel: str, taxonomy: Taxonomy, groups: dict[str, str]
                   ) -> tuple[pd.DataFrame, pd.DataFrame, list[Anomaly], list[dict], list[dict]]:
    """Clean the codebook: one row per participant and one row per linked node.

    Every node is checked against the taxonomy: a code the taxonomy lacks is kept with
    ``in_taxonomy = False`` (it may be a category the interviews added); a token that is
    not a code at all is set aside. ``groups`` (params.yaml ``interviews.groups``) names
    more spellings of the participant types. Returns (codebook, nodes, anomalies, rejected,
    accounting).
    """
    anomalies: list[Anomaly] = []
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
    data = [r for r in records if any(x.strip() for x in r[1])]
    blanks = [r[0] for r in records if not any(x.strip() for x in r[1])]
    if not data:
        raise InputError("the codebook is empty", file=rel, fix=f"check {CODEBOOK_FILE}")
    header_line, header = data[0]
    header = [clean_text(h) for h in header]
    cols, extra = match_columns(header, CODEBOOK_COLUMNS)
    missing = [c for c in CODEBOOK_REQUIRED if c not in cols]
    if missing:
        raise InputError(f"no column for {', '.join(missing)} (header: {header})", file=rel,
                         line=header_line, fix="the codebook needs Participant, Type and "
                         "Linked Taxonomy Node(s) columns")
    for i in extra:
        anomalies.append(make_anomaly(RULES, "extra_column", rel, f"column {header[i]!r} "
                                      "not used", header_line, header[i]))
    for name in CODEBOOK_COLUMNS:
        if name not in cols:
            anomalies.append(make_anomaly(RULES, "missing_column", rel, f"no {name} column",
                                          header_line, name))
    for ln in blanks:
        if ln > header_line:
            anomalies.append(make_anomaly(RULES, "blank_row", rel, "empty line", ln))
    type_names = {t.casefold(): t for t in TYPES}
    type_names.update({k.casefold(): v for k, v in groups.items()})
    known = set(taxonomy.codes)
    names = dict(zip(taxonomy.themes["code"], taxonomy.themes["name"], strict=True))
    type_letters = taxonomy.types
    rows, node_rows, rejected = [], [], []
    seen: Counter = Counter()
    n_tokens = n_links_kept = n_links_aside = 0
    for ln, fields in data[1:]:
        if len(fields) != len(header):
            anomalies.append(make_anomaly(RULES, "malformed_row", rel, f"{len(fields)} fields, "
                                          f"header has {len(header)}", ln))
            rejected.append({"file": rel, "line": ln, "column": None, "value": None,
                             "reason": "malformed_row"})
            continue
        flags: list[str] = []
        rec: dict[str, object] = {"line": ln}
        for name in CODEBOOK_COLUMNS:
            raw = fields[cols[name]] if name in cols else ""
            text_ = clean_text(raw)
            if raw != text_ and name != "nodes":
                flags.append("whitespace")
                anomalies.append(make_anomaly(RULES, "whitespace", rel, whitespace_change(raw),
                                              ln, header[cols[name]]))
            rec[name] = text_
        pid = str(rec["participant"])
        if not pid:
            anomalies.append(make_anomaly(RULES, "missing_participant", rel, "no participant "
                                          "id", ln, "participant"))
            rejected.append({"file": rel, "line": ln, "column": "participant", "value": "",
                             "reason": "missing_participant"})
            continue
        seen[pid] += 1
        if seen[pid] > 1:
            flags.append("duplicate_participant")
            anomalies.append(make_anomaly(RULES, "duplicate_participant", rel,
                                          f"{pid} appears again", ln, "participant", pid))
        ptype = type_names.get(str(rec["type"]).casefold())
        if ptype is None:
            ptype = str(rec["type"]) or "Unknown"
            flags.append("unknown_type")
            anomalies.append(make_anomaly(RULES, "unknown_type", rel, f"type {rec['type']!r}",
                                          ln, "type", rec["type"]))
        letter = pid[:1].upper()
        if ptype in TYPES and letter in ("U", "D") and letter != ptype[0]:
            flags.append("type_prefix_mismatch")
            anomalies.append(make_anomaly(RULES, "type_prefix_mismatch", rel, f"{pid} is a "
                                          f"{ptype}", ln, "type", ptype))
        rec["type"] = ptype
        level = str(rec["experience_level"])
        canon = canonical(level, LEVELS) if level else None
        if level and canon is None:
            flags.append("unknown_experience_level")
            anomalies.append(make_anomaly(RULES, "unknown_experience_level", rel,
                                          f"level {level!r}", ln, "experience_level", level))
        elif canon and canon != level:
            flags.append("spelling_variant")
            anomalies.append(make_anomaly(RULES, "spelling_variant", rel, f"{level!r} -> "
                                          f"{canon!r}", ln, "experience_level", level))
        rec["experience_level"] = canon or level or None
        raw_nodes = fields[cols["nodes"]]
        rec["nodes_raw"] = raw_nodes
        tokens = [t for t in (x.strip() for x in NODE_SPLIT_RE.split(raw_nodes)) if t]
        codes: list[str] = []
        for token in tokens:
            n_tokens += 1
            code, respelled = parse_node(token)
            if code is None:
                n_links_aside += 1
                flags.append("node_malformed")
                anomalies.append(make_anomaly(RULES, "node_malformed", rel, f"{pid}: {token!r} "
                                              "is not a node code", ln, "nodes", token))
                rejected.append({"file": rel, "line": ln, "column": "nodes", "value": token,
                                 "reason": "node_malformed"})
                continue
            if code in codes:
                n_links_aside += 1
                anomalies.append(make_anomaly(RULES, "duplicate_node", rel, f"{pid}: {code} "
                                              "listed twice", ln, "nodes", token))
                rejected.append({"file": rel, "line": ln, "column": "nodes", "value": token,
                                 "reason": "duplicate_node"})
                continue
            if respelled:
                flags.append("node_respelled")
                anomalies.append(make_anomaly(RULES, "node_respelled", rel, f"{pid}: "
                                              f"{token!r} -> {code}", ln, "nodes", token))
            in_tax = code in known
            if not in_tax:
                flags.append("node_not_in_taxonomy")
                anomalies.append(make_anomaly(
                    RULES, "node_not_in_taxonomy", rel, f"{pid}: {code} is not in the "
                    "taxonomy; kept (possibly a category added from the interviews)", ln,
                    "nodes", code))
            codes.append(code)
            n_links_kept += 1
            node_rows.append({
                "participant": pid, "type": ptype, "experience_level": rec["experience_level"],
                "node": code, "node_raw": token, "in_taxonomy": in_tax,
                "theme": names.get(code), "issue_type": type_letters.get(code[:1]),
                "line": ln,
            })
        if not codes:
            flags.append("no_nodes")
            anomalies.append(make_anomaly(RULES, "no_nodes", rel, f"{pid} has no linked node",
                                          ln, "nodes"))
        rec["nodes"] = ", ".join(codes)
        rec["n_nodes"] = len(codes)
        rec["flags"] = ";".join(sorted(set(flags)))
        rows.append(rec)
    cb_cols = ["participant", "type", "experience_level", "framework_context",
               "prompt_category", "quote", "insight", "nodes", "nodes_raw", "n_nodes", "line",
               "flags"]
    codebook = pd.DataFrame(rows, columns=cb_cols)
    order = sorted(range(len(codebook)), key=lambda i: (
        participant_sort_key(codebook.at[i, "participant"], codebook.at[i, "type"]),
        codebook.at[i, "line"]))
    codebook = codebook.iloc[order].reset_index(drop=True)
    nodes = pd.DataFrame(node_rows, columns=["participant", "type", "experience_level", "node",
                                             "node_raw", "in_taxonomy", "theme", "issue_type",
                                             "line"])
    nodes = sort_nodes_long(nodes, taxonomy)
    for col in ("n_nodes", "line"):
        codebook[col] = codebook[col].astype("int64")
    nodes["line"] = nodes["line"].astype("int64")
    nodes["in_taxonomy"] = nodes["in_taxonomy"].astype(bool)
    accounting = [
        {"file": rel, "role": "codebook_rows", "input": len(data) - 1, "kept": len(codebook),
         "set_aside": len(data) - 1 - len(codebook)},
        {"file": rel, "role": "node_links", "input": n_tokens, "kept": n_links_kept,
         "set_aside": n_links_aside},
    ]
    return codebook, nodes, anomalies, rejected, accounting


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


