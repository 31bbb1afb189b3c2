"""The curated taxonomy file: codes, types, spellings."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.core.taxonomy import load_taxonomy, normalise_name, theme_sort_key


def test_project_taxonomy_has_the_papers_structure(taxonomy):
    counts = taxonomy.themes.groupby("type").size().to_dict()
    assert counts == {"Question": 4, "Requirement": 4, "Bug": 10}
    assert taxonomy.type_of("C.10") == "Bug" and taxonomy.type_of("C.11") is None
    assert taxonomy.type_names == ["Question", "Requirement", "Bug"]


@pytest.mark.parametrize("spelling,code", [
    ("Data Pipeline and IO Management", "C.6"),
    ("Data Pipeline and I/O Management", "C.6"),
    ("Code Quality、Logging、Testing and Security", "C.9"),
    ("Training and Inference Control Logic bugs", "C.5"),
    ("Community and Document Support", "B.4"),
    ("  community and documentation support ", "B.4"),
    ("Something Else", None),
])
def test_aliases(taxonomy, spelling, code):
    assert taxonomy.code_for_name(spelling) == code


def test_normalise_and_sort():
    assert normalise_name("A、B / C") == normalise_name("a, b/c")
    assert sorted(["C.10", "C.9", "C.1"], key=theme_sort_key) == ["C.1", "C.9", "C.10"]


def test_conflicting_alias_is_refused(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("types: [{code: A, name: Q}]\nthemes:\n"
                    "  - {code: A.1, name: X, aliases: [Y]}\n  - {code: A.2, name: Y}\n")
    with pytest.raises(InputError, match="maps to both"):
        load_taxonomy(path)
