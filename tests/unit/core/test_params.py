"""The stages' typed settings (:mod:`analysis.core.params`): named as in params.yaml,
built by each notebook from its section (injected whole, or read from the project's
params.yaml), and every wrong value one message naming the setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from analysis.agreement.params import AgreementParams
from analysis.clean.params import CleanParams
from analysis.compare.params import CompareParams
from analysis.core.config import load_params
from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.findings.params import FindingsParams
from analysis.ingest.params import IngestParams
from analysis.interviews.params import InterviewsParams
from analysis.keywords.params import KeywordsParams
from analysis.taxonomy.params import TaxonomyParams
from analysis.tools.pipeline import STAGES

PARAMS = load_params(PATHS.params)
STAGE_PARAMS = [stage.params for stage in STAGES if stage.params is not None]
AGREEMENT = {"bootstrap_resamples": 10, "seed": 1, "confidence_level": 0.95,
             "ac1_categories": "taxonomy"}


def wrong(model, **values) -> InputError:
    """The error building ``model`` from ``values`` raises (the test fails if none)."""
    with pytest.raises(InputError) as err:
        model.of(**values)
    return err.value


@pytest.mark.parametrize("model", STAGE_PARAMS, ids=lambda m: m.section)
def test_fields_are_named_as_in_params_yaml_and_the_committed_values_pass(model):
    section = PARAMS[model.section]
    assert list(model.model_fields) == list(section)
    built = model.of(**section)
    for name, value in section.items():
        got = getattr(built, name)
        got = [c.model_dump() for c in got] if name == "role_categories" else got
        expected = ([{"type": None, "label": None, **c} for c in value]
                    if name == "role_categories" else value)
        assert got == expected, name


@pytest.mark.parametrize("model", [s.params for s in STAGES
                                   if s.params is not None and s.notebook],
                         ids=lambda m: m.section)  # ingest and study are no notebooks
def test_each_notebook_takes_its_section_whole_and_builds_its_settings_once(model):
    """The parameters cell names the root and ``params``, a mapping it leaves empty (nbrun
    injects the section), and the notebook builds the stage's model from it once: no
    setting is named in the notebook, so none is written more than twice (params.yaml, the
    model)."""
    notebook = PATHS.stage(model.section).notebook_source.read_text(encoding="utf-8")
    cell = notebook.split('# %% tags=["parameters"]\n', 1)[1].split("\n# %%", 1)[0]
    assert re.findall(r"^(\w+) = (.*?)(?:  #.*)?$", cell, flags=re.M) == [
        ("root", '"."'), ("params", "{}")]
    assert notebook.count(f"{model.__name__}.") == 1
    assert f"\nparams = {model.__name__}.read(root, params)\n" in notebook
    assigned = [name for name in model.model_fields
                if re.search(rf"^{name}\s*=(?!=)", notebook, flags=re.M)]
    assert assigned == [], f"settings assigned in the notebook: {assigned}"


def project_with(tmp_path, text: str | None) -> Path:
    """A project root whose params.yaml is ``text`` (none when None)."""
    if text is not None:
        (tmp_path / "params.yaml").write_text(text, encoding="utf-8")
    return tmp_path


def test_a_notebook_reads_its_section_from_the_root_each_given_setting_in_its_place(
        tmp_path):
    root = project_with(tmp_path, "agreement:\n  bootstrap_resamples: 10\n  seed: 1\n"
                                  "  confidence_level: 0.95\n  ac1_categories: taxonomy\n")
    assert AgreementParams.read(root) == AgreementParams.of(**AGREEMENT)
    assert AgreementParams.read(str(root), {}) == AgreementParams.of(**AGREEMENT)
    changed = AgreementParams.read(root, {"seed": 7})
    assert (changed.seed, changed.bootstrap_resamples) == (7, 10)
    assert AgreementParams.read(root, changed) == changed  # the cell run a second time


def test_a_notebook_given_its_whole_section_needs_no_params_yaml(tmp_path):
    root = project_with(tmp_path, None)
    assert AgreementParams.read(root, AGREEMENT) == AgreementParams.of(**AGREEMENT)
    err = pytest.raises(InputError, AgreementParams.read, root, {"seed": 1}).value
    assert str(err).startswith("params.yaml, column 'agreement.bootstrap_resamples': "
                               "agreement.bootstrap_resamples is not set")


def test_a_wrong_setting_given_to_a_notebook_is_one_message_naming_it(tmp_path):
    root = project_with(tmp_path, "findings:\n  dominant_share: 50\n")
    err = pytest.raises(InputError, FindingsParams.read, root, {"dominant": 3}).value
    assert str(err) == ("params.yaml, column 'findings.dominant': findings.dominant is not a "
                        "setting of this stage -> remove findings.dominant from params.yaml")
    err = pytest.raises(InputError, FindingsParams.read, root, {"dominant_share": 500}).value
    assert err.column == "findings.dominant_share"
    err = pytest.raises(InputError, FindingsParams.read, root, [50]).value
    assert str(err).startswith("params.yaml, column 'findings': the findings settings are "
                               "[50], not a mapping")
    project_with(tmp_path, "findings: 50\n")
    with pytest.raises(InputError, match="the findings section is not a mapping"):
        FindingsParams.read(root)


def test_a_dump_file_given_to_a_notebook_is_checked_against_the_root(dump_with_links):
    err = pytest.raises(InputError, KeywordsParams.read, dump_with_links,
                        {"keywords_file": "outside.csv"}).value
    assert "a symbolic link leads it out of data/raw/" in str(err)


@pytest.mark.parametrize(("name", "value"), [
    ("bootstrap_resamples", -1), ("bootstrap_resamples", 10.5), ("seed", "x"),
    ("seed", True), ("confidence_level", 2), ("confidence_level", 0),
    ("confidence_level", "95%"), ("confidence_level", None), ("ac1_categories", True),
    ("ac1_categories", "ten"), ("ac1_categories", 2.5), ("ac1_categories", 1)])
def test_a_wrong_agreement_setting_is_one_message_naming_it(name, value):
    err = wrong(AgreementParams, **{**AGREEMENT, name: value})
    assert re.fullmatch(rf"params\.yaml, column 'agreement\.{name}': agreement\.{name} is "
                        rf"{re.escape(repr(value))}: it must be .+ -> set agreement\.{name} "
                        r"in params\.yaml", str(err))
    assert err.column == f"agreement.{name}" and "\n" not in str(err)


def test_agreement_settings_in_range_pass():
    assert AgreementParams.of(**{**AGREEMENT, "bootstrap_resamples": 0, "seed": 0,
                                 "confidence_level": 0.5}).confidence_level == 0.5
    built = AgreementParams.of(bootstrap_resamples=2000, seed=20250613,
                               confidence_level=0.999, ac1_categories=40)
    assert (built.bootstrap_resamples, built.ac1_categories) == (2000, 40)


@pytest.mark.parametrize("share", [500, 100, 0, -5, "abc", None, True])
def test_a_dominant_share_outside_0_to_100_is_one_message_naming_it(share):
    err = wrong(FindingsParams, dominant_share=share)
    assert re.search(r"findings\.dominant_share is .*: it must be a share in percent between "
                     r"0 and 100, e\.g\. 50 -> set findings\.dominant_share in params\.yaml",
                     str(err))


def test_a_dominant_share_in_range_is_taken_as_a_number():
    assert FindingsParams.of(dominant_share=66.5).dominant_share == 66.5
    assert FindingsParams.of(dominant_share=50).dominant_share == 50.0


@pytest.mark.parametrize(("model", "values", "column"), [
    (CleanParams, {"duplicates": "drop"}, "clean.duplicates"),
    (TaxonomyParams, {"detail_files": {}, "item_split": "semicolon"}, "taxonomy.item_split"),
    (TaxonomyParams, {"detail_files": ["a.csv"], "item_split": "comma"},
     "taxonomy.detail_files"),
    (TaxonomyParams, {"detail_files": {"Bug": 3}, "item_split": "comma"},
     "taxonomy.detail_files.Bug"),
    (CompareParams, {"baseline": ""}, "compare.baseline"),
    (CompareParams, {"baseline": None}, "compare.baseline"),
    (CompareParams, {"baseline": "b", "resamples": 10, "seed": 1}, "compare.resamples"),
    (KeywordsParams, {"keywords_file": 7}, "keywords.keywords_file"),
    (CleanParams, {}, "clean.duplicates"),
])
def test_a_wrong_setting_of_any_stage_is_one_message_naming_it(model, values, column):
    err = wrong(model, **values)
    assert err.column == column and f"-> set {column} in params.yaml" in str(err)
    assert "\n" not in str(err)


def test_every_stage_with_a_section_of_params_yaml_declares_its_model():
    assert sorted(m.section for m in STAGE_PARAMS) == sorted(PARAMS)


@pytest.fixture
def dump_with_links(tmp_path) -> Path:
    """A project whose data/raw holds a file, a link to it, and links that lead outside."""
    raw = tmp_path / "project" / "data" / "raw"
    (raw / "Issue Report").mkdir(parents=True)
    (raw / "Issue Report" / "bug_symptoms.csv").write_text("theme\n")
    (tmp_path / "secret.txt").write_text("not the dump's\n")
    (raw / "inside").symlink_to(raw / "Issue Report")
    (raw / "outside.csv").symlink_to(tmp_path / "secret.txt")
    (raw / "elsewhere").symlink_to(tmp_path)
    return tmp_path / "project"


@pytest.mark.parametrize("value, why", [
    ("/etc/passwd", "an absolute path, outside the dump"),
    ("../../secret.txt", "'..' leads out of data/raw/"),
    ("Issue Report/../../secret.txt", "'..' leads out of data/raw/"),
    ("outside.csv", "a symbolic link leads it out of data/raw/"),
    ("elsewhere/secret.txt", "a symbolic link leads it out of data/raw/"),
    (".", "it names data/raw/ itself, not a file of it"),
    ("", "it must name a file of the dump"),
])
def test_a_setting_naming_a_file_outside_the_dump_is_one_line(dump_with_links, value, why):
    err = wrong(KeywordsParams, root=dump_with_links, keywords_file=value)
    assert str(err) == (
        f"params.yaml, column 'keywords.keywords_file': keywords.keywords_file is {value!r}: "
        f"{why} -> set keywords.keywords_file in params.yaml to a file of the dump, "
        "relative to data/raw/")
    err = wrong(TaxonomyParams, root=dump_with_links, item_split="comma",
                detail_files={"Question": "q.csv", "Bug": value})
    assert err.column == "taxonomy.detail_files.Bug" and why in str(err)


def test_a_setting_naming_a_file_of_the_dump_passes(dump_with_links):
    for value in ("Issue Report/bug_symptoms.csv", "inside/bug_symptoms.csv", "absent.csv"):
        built = KeywordsParams.of(dump_with_links, keywords_file=value)
        assert built.keywords_file == value
    # without the project's root only the form is checked: no link is followed
    assert KeywordsParams.of(keywords_file="outside.csv").keywords_file == "outside.csv"


@pytest.mark.parametrize("name", ["../../etc/passwd", "/tmp/x", "sub/name", "..", "a\\b", " "])
def test_a_baseline_is_a_snapshot_name_without_a_folder(name):
    err = wrong(CompareParams, baseline=name, resamples=10_000, seed=1)
    assert str(err) == (
        f"params.yaml, column 'compare.baseline': compare.baseline is {name!r}: it must be "
        "the name of a snapshot in data/baseline/ (without .json), e.g. upstream-2fba316 "
        "(a file name, without a folder or '..') -> set compare.baseline in params.yaml")
    assert CompareParams.of(baseline="upstream-1", resamples=10_000,
                            seed=1).baseline == "upstream-1"


def test_a_wrong_role_category_names_the_entry_and_the_field():
    section = PARAMS["interviews"]
    bad = [*section["role_categories"], {"key": "x", "pattern": "(unclosed"}]
    err = wrong(InterviewsParams, **{**section, "role_categories": bad})
    at = f"interviews.role_categories[{len(bad) - 1}].pattern"
    assert err.column == at and "it must be a regular expression" in str(err)
    assert "missing ), unterminated subpattern" in str(err)
    err = wrong(InterviewsParams, **{**section, "role_categories": [{"pattern": "x"}]})
    assert err.column == "interviews.role_categories[0].key" and "is not set" in str(err)
    err = wrong(InterviewsParams, **{**section, "role_categories": [
        {"key": "a", "pattern": "a", "lable": "A"}]})
    assert str(err).startswith("params.yaml, column 'interviews.role_categories[0].lable': "
                               "interviews.role_categories[0].lable is not a setting")
    assert err.fix == "remove interviews.role_categories[0].lable from params.yaml"


def test_an_unknown_setting_is_named_and_the_file_is_the_one_read():
    err = wrong(FindingsParams, file="other.yaml", dominant_share=50, dominant=3)
    assert str(err) == ("other.yaml, column 'findings.dominant': findings.dominant is not a "
                        "setting of this stage -> remove findings.dominant from other.yaml")


def test_settings_do_not_change_once_built():
    built = FindingsParams.of(dominant_share=50)
    with pytest.raises(ValueError, match="frozen"):
        built.dominant_share = 60


@pytest.mark.parametrize(("value", "read"), [(None, 10_000), (5, 5), (1, 1)])
def test_an_ingest_limit_is_a_whole_number_or_its_default(value, read):
    assert IngestParams.of(source="dump", max_files=value).max_files == read
    assert IngestParams.of(source="dump").max_bytes == 1 << 30


@pytest.mark.parametrize("value", [0, -1, True, 2.5, "10"])
def test_an_ingest_limit_refuses_anything_else_in_one_line(value):
    err = wrong(IngestParams, file="p.yaml", source="dump", max_bytes=value)
    assert str(err) == (f"p.yaml, column 'ingest.max_bytes': ingest.max_bytes is {value!r}: "
                        "it must be a whole number of at least 1, e.g. 1073741824 (null: that "
                        "default) -> set ingest.max_bytes in p.yaml")


def test_a_stage_that_is_no_notebook_loads_its_section_from_the_file_it_is_given(tmp_path):
    params = tmp_path / "other.yaml"
    params.write_text("ingest:\n  source: dump\n  max_files: 7\n", encoding="utf-8")
    assert IngestParams.load(params).max_files == 7
    params.write_text("ingest: [dump]\n", encoding="utf-8")
    with pytest.raises(InputError, match="the ingest section is not a mapping"):
        IngestParams.load(params)
    params.write_text("ingest:\n  max_files: 7\n", encoding="utf-8")
    err = pytest.raises(InputError, IngestParams.load, params).value
    assert err.file == str(params) and err.column == "ingest.source"
