"""dvc.yaml is generated from the stages' declarations (:mod:`analysis.tools.pipeline`), and
the notebooks write no parameter value of their own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

from analysis.core.config import load_params
from analysis.core.paths import ROOT, STAGES, Paths
from analysis.core.pipeline import Plot, Stage
from analysis.tools import pipeline

PATHS = Paths(ROOT)


def test_the_committed_dvc_yaml_is_the_generated_one():
    assert PATHS.dvc_yaml.read_text(encoding="utf-8") == pipeline.generate(), \
        "dvc.yaml drifted from the stages' declarations: run python -m analysis.tools.pipeline"


def test_check_fails_on_a_hand_edit(monkeypatch, capsys):
    monkeypatch.setattr(pipeline, "generate", lambda: "stages: {}\n")
    assert pipeline.main(["--check"]) == 1
    assert "not the generated one" in capsys.readouterr().err


# The study's stages come first: the team's batches merged and the release extended with
# them (analysis.update.study), the study that ingest copies.
STUDY_STAGES = ["batches", "merge", "study"]


def test_every_stage_is_declared_in_pipeline_order():
    names = [stage.name for stage in pipeline.STAGES]
    assert names == [*STUDY_STAGES, "ingest", *STAGES, "report"]


def command_stage(name: str, reads: tuple[str, ...] = (), outs: tuple[str, ...] = ()) -> Stage:
    return Stage(name, reads=reads, outs=outs, notebook=False, cmd=f"run {name}",
                 module=f"analysis.{name}")


def test_stages_run_after_the_stages_they_read_from():
    first = command_stage("z_first", outs=("data/first",))
    second = command_stage("a_second", reads=("data/first/x.csv",), outs=("out/second",))
    last = command_stage("m_last", reads=("out",))
    stages = [last, second, first]
    assert [s.name for s in pipeline.upstream(last, stages)] == ["a_second"]
    assert pipeline.upstream(first, stages) == []
    assert [s.name for s in pipeline.pipeline_order(stages)] == ["z_first", "a_second", "m_last"]


def test_of_the_stages_ready_the_lower_notebook_number_runs_first():
    order = [s.name for s in pipeline.STAGES]
    numbered = [name for name in order if name in STAGES]
    assert numbered == list(STAGES)  # no stage reads a later one's outputs
    assert order[len(STUDY_STAGES)] == "ingest" and order[-1] == "report"


def test_stages_that_read_each_other_are_refused():
    one = command_stage("one", reads=("b",), outs=("a",))
    two = command_stage("two", reads=("a",), outs=("b",))
    with pytest.raises(ValueError, match="one, two read each other's outputs in a circle"):
        pipeline.pipeline_order([one, two])


def test_every_package_with_a_stage_is_found():
    found = {stage.package_name for stage in pipeline.discover()}
    src = ROOT / "src/analysis"
    packages = {p.parent.relative_to(src).as_posix()
                for p in [*src.glob("*/__init__.py"), *src.glob("update/*/__init__.py")]
                if re.search(r"\nSTAGES? = ", p.read_text(encoding="utf-8"))}
    assert found == packages == {stage.package_name for stage in pipeline.STAGES}
    assert {s.name for s in pipeline.STAGES
            if s.package_name == "update/study"} == set(STUDY_STAGES)


def test_a_foreach_stage_is_dvcs_foreach_over_its_list():
    merge = next(s for s in pipeline.STAGES if s.name == "merge")
    entry = pipeline.stage_entry(merge, ROOT, {"study": {"batches": []}})
    assert entry["foreach"] == "${study.batches}"
    assert entry["do"]["cmd"] == ("python -m analysis.update.study.batch labels/${item} --out "
                                  "build/merged/${item} --record merges/${item}.json")
    assert entry["do"]["deps"][0] == "labels/${item}"
    # the record of the merge is kept in git and read on the next run
    assert entry["do"]["outs"] == ["build/merged/${item}", {
        "merges/${item}.json": {"cache": False, "persist": True}}]
    assert "params" not in entry["do"]  # a new batch in the list merges that batch only


def test_the_study_runs_after_every_batch_and_before_ingest():
    by_name = {s.name: s for s in pipeline.STAGES}
    assert {s.name for s in pipeline.upstream(by_name["study"], pipeline.STAGES)} == {
        "batches", "merge"}
    assert [s.name for s in pipeline.upstream(by_name["ingest"], pipeline.STAGES)] == [
        "study"]
    entry = pipeline.stage_entry(by_name["study"], ROOT, load_params(PATHS.params))
    assert entry["deps"][:2] == ["${ingest.source}", "build/merged"]
    assert entry["params"] == ["study", "ingest"]


def test_a_foreach_path_overlaps_what_lies_below_its_folder():
    assert pipeline.overlaps("build/merged", "build/merged/${item}")
    assert pipeline.overlaps("build/merged/${item}", "build/merged/x/labels")
    assert not pipeline.overlaps("build/study", "build/merged/${item}")


def test_a_stage_depends_on_the_declarations_of_the_stages_it_reads_only():
    by_name = {stage.name: stage for stage in pipeline.STAGES}
    declarations = {name: {d for d in pipeline.code_deps(stage, ROOT)
                           if d.endswith("/schemas.yaml")} for name, stage in by_name.items()}
    assert declarations["ingest"] == set()
    assert declarations["table1"] == {"src/analysis/clean/schemas.yaml"}
    assert declarations["findings"] == {f"src/analysis/{name}/schemas.yaml" for name in (
        "table1", "taxonomy", "agreement", "interviews", "keywords")}
    assert len(declarations["report"]) == len(list((ROOT / "src/analysis").glob(
        "*/schemas.yaml")))


def test_a_stage_has_the_params_of_its_section_only():
    params = {"clean": {"duplicates": "keep"}}
    clean = next(s for s in pipeline.STAGES if s.name == "clean")
    table1 = next(s for s in pipeline.STAGES if s.name == "table1")
    assert pipeline.stage_entry(clean, ROOT, params)["params"] == ["clean"]
    assert "params" not in pipeline.stage_entry(table1, ROOT, params)


def _package(tmp_path: Path) -> Path:
    """A project with a stage ``toy`` whose notebook imports its compute module, which
    imports a core module and a tools module."""
    src = tmp_path / "src" / "analysis"
    files = {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/paths.py": "",
        "tools/__init__.py": "",
        "tools/nbrun.py": "from analysis.core import paths\n",
        "tools/extra.py": "",
        "toy/__init__.py": "",
        "toy/compute.py": "from analysis.core.paths import X\nfrom analysis.tools import extra\n",
        "other/__init__.py": "",
    }
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return tmp_path


def test_code_deps_are_what_the_stage_runs(tmp_path, monkeypatch):
    root = _package(tmp_path)
    notebook = root / "nb.py"
    notebook.write_text("from analysis.toy import compute\n")
    monkeypatch.setattr(pipeline, "entry_modules", lambda stage, root: {
        stage.entry_module, *pipeline.imported_modules(pipeline.package_root(root), notebook)})
    deps = pipeline.code_deps(Stage("toy"), root)
    assert deps == ["src/analysis/core", "src/analysis/tools/__init__.py",
                    "src/analysis/tools/extra.py", "src/analysis/tools/nbrun.py",
                    "src/analysis/toy"]


def test_yaml_is_written_in_dvc_yaml_style():
    text = pipeline._block({"s": {"cmd": "python -m x", "deps": ["a", "${b.c}", "a: b"],
                                  "params": [{"params.yaml": None}],
                                  "metrics": [{"m.json": {"cache": False}}]}})
    assert text.splitlines() == [
        "  s:", "    cmd: python -m x", "    deps:", "      - a", "      - ${b.c}",
        "      - 'a: b'", "    params:", "      - params.yaml:", "    metrics:",
        "      - m.json:", "          cache: false"]
    assert yaml.safe_load(text)["s"]["metrics"] == [{"m.json": {"cache": False}}]


def test_plots_list_images_then_charts():
    stages = (Stage("x", plots=(Plot("a.png"), Plot("t.csv", "T", x="n", y="k"))),
              Stage("y", plots=(Plot("b.png"),)))
    assert pipeline.plots(stages) == ["a.png", "b.png", {"T": {
        "template": "bar_horizontal", "x": "n", "y": {"t.csv": "k"}}}]


# --------------------------------------------------------------------------- notebooks


def parameters_cell(notebook: Path) -> dict[str, object]:
    """The names the notebook's ``parameters`` cell assigns, with their literal values."""
    text = notebook.read_text(encoding="utf-8")
    cell = text.split('# %% tags=["parameters"]\n', 1)[1].split("\n# %%", 1)[0]
    return {node.targets[0].id: ast.literal_eval(node.value)
            for node in ast.parse(cell).body if isinstance(node, ast.Assign)}


@pytest.mark.parametrize("name", list(STAGES))
def test_a_notebook_takes_its_section_whole_and_writes_no_value(name):
    """The parameters cell holds the root and, for a stage with a params.yaml section,
    ``params``, empty (nbrun injects the whole section): no setting is named in the
    notebook, so no notebook default can disagree with params.yaml."""
    assigned = parameters_cell(PATHS.stage(name).notebook_source)
    has_section = name in load_params(PATHS.params)
    assert assigned == ({"root": ".", "params": {}} if has_section else {"root": "."})


def test_the_parameter_check_can_fail(tmp_path):
    nb = tmp_path / "nb.py"
    nb.write_text('# %% tags=["parameters"]\nroot = "."\nrole_categories = []\n\n# %%\nx = 1\n')
    assert parameters_cell(nb) == {"root": ".", "role_categories": []}
