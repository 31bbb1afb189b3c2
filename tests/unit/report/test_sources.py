"""The record of what the site was rendered from, and the notebooks the report reads."""

from __future__ import annotations

from analysis.report.sources import (
    code_digest,
    expected_notebooks,
    hash_files,
    make_record,
    read_record,
    source_files,
    staleness,
    write_record,
)
from tests.support.sites import report_sources


def test_only_the_notebooks_of_the_known_stages_are_read(tmp_path):
    paths = report_sources(tmp_path)
    assert expected_notebooks(paths) == [paths.clean.notebook]


def test_source_files_are_what_a_render_reads(tmp_path):
    assert source_files(report_sources(tmp_path)) == [
        "_generated/x.md", "_quarto.yml", "_variables.yml", "assets/site.css",
        "downloads/issues.csv", "figures/table1/counts.svg", "index.qmd",
        "notebooks/01_clean.ipynb"]


def test_a_record_is_the_same_bytes_for_the_same_sources(tmp_path):
    paths = report_sources(tmp_path)
    hashes = hash_files(paths.site_src, source_files(paths))
    for site in (tmp_path / "a", tmp_path / "b"):
        site.mkdir()
        write_record(site, make_record("Quarto 1.8.27", hashes, "c0de"))
    assert (tmp_path / "a" / "sources.json").read_bytes() == (
        tmp_path / "b" / "sources.json").read_bytes()
    record = read_record(tmp_path / "a")
    assert record == {"renderer": "Quarto 1.8.27", "code": "c0de", "files": hashes}
    assert str(tmp_path) not in (tmp_path / "a" / "sources.json").read_text()


def test_staleness_names_what_changed(tmp_path):
    paths = report_sources(tmp_path)
    hashes = hash_files(paths.site_src, source_files(paths))
    record = make_record("pandoc preview", hashes, "c0de")
    assert staleness(record, hashes, "c0de") is None
    (paths.site_src / "_variables.yml").write_text("a: 2\n", encoding="utf-8")
    (paths.site_src / "_generated" / "y.md").write_text("y\n", encoding="utf-8")
    now = hash_files(paths.site_src, source_files(paths))
    assert staleness(record, now, "c0de") == (
        "2 of its source files changed since it was rendered (_generated/y.md, _variables.yml)")
    assert staleness(record, hashes, "other") == (
        "the report package's code changed since it was rendered")
    assert staleness(None, hashes, "c0de").startswith("it records no sources")


def test_a_damaged_record_is_no_record(tmp_path):
    assert read_record(tmp_path) is None
    (tmp_path / "sources.json").write_text("{not json")
    assert read_record(tmp_path) is None
    (tmp_path / "sources.json").write_text('{"files": [], "renderer": "x"}')
    assert read_record(tmp_path) is None


def test_code_digest_follows_the_code(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    first = code_digest(tmp_path)
    assert code_digest(tmp_path) == first
    (tmp_path / "a.py").write_text("x = 2\n")
    assert code_digest(tmp_path) != first


def test_the_docs_pages_are_sources_too(tmp_path):
    from analysis.report.sources import current_hashes, doc_hashes

    paths = report_sources(tmp_path)
    assert doc_hashes(paths) == {}
    paths.docs.mkdir()
    (paths.docs / "index.md").write_text("# Docs\n", encoding="utf-8")
    (paths.docs / ".draft.md").write_text("# Not read\n", encoding="utf-8")
    before = current_hashes(paths)
    assert set(before) - set(hash_files(paths.site_src, source_files(paths))) == {
        "../docs/index.md"}
    (paths.docs / "index.md").write_text("# Docs, changed\n", encoding="utf-8")
    assert "1 of its source files changed" in staleness(
        make_record("r", before, "c"), current_hashes(paths), "c")
