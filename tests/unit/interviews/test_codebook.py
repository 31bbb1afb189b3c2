"""Cleaning the codebook: participants, linked nodes checked against the taxonomy, orders."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.interviews.codebook import (
    clean_codebook,
    node_order,
    node_sort_key,
    parse_node,
    participant_sort_key,
)
from tests.unit.interviews.synthetic import (
    PARAMS,
    anomalies,
    clean,
    write_background,
    write_codebook,
)


def test_parse_node():
    assert parse_node("C.3") == ("C.3", False)
    assert parse_node("c3") == ("C.3", True)
    assert parse_node(" B . 5 ") == ("B.5", True)
    assert parse_node("X-9") == ("X.9", True)
    assert parse_node("Installation") == (None, False)
    assert parse_node("C.3.1") == (None, False)


def test_orders():
    ids = [("D1", "Developer"), ("U10", "User"), ("P3", "User"), ("U2", "User"),
           ("Z1", "Other")]
    assert [p for p, _ in sorted(ids, key=lambda x: participant_sort_key(*x))] == [
        "U2", "U10", "P3", "D1", "Z1"]
    assert sorted(["C.10", "C.9", "A.2"], key=node_sort_key) == ["A.2", "C.9", "C.10"]


def test_node_order_puts_unknown_codes_with_their_type(taxonomy):
    order = node_order(["B.5", "X.9", "C.11"], taxonomy)
    assert order.index("B.5") == order.index("B.4") + 1
    assert order[-1] == "X.9" and set(taxonomy.codes) < set(order)


def test_codebook_nodes_checked_against_taxonomy(data):
    nodes = data.nodes
    # X-9 is well-formed but of no known type: kept and flagged like C.11 and B.5
    assert set(nodes.loc[~nodes["in_taxonomy"], "node"]) == {"C.11", "B.5", "X.9"}
    assert data.quality["summary"]["nodes_not_in_taxonomy"] == ["B.5", "C.11", "X.9"]
    assert len(anomalies(data, "node_not_in_taxonomy")) == 4  # U3, D1 (C.11, X.9), D2 (B.5)
    assert nodes.loc[nodes["node_raw"] == "c3", "node"].tolist() == ["C.3"]
    assert nodes.loc[nodes["node"] == "X.9", "issue_type"].isna().all()
    assert [a["value"] for a in anomalies(data, "node_malformed")] == []
    assert [a["value"] for a in anomalies(data, "duplicate_node")] == ["C.6"]
    acc = data.quality["accounting"]["node_links"]
    assert acc["input"] == acc["kept"] + acc["set_aside"] and acc["set_aside"] == 1


def test_codebook_rows(data):
    cb = data.codebook
    assert list(cb["participant"]) == ["U1", "U1", "U2", "U3", "D2", "D1"]
    counts = data.quality["anomaly_counts"]
    assert counts["utf8_bom"] == 1 and counts["crlf_line_endings"] == 1
    assert counts["missing_participant"] == 1
    assert counts["duplicate_participant"] == 1
    assert counts["type_prefix_mismatch"] == 1  # D2 typed User
    assert counts["unknown_experience_level"] == 1  # Expert
    assert counts["no_nodes"] == 1  # second U1 row
    u2 = cb[cb["participant"] == "U2"].iloc[0]
    assert u2["type"] == "User" and u2["experience_level"] == "Intermediate"
    assert data.quality["accounting"]["codebook_rows"] == {"input": 7, "kept": 6,
                                                           "set_aside": 1}


def test_malformed_node_is_set_aside(tmp_path, taxonomy):
    rows = [["U1", "User", "Beginner", "", "", "q", "A.1, Installation", "i"]]
    cb = write_codebook(tmp_path / "c.csv", rows, bom=False, crlf=False)
    bg = write_background(tmp_path / "b.xlsx")
    data = clean(cb, bg, taxonomy)
    assert [a["value"] for a in anomalies(data, "node_malformed")] == ["Installation"]
    assert list(data.nodes["node"]) == ["A.1"]
    assert "node_malformed" in set(data.rejected["reason"])


def test_codebook_missing_column(tmp_path, taxonomy):
    path = tmp_path / "c.csv"
    path.write_text("Participant,Type,Quote\nU1,User,hi\n", encoding="utf-8")
    with pytest.raises(InputError, match="Linked Taxonomy Node"):
        clean(path, write_background(tmp_path / "b.xlsx"), taxonomy)


def test_codebook_errors_and_malformed_rows(taxonomy):
    with pytest.raises(InputError, match="the codebook is empty"):
        clean_codebook("\n\n", "CodeBook.csv", taxonomy, PARAMS.groups)
    text = "Participant,Type,Linked Taxonomy Node(s)\nU1,User,A.1\nU2,User\n"
    codebook, nodes, found, rejected, accounting = clean_codebook(
        text, "CodeBook.csv", taxonomy, PARAMS.groups)
    assert list(codebook["participant"]) == ["U1"]
    assert [r["reason"] for r in rejected] == ["malformed_row"]
    assert accounting[0] == {"file": "CodeBook.csv", "role": "codebook_rows", "input": 2,
                             "kept": 1, "set_aside": 1}
