"""The glossary page (``report/glossary.qmd``): it explains the site's own words, and the
pages link each word to it where they first use it."""

from __future__ import annotations

import re

from analysis.core.paths import ROOT

REPORT = ROOT / "report"
TERMS = {"dump", "batch", "study", "complete-rows", "gwet", "verdicts", "exact", "rounding",
         "differs", "not-reproducible", "readings"}


def anchors() -> set[str]:
    return set(re.findall(r"\{#([a-z-]+)\}", (REPORT / "glossary.qmd").read_text(
        encoding="utf-8")))


def links() -> dict[str, set[str]]:
    """Glossary anchor -> the pages that link it."""
    out: dict[str, set[str]] = {}
    for page in sorted(REPORT.glob("*.qmd")):
        for anchor in re.findall(r"\]\(glossary\.qmd#([a-z-]+)\)",
                                 page.read_text(encoding="utf-8")):
            out.setdefault(anchor, set()).add(page.name)
    return out


def test_the_glossary_explains_every_word_of_its_own():
    assert TERMS <= anchors()


def test_every_link_to_the_glossary_has_its_word_and_every_word_is_linked():
    linked = links()
    assert set(linked) <= anchors(), set(linked) - anchors()
    assert TERMS <= set(linked), TERMS - set(linked)
    # where the words first appear: the Overview's verdicts, study and batch; the
    # estimators on the Agreement page; the readings of the roles on the Interviews page
    assert {"verdicts", "study", "batch", "dump"} <= {a for a, pages in linked.items()
                                                       if "index.qmd" in pages}
    assert "agreement.qmd" in linked["complete-rows"] & linked["gwet"]
    assert "interviews.qmd" in linked["readings"]
