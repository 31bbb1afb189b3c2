"""Unit tests of ``analysis.core.artifacts``: the folder written whole or not at all."""

from __future__ import annotations

import stat

import pytest

from analysis.core.artifacts import atomic_folder


def test_a_finished_folder_replaces_the_old_one_readable_by_all(tmp_path):
    dest = tmp_path / "site"
    (dest / "old").mkdir(parents=True)
    with atomic_folder(dest) as tmp:
        (tmp / "sub").mkdir()
        (tmp / "sub" / "page.html").write_text("new", encoding="utf-8")
    assert sorted(p.name for p in dest.rglob("*")) == ["page.html", "sub"]
    assert stat.S_IMODE((dest / "sub" / "page.html").stat().st_mode) == 0o644
    assert stat.S_IMODE(dest.stat().st_mode) == 0o755
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_failed_build_leaves_the_old_folder_and_no_temporary_one(tmp_path):
    dest = tmp_path / "site"
    dest.mkdir()
    (dest / "kept.html").write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_folder(dest) as tmp:
        (tmp / "half.html").write_text("half", encoding="utf-8")
        raise RuntimeError("stop")
    assert [p.name for p in dest.iterdir()] == ["kept.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["site"]
