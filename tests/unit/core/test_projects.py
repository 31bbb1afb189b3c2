"""The projects file (analysis.core.projects): display names, Table I's order, the
collection spec, and one message for a wrong entry."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.core.projects import Projects

YAML = """projects:
  vllm: {name: vLLM, kind: toolkit, order: 2, platform: github,
         repository: vllm-project/vllm, former_names: [Old/VLLM]}
  pytorch: {name: PyTorch, kind: framework, order: 1, paper_name: Pytorch}
"""


@pytest.fixture
def projects(tmp_path):
    path = tmp_path / "projects.yaml"
    path.write_text(YAML, encoding="utf-8")
    return Projects.load(path)


def test_described_projects_have_their_names_kinds_and_order(projects):
    assert projects.names(["vllm", "pytorch"]) == {"vllm": "vLLM", "pytorch": "PyTorch"}
    assert projects.kind("pytorch") == "framework"
    assert projects.get("pytorch").paper_name == "Pytorch"
    assert projects.order(["zeta", "vllm", "alpha", "pytorch", "vllm"]) == [
        "pytorch", "vllm", "alpha", "zeta"]  # unlisted ones last, by folder name


def test_an_unlisted_folder_is_shown_under_its_own_name(projects):
    assert not projects.is_described("sglang")
    assert (projects.name("sglang"), projects.kind("sglang")) == ("sglang", "unknown")


def test_former_names_lead_to_the_current_repository(projects):
    assert projects.renames() == {"old/vllm": "vllm-project/vllm"}


def test_a_missing_file_describes_no_project(tmp_path):
    assert Projects.load(tmp_path / "none.yaml").described == {}


@pytest.mark.parametrize("text,message", [
    ("projects: [a, b]\n", "must map folder names"),
    ("projects:\n  x: 3\n", "project 'x': expected a mapping"),
    ("projects:\n  x: {platform: gitlab}\n", "platform 'gitlab' is not one of"),
])
def test_a_wrong_entry_is_one_message(tmp_path, text, message):
    path = tmp_path / "projects.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        Projects.load(path)
