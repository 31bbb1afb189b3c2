"""The update loop's outputs get the modes the umask gives, whatever it is: under 022 the
other annotators of a shared machine can open their sheets (0644), under 077 nobody else
can (0600), under 002 the group may edit them (0664). Checked on every file and folder that
``select``, ``labels sheets``, ``labels merge`` and ``labels extend`` write, first runs and
``--force`` runs, and on the release and the dump that ``ingest fetch`` and ``ingest``
copy in."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from analysis.core import artifacts
from analysis.core.paths import Paths
from analysis.ingest.fetch import fetch
from analysis.ingest.ingest import ingest
from analysis.ingest.params import IngestParams
from analysis.update.labels.__main__ import main as labels
from analysis.update.select.__main__ import main as select
from tests.support.dumps import Project, write_dump
from tests.support.gharchive import opened_issues, write_events
from tests.support.sheets import fill, read_rows

KEYWORDS = "pytorch_keywords = ['llm']\ntensorflow_keywords = ['llm']\n"
ISSUES = [(1, "2024-01-01T10:00:00Z", "LLM hangs", ""),
          (2, "2024-02-01T11:00:00Z", "llm crash", ""),
          (3, "2025-01-01T11:00:00Z", "llm docs", "")]


@pytest.fixture(params=[0o022, 0o077, 0o002], ids=lambda m: f"umask{m:03o}")
def umask(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def modes(*roots: Path) -> dict[str, int]:
    """Every file and folder under ``roots`` (the roots included) and its permission bits."""
    found = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            found[str(path)] = stat.S_IMODE(path.stat().st_mode)
    return found


def assert_umask(umask: int, *roots: Path) -> None:
    found = modes(*roots)
    assert len(found) > len(roots)
    wrong = {p: f"{m:o}" for p, m in found.items()
             if m != (0o777 if Path(p).is_dir() else 0o666) & ~umask}
    assert wrong == {}


def test_select_sheets_and_merge_follow_the_umask(tmp_path, umask, capsys):
    hour = write_events(tmp_path / "in" / "2024-01-01-0.json.gz",
                        opened_issues("pytorch/pytorch", ISSUES))
    kw = tmp_path / "in" / "filter_keywords"
    kw.write_text(KEYWORDS, encoding="utf-8")
    sel = tmp_path / "sel"
    args = [str(hour), "--out", str(sel), "--keywords", str(kw), "--project", "pytorch",
            "--known", "none"]
    assert select(args) == 0
    assert_umask(umask, sel)
    assert select([*args, "--force"]) == 0
    assert_umask(umask, sel)

    again = tmp_path / "again"
    candidates = sel / "selection" / "candidates.csv"
    assert labels(["sheets", str(candidates), "--annotators", "2", "--out", str(again)]) == 0
    assert labels(["sheets", str(candidates), "--annotators", "2", "--out", str(again),
                   "--force"]) == 0
    assert_umask(umask, again)
    assert labels(["sheets", str(candidates), "--annotators", "2", "--out", str(sel)]) == 0

    sheets = [sel / "sheets" / f"annotator_{k}.csv" for k in (1, 2)]
    urls = [row[1] for row in read_rows(sheets[0])[1:]]
    for sheet in sheets:
        fill(sheet, {u: ("C.3", "") for u in urls})
    dump = tmp_path / "dump"
    assert labels(["merge", *map(str, sheets), "--out", str(dump)]) == 0
    assert_umask(umask, dump)
    assert labels(["merge", *map(str, sheets), "--out", str(dump), "--force"]) == 0
    assert_umask(umask, dump)
    base = tmp_path / "base"
    write_dump(base, [Project("vllm", {2023: 2}, repo="vllm-project/vllm")])
    study = tmp_path / "study"
    for force in ((), ("--force",)):
        assert labels(["extend", "--base", str(base), "--batch", str(dump), "--out",
                       str(study), *force]) == 0
        assert_umask(umask, study)
    capsys.readouterr()


def test_atomic_writers_follow_the_umask_and_a_site_stays_public(tmp_path, umask):
    target = artifacts.write_text(tmp_path / "a" / "b.txt", "x\n")
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    with artifacts.atomic_folder(tmp_path / "dump", public=False) as tmp:
        (tmp / "f").write_text("x")
    assert_umask(umask, tmp_path / "dump")
    with artifacts.atomic_folder(tmp_path / "site") as tmp:
        (tmp / "index.html").write_text("x")
    assert modes(tmp_path / "site") == {str(tmp_path / "site"): 0o755,
                                        str(tmp_path / "site" / "index.html"): 0o644}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "dump", "site"]


def test_ingest_and_fetch_follow_the_umask(tmp_path, umask):
    mirror = tmp_path / "mirror"
    write_dump(mirror, [Project("vllm", {2023: 2}, repo="vllm-project/vllm")])
    paths = Paths(tmp_path / "project")
    paths.release_manifest.parent.mkdir(parents=True)
    paths.release_manifest.write_text("".join(
        f"{artifacts.sha256_file(p)}  ./{p.relative_to(mirror).as_posix()}\n"
        for p in sorted(mirror.rglob("*")) if p.is_file()), encoding="utf-8")
    cfg = {"source": "data/release", "manifest": "data/release.sha256", "mirror": str(mirror)}
    for _ in range(2):  # a new release, then one replacing a copy that does not verify
        assert "copied from the mirror" in fetch(IngestParams.of(**cfg), paths)
        assert_umask(umask, paths.release)
        next(paths.release.rglob("*.csv")).write_text("edited\n")
    for _ in range(2):  # a new dump, then one replacing it
        ingest(str(paths.release), paths.raw)
        assert_umask(umask, paths.raw)
    assert sorted(p.name for p in paths.raw.parent.iterdir()) == [
        "raw", "release", "release.sha256"]
