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


# The update loop's cases, as the e2e tests of the loop and of its tutorial fill them:
# (label, excluded) of annotators 1..3 for new vLLM candidates, one of each kind a merge
# must settle.
VLLM_CASES = {
    f"{V}1": [("C.3", ""), ("C.3", ""), ("C.3", "")],      # unanimous
    f"{V}2": [("B.2", ""), ("B.2", ""), ("B.4", "")],      # 2:1
    f"{V}3": [("A.1", ""), ("A.2", ""), ("A.3", "")],      # no majority
    f"{V}4": [("C.1", "x"), ("C.1", ""), ("C.1", "")],     # split on exclusion
    f"{V}5": [("", "x"), ("", "x"), ("", "x")],            # excluded by all
}
VLLM_DECIDED = {f"{V}3": "A.2", f"{V}4": "excluded"}


def write_vllm_hour(path: Path, seed: int) -> None:
    """An hour of January 2026 holding the candidates of :data:`VLLM_CASES` (vLLM issues
    1-5), an issue the release labels (vLLM 1001), an opened pull request and an issue of
    another repository."""
    import random

    from tests.support.gharchive import OTHERS, event, opened_issues, write_events

    rng = random.Random(seed)
    pull = event(rng, 1, "PullRequestEvent", "vllm-project/vllm", "2026-01-01T01:00:00Z")
    pull["payload"]["action"] = "opened"
    write_events(path, [
        *opened_issues("vllm-project/vllm", [
            (n, f"2026-01-0{n}T00:00:00Z", f"issue {n}", "") for n in range(1, 6)]),
        *opened_issues("vllm-project/vllm", [(1001, "2026-01-01T00:00:00Z", "again", "")]),
        pull, event(rng, 2, "IssuesEvent", OTHERS[3], "2026-01-01T01:00:00Z")])
