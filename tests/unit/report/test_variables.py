"""The site's variables (:mod:`analysis.report.variables`): every stage's vars file,
formatted and checked, and the provenance record; nothing is computed here."""

from __future__ import annotations

import json

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.report.variables import (
    RESERVED,
    build_vars,
    fmt,
    lookup,
    provenance_vars,
    referenced_vars,
    stage_texts,
    stage_vars,
    var_value,
)


def test_fmt_formats_numbers_like_the_pages():
    assert fmt(12345) == "12,345"
    assert fmt(45.6695) == "45.67"
    assert fmt(True) == "yes" and fmt(None) == "–"
    assert var_value("name", "<i>") == r"\<i\>"
    for unsafe in ("{{< env HOME >}}", "$x$", "a\\b", "`code`", "rtl\u202eltr"):
        with pytest.raises(ValueError, match="template text"):
            var_value("name", unsafe)


def test_stage_vars_reads_flat_files_and_rejects_bad_ones(tmp_path):
    d = tmp_path / "vars"
    d.mkdir()
    (d / "taxonomy.json").write_text(json.dumps({
        "themes": 18, "fig_alt": "<x>", "fig_caption": "C.", "top_text": "{{< env X >}}"}))
    assert stage_vars(d) == {"taxonomy": {"themes": "18"}}  # data texts are not variables
    assert stage_texts(d) == {"taxonomy": {"fig_alt": "<x>", "fig_caption": "C.",
                                           "top_text": "{{< env X >}}"}}
    (d / "bad.json").write_text(json.dumps({"nested": {"a": 1}}))
    with pytest.raises(InputError, match="flatten"):
        stage_vars(d)
    (d / "bad.json").unlink()
    (d / "metrics.json").write_text("{}")
    with pytest.raises(InputError, match="reserved"):
        stage_vars(d)


def test_lookup_and_referenced_vars():
    data = {"a": {"b": "1", "c": {"d": "2"}}}
    assert lookup(data, "a.b") == "1" and lookup(data, "a.c.d") == "2"
    for missing in ("a.x", "a.c", "z"):
        with pytest.raises(KeyError):
            lookup(data, missing)
    assert referenced_vars("x {{< var a.b >}} y {{<var c>}}") == ["a.b", "c"]


def test_a_seed_is_an_identifier_not_a_quantity():
    assert var_value("seed", 20250613) == "20250613" and var_value("issues", 12345) == "12,345"


def test_build_vars_are_the_stages_vars_and_the_provenance(tmp_path):
    paths = Paths(tmp_path)
    paths.vars_dir.mkdir(parents=True)
    (paths.vars_dir / "clean.json").write_text(json.dumps({
        "rows_input": 38742, "balanced": True, "duplicates_policy": "keep"}))
    (paths.vars_dir / "findings.json").write_text(json.dumps({
        "claims": 220, "reproduced_pct": "87%", "dominant_share": 50.0}))
    paths.provenance.parent.mkdir(parents=True, exist_ok=True)
    paths.provenance.write_text(json.dumps({"commit": "a" * 40, "file_count": 51,
                                            "total_bytes": 5300000, "verified": True}))
    data = build_vars(paths)
    assert data["clean"] == {"rows_input": "38,742", "balanced": "yes",
                             "duplicates_policy": "keep"}
    assert data["findings"] == {"claims": "220", "reproduced_pct": "87%",
                                "dominant_share": "50.00"}
    assert data["source"]["commit_short"] == "aaaaaaa" and data["source"]["bytes"] == "5,300,000"
    assert data["source"]["manifest_sha256"] == "–" and data["source"]["verified"] == "yes"
    assert set(data) == {"clean", "findings", "source"} and not set(data) & (RESERVED - {"source"})


def test_provenance_vars_show_no_user_chosen_path():
    v = provenance_vars({"commit": "not a commit", "source": "/home/me/<dump>",
                         "source_kind": "dir", "commit_from": "params",
                         "not_in_manifest": ["x"], "ignored": [".DS_Store", "y"]})
    assert v["commit"] == "unknown" and v["source_kind"] == "a folder"
    assert v["commit_from"] == "params.yaml (ingest.commit)"
    assert v["not_in_manifest"] == "1" and v["ignored"] == "2"
    assert "/home" not in json.dumps(v)


def test_a_source_without_git_names_its_archived_commit(tmp_path):
    from analysis.report.variables import git_info

    assert git_info(tmp_path)["commit"] == "unknown"
    (tmp_path / "COMMIT").write_text("ab" * 20 + "\n")
    info = git_info(tmp_path)
    assert (info["commit"], info["commit_short"]) == ("ab" * 20, "abababa")
    (tmp_path / "COMMIT").write_text("not a commit\n")
    assert git_info(tmp_path)["commit"] == "unknown"
    # an archive unpacked inside another repository is not that repository's commit
    import subprocess
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q",
                    "--allow-empty", "-m", "x"], cwd=tmp_path, check=True)
    inner = tmp_path / "unpacked"
    inner.mkdir()
    (inner / "COMMIT").write_text("cd" * 20 + "\n")
    assert git_info(inner)["commit"] == "cd" * 20
    assert git_info(tmp_path)["commit"] != "unknown"
