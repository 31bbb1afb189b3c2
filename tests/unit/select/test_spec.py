"""The collection spec: read from the projects file, checked, in Table I's order."""

from __future__ import annotations

import pytest

from analysis.core.errors import InputError
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.keywords.compute import parse_keyword_file
from analysis.update.select.engine import _canonical
from analysis.update.select.spec import build_spec

LISTS = parse_keyword_file("pytorch_keywords = ['llm', 'llm', 'ZeRO']\n"
                           "tensorflow_keywords = ['llm']\nmindspore_keywords = ['llm']\n")


def projects_file(tmp_path, text: str) -> Projects:
    path = tmp_path / "projects.yaml"
    path.write_text(text, encoding="utf-8")
    return Projects.load(path)


def test_the_committed_spec_covers_the_papers_eleven_projects():
    spec = build_spec(Projects.load(PATHS.projects_file), LISTS)
    keys = [t.key for t in spec.targets]
    assert len(keys) == 11 and keys[:3] == ["pytorch", "tensorflow", "mindspore"]
    by_key = {t.key: t for t in spec.targets}
    assert by_key["pytorch"].keywords == ("llm", "ZeRO")
    assert by_key["vllm"].keywords is None  # toolkits: every issue
    assert by_key["DeepSpeed"].names == ("deepspeedai/DeepSpeed", "microsoft/DeepSpeed")
    assert by_key["mindspore"].platform == "gitee"
    assert spec.repositories()[("github", "microsoft/deepspeed")] == keys.index("DeepSpeed")
    assert "ascend/MindSpeed" not in spec.github_names()


def test_only_some_projects_and_the_window(tmp_path):
    spec = build_spec(Projects.load(PATHS.projects_file), None, ["vllm", "DeepSpeed"],
                      since="2023-01-01", until="2025-04-30")
    assert [t.key for t in spec.targets] == ["DeepSpeed", "vllm"]  # Table I's order
    assert spec.in_window("2025-04-30T23:59:59Z") and not spec.in_window("2025-05-01")
    assert not spec.in_window("2022-12-31T23:00:00Z")


@pytest.mark.parametrize("text,only,what", [
    ("projects:\n  a: {platform: gitlab, repository: o/r}\n", None, "platform 'gitlab'"),
    ("projects:\n  a: {repository: not-a-repo}\n", None, "is not owner/name"),
    ("projects:\n  a: {former_names: [o/r]}\n", None, "former_names without a repository"),
    ("projects:\n  a: {repository: o/r, filter: [x]}\n", None, "filter must name"),
    ("projects:\n  a: {repository: o/r, filter: jax}\n", None, "no keyword list 'jax'"),
    ("projects:\n  a: {name: A}\n", None, "no project of the projects file names a repo"),
    ("projects:\n  a: {name: A}\n", ["a"], "names no repository"),
    ("projects:\n  a: {repository: o/r}\n", ["b"], "not in the projects file: b"),
])
def test_a_wrong_spec_is_refused_with_the_project_named(tmp_path, text, only, what):
    with pytest.raises(InputError, match=what):
        build_spec(projects_file(tmp_path, text), LISTS, only)


def test_a_filter_without_a_keyword_file_and_bad_dates_are_refused(tmp_path):
    projects = projects_file(tmp_path, "projects:\n  a: {repository: o/r, filter: pytorch}\n")
    with pytest.raises(InputError, match="no keyword file"):
        build_spec(projects, None)
    with pytest.raises(InputError, match="is not a date"):
        build_spec(projects, LISTS, since="2024/01/01")
    with pytest.raises(InputError, match="'2025-02-30' is not a date"):
        build_spec(projects, LISTS, until="2025-02-30")
    with pytest.raises(InputError, match="after --until"):
        build_spec(projects, LISTS, since="2025-01-01", until="2024-01-01")
    with pytest.raises(InputError, match="--match"):
        build_spec(projects, LISTS, match="stem")


@pytest.mark.parametrize("url,repo,expect", [
    ("https://github.com/microsoft/DeepSpeed/issues/7", "microsoft/deepspeed",
     "https://github.com/deepspeedai/DeepSpeed/issues/7"),
    ("https://github.com/DeepSpeedAI/deepspeed/issues/7", "deepspeedai/deepspeed",
     "https://github.com/deepspeedai/DeepSpeed/issues/7"),
])
def test_urls_are_rewritten_to_the_current_name(url, repo, expect):
    assert _canonical(url, repo, "deepspeedai/DeepSpeed") == expect
