"""The navbar comes from the pages (``navbar-entry:`` in their front matter): the report
stage writes it into the ``_quarto.yml`` of the copy it renders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from analysis.core.errors import InputError
from analysis.core.paths import Paths
from analysis.report import site
from analysis.report.navbar import navbar_entries, page_entries, page_entry, with_navbar


def test_entries_go_in_order_and_a_menu_where_its_first_page_is():
    entries = [(30, "Last", None, "z.qmd"), (20, "Two", "Results", "b.qmd"),
               (10, "One", None, "a.qmd"), (25, "Three", "Results", "c.qmd")]
    assert navbar_entries(entries) == [
        {"href": "a.qmd", "text": "One"},
        {"text": "Results", "menu": [{"href": "b.qmd", "text": "Two"},
                                     {"href": "c.qmd", "text": "Three"}]},
        {"href": "z.qmd", "text": "Last"}]


def test_an_entry_is_labelled_by_its_text_or_the_page_s_title():
    assert page_entry("t.qmd", {"title": "Table I", "navbar-entry": {"order": 4}}) == (
        4, "Table I", None, "t.qmd")
    assert page_entry("i.qmd", {"title": "A long title", "navbar-entry": {
        "order": 1.5, "text": "Overview", "menu": "More"}}) == (1.5, "Overview", "More", "i.qmd")
    assert page_entry("x.qmd", {"title": "Not in the navbar"}) is None


@pytest.mark.parametrize("entry", [{"menu": "Results"}, {"order": "4"}, {"order": True},
                                   {"order": 4, "href": "y.qmd"}, [4]])
def test_a_malformed_entry_is_one_message_naming_the_page(entry):
    with pytest.raises(InputError, match="navbar-entry is not a mapping") as err:
        page_entry("p.qmd", {"navbar-entry": entry}, Path("report/p.qmd"))
    assert err.value.file == "report/p.qmd"


def test_the_pages_entries_follow_those_of_quarto_yml():
    config = {"project": {"type": "website"},
              "website": {"title": "Site", "navbar": {"left": [{"href": "https://x.org"}]}}}
    merged = with_navbar(config, [{"href": "a.qmd", "text": "A"}])
    assert merged["website"]["navbar"]["left"] == [{"href": "https://x.org"},
                                                   {"href": "a.qmd", "text": "A"}]
    assert list(merged) == ["project", "website"] and config["website"]["navbar"]["left"] == [
        {"href": "https://x.org"}]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_staged_quarto_yml_gets_the_navbar_of_the_pages(tmp_path):
    paths = Paths(tmp_path)
    write(paths.quarto_yml, "# a comment\nproject:\n  type: website\nwebsite:\n"
                            "  title: Site\n  navbar: {}\n")
    write(paths.site_src / "b.qmd", "---\ntitle: Bee\nnavbar-entry: {order: 2}\n---\nB\n")
    write(paths.site_src / "a.qmd", "---\ntitle: Home\nnavbar-entry: {order: 1, text: Top}\n"
                                    "---\nA\n")
    write(paths.site_src / "c.qmd", "---\ntitle: Hidden\n---\nC\n")
    assert page_entries(paths.site_src, ["c.qmd"]) == []
    staging = tmp_path / "staging"
    staging.mkdir()
    shutil.copyfile(paths.quarto_yml, staging / "_quarto.yml")
    site.stage_navbar(paths, staging)
    staged = yaml.safe_load((staging / "_quarto.yml").read_text(encoding="utf-8"))
    assert staged["website"]["navbar"]["left"] == [{"href": "a.qmd", "text": "Top"},
                                                   {"href": "b.qmd", "text": "Bee"}]
    assert staged["project"] == {"type": "website"}
    assert "left" not in paths.quarto_yml.read_text(encoding="utf-8")  # the source as it was


def test_without_entries_the_staged_quarto_yml_is_the_source(tmp_path):
    paths = Paths(tmp_path)
    write(paths.quarto_yml, "website:\n  navbar:\n    left:\n      - href: a.qmd\n")
    write(paths.site_src / "a.qmd", "---\ntitle: A\n---\nA\n")
    staging = tmp_path / "staging"
    staging.mkdir()
    shutil.copyfile(paths.quarto_yml, staging / "_quarto.yml")
    site.stage_navbar(paths, staging)
    assert (staging / "_quarto.yml").read_bytes() == paths.quarto_yml.read_bytes()


def test_the_docs_pages_are_in_a_menu_of_the_navbar_their_index_first(tmp_path):
    paths = Paths(tmp_path)
    write(paths.quarto_yml, "website:\n  navbar: {}\n")
    write(paths.site_src / "a.qmd", "---\ntitle: Home\nnavbar-entry: {order: 1}\n---\nA\n")
    write(paths.docs / "index.md", "# Documentation\n\nAll.\n")
    write(paths.docs / "data.md", "# The `data`\n\nIt.\n")
    staging = tmp_path / "staging"
    staging.mkdir()
    shutil.copyfile(paths.quarto_yml, staging / "_quarto.yml")
    site.stage_navbar(paths, staging)
    staged = yaml.safe_load((staging / "_quarto.yml").read_text(encoding="utf-8"))
    assert staged["website"]["navbar"]["left"] == [
        {"href": "a.qmd", "text": "Home"},
        {"text": "Reproduce", "menu": [
            {"href": "docs/index.qmd", "text": "Documentation: all pages"},
            {"href": "docs/data.qmd", "text": "The data"}]}]
