"""Selection from GH Archive on both engines: the same bytes from the streaming engine and
from Dask with 1 and 2 worker processes, and counts that agree with a plain reading."""

from __future__ import annotations

import gzip
import json
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest

from analysis.core.paths import PATHS
from analysis.update.select.__main__ import main
from analysis.update.select.engine import accounting_problems
from tests.support.gharchive import Hour, write_archive

pytestmark = pytest.mark.slow

REPOS = ("pytorch/pytorch", "vllm-project/vllm", "microsoft/DeepSpeed",
         "deepspeedai/DeepSpeed", "NVIDIA/megatron-lm")
KEYWORDS = ("pytorch_keywords = ['llm', 'LLaMA', 'qwen', 'torch.compile']\n"
            "tensorflow_keywords = ['llm']\nmindspore_keywords = ['llm']\n")


def expected(files: list[Path]) -> dict[str, tuple[int, int, int]]:
    """(issues opened, pull requests opened, later issue events) per repository, by
    parsing every event."""
    counts: dict[str, list[int]] = {}
    for path in files:
        for line in gzip.decompress(path.read_bytes()).splitlines():
            ev = json.loads(line)
            c = counts.setdefault(ev["repo"]["name"].lower(), [0, 0, 0])
            if ev["payload"].get("action") == "opened":
                c[ev["type"] == "PullRequestEvent"] += ev["type"] in ("IssuesEvent",
                                                                     "PullRequestEvent")
            elif ev["type"] == "IssuesEvent":
                c[2] += 1
    return {k: tuple(v) for k, v in counts.items()}


def select(archive: Path, out: Path, kw: Path, *extra: str) -> str:
    buf = StringIO()
    with redirect_stdout(buf):
        code = main([str(archive), "--out", str(out), "--projects", str(PATHS.projects_file),
                     "--keywords", str(kw), "--since", "2024-01-01", "--known", "none",
                     *extra])
    assert code == 0
    return buf.getvalue()


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_streaming_and_dask_give_the_same_bytes(tmp_path):
    files = write_archive(tmp_path / "gharchive", 20, Hour(REPOS, events=1500), seed=3)
    kw = tmp_path / "filter_keywords"
    kw.write_text(KEYWORDS, encoding="utf-8")
    outs = {}
    for name, extra in (("streaming", ()), ("dask1", ("--workers", "1")),
                        ("dask2", ("--workers", "2"))):
        printed = select(tmp_path / "gharchive", tmp_path / name, kw, *extra)
        assert ("Dask (" in printed) == name.startswith("dask")
        outs[name] = tree(tmp_path / name)
    assert outs["streaming"] == outs["dask1"] == outs["dask2"]

    summary = json.loads(outs["streaming"]["selection/selection.json"])
    truth = expected(files)
    assert summary["records"] == 20 * 1500
    assert accounting_problems(summary) == []  # every event counted once
    projects = summary["projects"]
    for key, names in (("pytorch", ["pytorch/pytorch"]), ("vllm", ["vllm-project/vllm"]),
                       ("DeepSpeed", ["microsoft/deepspeed", "deepspeedai/deepspeed"]),
                       ("Megatron-LM", ["nvidia/megatron-lm"])):
        issues = sum(truth.get(n, (0, 0, 0))[0] for n in names)
        pulls = sum(truth.get(n, (0, 0, 0))[1] for n in names)
        updates = sum(truth.get(n, (0, 0, 0))[2] for n in names)
        p = projects[key]
        assert (p["records"], p["pull_requests"], p["updates"]) == (
            issues + pulls + updates, pulls, updates)
        assert issues == p["out_of_window"] + p["not_matched"] + p["duplicates"] \
            + p["candidates"]
    assert projects["vllm"]["not_matched"] == 0  # a toolkit takes every issue
    assert projects["pytorch"]["not_matched"] > 0
    cand = pd.read_csv(tmp_path / "streaming/selection/candidates.csv",
                       keep_default_na=False)
    deepspeed = cand[cand["project"] == "DeepSpeed"]["url"]
    assert len(deepspeed) and deepspeed.str.startswith(
        "https://github.com/deepspeedai/DeepSpeed/issues/").all()
    assert cand["created_at"].min() >= "2024-01-01"
    order = ["pytorch", "DeepSpeed", "Megatron-LM", "vllm"]
    assert list(dict.fromkeys(cand["project"])) == [k for k in order if k in set(cand.project)]
    assert cand.groupby("project", sort=False)["created_at"].apply(
        lambda s: s.is_monotonic_increasing).all()
    pytorch = cand[cand["project"] == "pytorch"]
    assert (pytorch["keywords_title"] + pytorch["keywords_body"]).str.len().gt(0).all()
    for source, url in zip(pytorch["source"], pytorch["url"], strict=True):
        name, line = source.rsplit(":", 1)
        lines = gzip.decompress((tmp_path / "gharchive" / name).read_bytes()).splitlines()
        assert json.loads(lines[int(line) - 1])["payload"]["issue"]["html_url"] == url


def test_a_damaged_hour_on_a_worker_ends_the_run_in_one_line(tmp_path, capfd):
    write_archive(tmp_path / "gharchive", 3, Hour(REPOS, events=200), seed=4)
    (tmp_path / "gharchive/2024-01-01-3.json.gz").write_bytes(b"\x1f\x8b\x08\x00")
    kw = tmp_path / "filter_keywords"
    kw.write_text(KEYWORDS, encoding="utf-8")
    code = main([str(tmp_path / "gharchive"), "--out", str(tmp_path / "out"), "--keywords",
                 str(kw), "--workers", "2", "--known", "none"])
    err = capfd.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "select: 2024-01-01-3.json.gz: the gzip file is truncated -> download the hour again"]
    assert not (tmp_path / "out").exists()
