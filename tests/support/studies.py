"""A small study dump, as ``python -m analysis.labels extend`` writes one: a release of
two annotators' rows and a batch ``b`` of two more annotators (their own columns), each
row naming its batch, the batch's excluded candidates, a project whose only candidate was
excluded, ``labels/batches.json`` and the batch's adjudication list with a decision."""

from __future__ import annotations

import json
from pathlib import Path

V = "https://github.com/vllm-project/vllm/issues/"
T = "https://github.com/tensorflow/tensorflow/issues/"
ADJUDICATED = f"{V}2"  # a tie (A.1 / A.2), decided A.2


def write_study(root: Path) -> Path:
    """Write the study under ``root``; return it."""
    issues = root / "Issue Report"
    vllm, tf = issues / "vllm", issues / "tensorflow"
    vllm.mkdir(parents=True)
    tf.mkdir(parents=True)
    header = "Issue_URL,Label1,Label2,Label3,Label4,Final_Label,Batch\n"
    (vllm / "vllm.csv").write_text(
        header + f"{V}1001,C.3,C.3,,,C.3,release\n{V}1002,A.1,A.1,,,A.1,release\n"
        f"{V}1003,B.2,B.1,,,B.2,release\n"
        f"{V}1,,,C.3,C.3,C.3,b\n{ADJUDICATED},,,A.1,A.2,A.2,b\n", encoding="utf-8")
    (vllm / "vllm_2025.txt").write_text(f"{V}1001\n{V}1002\n{V}1003\n", encoding="utf-8")
    (vllm / "vllm_2026.txt").write_text(f"{V}1\n{ADJUDICATED}\n", encoding="utf-8")
    (vllm / "vllm_excluded.csv").write_text(
        f"Issue_URL,Created_At,Batch\n{V}3,2026-01-03T00:00:00Z,b\n", encoding="utf-8")
    (tf / "tensorflow.csv").write_text(header, encoding="utf-8")
    (tf / "tensorflow_excluded.csv").write_text(
        f"Issue_URL,Created_At,Batch\n{T}7,2026-01-06T00:00:00Z,b\n", encoding="utf-8")
    labels = root / "labels"
    (labels / "b").mkdir(parents=True)
    (labels / "batches.json").write_text(json.dumps({"batches": [
        {"name": "release", "annotator_columns": ["Label1", "Label2"],
         "records_exclusions": False},
        {"name": "b", "annotator_columns": ["Label3", "Label4"],
         "records_exclusions": True}]}), encoding="utf-8")
    (labels / "b" / "adjudication.csv").write_text(
        "\ufeffurl,project,title,created_at,Label1,Label2,reason,decision\r\n"
        f"{ADJUDICATED},vllm,t,2026-01-02,A.1,A.2,no majority,A.2\r\n", encoding="utf-8")
    return root
