"""Names that look alike are one name or refused: annotators (NFKC form, one script:
analysis.core.people) and batches (plain names of at most 100 characters)."""

from __future__ import annotations

import pytest

from analysis.core import people
from analysis.core.errors import InputError
from analysis.update.labels import merge, sheets
from analysis.update.labels.extend import check_name
from analysis.update.labels.records import batch_field_problem
from analysis.update.study.params import StudyParams
from tests.support.sheets import blank_sheets, candidates_frame, fill

LATIN, FULLWIDTH, CYRILLIC = "Ann", "\uff21\uff4e\uff4e", "\u0410nn"  # Ann, Ａｎｎ, Аnn
U = [f"https://github.com/pytorch/pytorch/issues/{n}" for n in (1, 2)]
CANDIDATES = candidates_frame([("pytorch", u, "2024-01-01T00:00:00Z", "t") for u in U])


def test_a_name_is_read_in_nfkc_form_and_one_mixing_scripts_is_refused():
    assert people.normal_name(f" {FULLWIDTH} ") == LATIN
    assert people.mixed_scripts(CYRILLIC) == ["CYRILLIC", "LATIN"]
    assert people.name_problem(CYRILLIC).startswith(
        "the annotator's name 'Аnn' (\\u0410nn) mixes scripts (Cyrillic and Latin)")
    for one_script in ("Анна", "Ann-2", "山田はなこ", "Chen.W", "#3"):
        assert people.name_problem(one_script) is None, one_script


def test_the_team_is_named_in_nfkc_form_and_a_homoglyph_is_refused():
    assert sheets.parse_team(f"{FULLWIDTH},bob") == [LATIN, "bob"]
    with pytest.raises(InputError, match="'Ann' is named twice"):
        sheets.parse_team(f"{LATIN},{FULLWIDTH}")
    with pytest.raises(InputError, match="mixes scripts") as caught:
        sheets.parse_team(f"{LATIN},{CYRILLIC}")
    assert "--annotators" in str(caught.value) and "\n" not in str(caught.value)


def team_sheets(tmp_path, taxonomy, names: list[str]):
    paths = blank_sheets(tmp_path / "sel", CANDIDATES, len(names), taxonomy)
    for path, name in zip(paths, names, strict=True):
        fill(path, {U[0]: ("C.1", ""), U[1]: ("C.2", "")},
             cells={u: {"annotator": name} for u in U})
    return paths


def test_homoglyph_annotators_are_one_person_or_refused_by_the_merge(tmp_path, taxonomy):
    paths = team_sheets(tmp_path, taxonomy, [LATIN, FULLWIDTH, "bob"])
    with pytest.raises(merge.SheetProblems) as caught:
        merge.merge_inputs(paths, tmp_path / "out", set(taxonomy.codes))
    assert any("the labels of Ann are in" in str(p) for p in caught.value.problems)
    paths = team_sheets(tmp_path / "2", taxonomy, [LATIN, CYRILLIC, "bob"])
    with pytest.raises(merge.SheetProblems) as caught:
        merge.merge_inputs(paths, tmp_path / "out", set(taxonomy.codes))
    assert any("mixes scripts" in str(p) for p in caught.value.problems)
    assert not (tmp_path / "out").exists()


def test_a_fullwidth_name_is_merged_as_its_plain_letters(tmp_path, taxonomy):
    paths = team_sheets(tmp_path, taxonomy, [FULLWIDTH, "bob", "chen"])
    result = merge.merge_inputs(paths, tmp_path / "out", set(taxonomy.codes))
    assert result.annotators == [LATIN, "bob", "chen"]


@pytest.mark.parametrize("length, good", [(100, True), (101, False), (300, False)])
def test_a_batch_name_is_at_most_100_characters(tmp_path, length, good):
    name = "b" * length
    params = tmp_path / "params.yaml"
    params.write_text(f"study:\n  batches: [{name}]\n", encoding="utf-8")
    if good:
        assert StudyParams.load(params).batches == [name]
        check_name(name, set())
        assert batch_field_problem("name", name) is None
        return
    with pytest.raises(InputError, match="at most 100 characters") as caught:
        StudyParams.load(params)
    assert "\n" not in str(caught.value)
    with pytest.raises(InputError, match="at most 100 characters") as caught:
        check_name(name, set())
    assert len(str(caught.value)) < 400  # the name shown by its start and length
    assert "at most 100 characters" in batch_field_problem("name", name)
