"""A small study dump, as ``python -m analysis.update.labels extend`` writes one: a release of
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


# --------------------------------------------------------------------------- two batches

# Two batches of new labels, as a team makes them with the update loop (select -> sheets
# -> merge -> adjudicate -> extend): per batch, the GH Archive hours it is selected from
# (repository -> [(number, created_at, title)]: 'LLM' makes a PyTorch issue a candidate, a
# vLLM issue is one whatever its title) and per candidate the (label, excluded) of its
# three annotators. 2026-01 holds reports of 2025, a year the release covers, and of 2026;
# 2026-02 only 2026's.
P = "https://github.com/pytorch/pytorch/issues/"
BATCH_HOURS = {
    "2026-01": {
        "2025-12-30-10.json.gz": {
            "pytorch/pytorch": [(9001, "2025-12-30T10:00:00Z", "LLM OOM on A100"),
                                (9002, "2025-12-30T10:05:00Z", "LLM checkpoint"),
                                (9003, "2025-12-30T10:06:00Z", "conv2d slow")],
            "vllm-project/vllm": [(9101, "2025-12-30T10:07:00Z", "serving crash")]},
        "2026-01-15-10.json.gz": {
            "pytorch/pytorch": [(9004, "2026-01-15T10:00:00Z", "LLM compile error"),
                                (9005, "2026-01-15T10:01:00Z", "LLM docs")],
            "vllm-project/vllm": [(n, f"2026-01-15T10:{n - 9100:02d}:00Z", f"vllm {n}")
                                  for n in range(9102, 9111)],
            "tensorflow/tensorflow": [(9401, "2026-01-15T10:30:00Z", "LLM on TPU")]}},
    "2026-02": {
        "2026-02-10-10.json.gz": {
            "pytorch/pytorch": [(9201, "2026-02-10T10:00:00Z", "LLM FSDP hang"),
                                (9202, "2026-02-10T10:01:00Z", "LLM question"),
                                (9203, "2026-02-10T10:02:00Z", "not about LLM at all")],
            "vllm-project/vllm": [(n, f"2026-02-10T10:{n - 9300:02d}:00Z", f"vllm {n}")
                                  for n in range(9301, 9311)]}},
}
AGREED = {"C.1": ["C.1"] * 3, "C.3": ["C.3"] * 3, "A.1": ["A.1"] * 3, "B.2": ["B.2"] * 3,
          "C.5": ["C.5", "C.5", "C.3"], "B.4": ["B.4", "B.2", "B.4"]}
THEMES_2026_01 = ["C.1", "C.3", "A.1", "B.2", "C.5", "B.4", "C.1", "C.3", "C.1", "B.2",
                  "C.5", "C.1"]
THEMES_2026_02 = ["C.3", "A.1", "C.1", "C.1", "B.2", "C.5", "C.3", "B.4", "C.1", "C.3",
                  "B.2"]
# per batch: the candidates all three exclude (2026-01: TensorFlow's only one too), and
# one without a majority (decided); 2026-01 also has a split on exclusion, decided excluded
T = "https://github.com/tensorflow/tensorflow/issues/"
EXCLUDED = {"2026-01": [f"{P}9005", f"{V}9109", f"{T}9401"], "2026-02": [f"{P}9203"]}
UNDECIDED = {"2026-01": (f"{V}9108", ["A.2", "A.3", "A.4"], "A.2"),
             "2026-02": (f"{V}9310", ["C.7", "C.8", "C.9"], "C.8")}
SPLIT = {"2026-01": f"{V}9110"}


def batch_marks(batch: str, candidates: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each candidate's three (label, excluded), as the batch's annotators fill them: the
    excluded ones by all, the undecided one split three ways, the others by
    :data:`AGREED` in the order of the batch's themes."""
    themes = iter(THEMES_2026_01 if batch == "2026-01" else THEMES_2026_02)
    undecided, split, _ = UNDECIDED[batch]
    marks = {}
    for url in candidates:
        if url in EXCLUDED[batch]:
            marks[url] = [("", "x")] * 3
        elif url == SPLIT.get(batch):
            marks[url] = [("C.1", "x"), ("C.1", ""), ("C.1", "")]
        elif url == undecided:
            marks[url] = [(label, "") for label in split]
        else:
            marks[url] = [(label, "") for label in AGREED[next(themes)]]
    return marks


def decisions_of(batch: str) -> dict[str, str]:
    """The adjudicators' decision on each report of the batch's adjudication list."""
    return {UNDECIDED[batch][0]: UNDECIDED[batch][2],
            **({SPLIT[batch]: "excluded"} if batch in SPLIT else {})}


def hours(folder: Path, batch: str) -> None:
    """The batch's GH Archive hours (:data:`BATCH_HOURS`), written into ``folder``."""
    from tests.support.gharchive import opened_issues, write_events

    for hour, repos in BATCH_HOURS[batch].items():
        write_events(folder / hour, [
            e for repo, issues in repos.items()
            for e in opened_issues(repo, [(n, when, title, "") for n, when, title in issues])])
