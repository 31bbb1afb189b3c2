"""The pipeline DAG of the Reproducibility page: DVC's Mermaid text, or the same text
derived from dvc.yaml where DVC cannot answer."""

from __future__ import annotations

import shutil

import pytest

from analysis.core.paths import ROOT
from analysis.report.dag import (
    BOX_STYLE,
    dvc_mermaid,
    graph_from_dvc_yaml,
    pipeline_graph,
    to_mermaid,
    update_stages,
    with_wings,
)


@pytest.mark.slow  # starts DVC
def test_the_text_derived_from_dvc_yaml_is_the_one_dvc_gives():
    assert dvc_mermaid(ROOT) == to_mermaid(*graph_from_dvc_yaml(ROOT / "dvc.yaml"))


@pytest.mark.slow  # asks DVC first
def test_outside_a_dvc_repository_the_graph_is_derived_from_dvc_yaml(tmp_path):
    for name in ("dvc.yaml", "params.yaml"):  # the foreach stages read params.yaml's lists
        shutil.copyfile(ROOT / name, tmp_path / name)
    text, how = pipeline_graph(tmp_path)
    assert how == "derived from dvc.yaml"
    assert text == with_wings(to_mermaid(*graph_from_dvc_yaml(tmp_path / "dvc.yaml")),
                              update_stages(tmp_path / "dvc.yaml"))


def test_a_foreach_stage_is_one_stage_an_item_of_its_list(tmp_path):
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n  merge:\n    foreach: ${study.batches}\n    do:\n      cmd: m ${item}\n"
        "      deps:\n        - labels/${item}\n      outs:\n        - build/${item}\n"
        "  study:\n    cmd: s\n    deps: [build]\n    outs: [out]\n", encoding="utf-8")
    (tmp_path / "params.yaml").write_text("study:\n  batches: [a, b]\n", encoding="utf-8")
    assert graph_from_dvc_yaml(tmp_path / "dvc.yaml") == (
        ["merge@a", "merge@b", "study"], [("merge@a", "study"), ("merge@b", "study")])
    (tmp_path / "params.yaml").write_text("study:\n  batches: []\n", encoding="utf-8")
    assert graph_from_dvc_yaml(tmp_path / "dvc.yaml") == (["study"], [])


def test_to_mermaid_numbers_the_stages_in_order():
    assert to_mermaid(["b", "a"], [("a", "b")]) == (
        'flowchart TD\n\tnode1["a"]\n\tnode2["b"]\n\tnode1-->node2\n')


def test_the_stages_are_drawn_in_the_two_parts_of_the_package(tmp_path):
    (tmp_path / "dvc.yaml").write_text(
        "stages:\n"
        "  batches: {cmd: python -m analysis.update.study.records --out b, outs: [b]}\n"
        "  merge:\n    foreach: ${study.batches}\n"
        "    do: {cmd: 'python -m analysis.update.study.batch labels/${item}',"
        " deps: [b], outs: ['m/${item}']}\n"
        "  clean: {cmd: python -m analysis.tools.nbrun clean, deps: [m], outs: [c]}\n",
        encoding="utf-8")
    (tmp_path / "params.yaml").write_text("study:\n  batches: [x]\n", encoding="utf-8")
    assert update_stages(tmp_path / "dvc.yaml") == {"batches", "merge"}
    text = with_wings(to_mermaid(*graph_from_dvc_yaml(tmp_path / "dvc.yaml")),
                      update_stages(tmp_path / "dvc.yaml"))
    update, reproduction = text.split("\tsubgraph ")[1:]
    assert '"batches"' in update and '"merge@x"' in update and '"clean"' not in update
    assert reproduction.startswith('reproduction["') and '"clean"' in reproduction
    assert "-->" not in update and text.count("\tend\n") == 2
    assert with_wings("flowchart TD\n\tnode1[\"a\"]\n", frozenset()) == (
        'flowchart TD\n\tsubgraph reproduction["reproduction"]\n'
        f'\t\tnode1["a"]\n\tend\n\tstyle reproduction {BOX_STYLE}\n')
