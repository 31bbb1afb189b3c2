"""Reading YAML (analysis.core.config): every failure is one message naming the file."""

from __future__ import annotations

import pytest

from analysis.core.config import load_params, load_yaml
from analysis.core.errors import InputError


def test_yaml_is_read_safely(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("a: 1\nb: [x, y]\n", encoding="utf-8")
    assert load_yaml(path) == {"a": 1, "b": ["x", "y"]}
    path.write_text("!!python/object/apply:os.system ['true']\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid YAML"):
        load_yaml(path)


def test_a_syntax_error_names_the_line(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("a: 1\nb: [x, y\nc: 2\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_yaml(path)
    assert err.value.line == 3  # where the unclosed list meets the next key
    assert str(path) in str(err.value)


def test_missing_and_unreadable_files_are_one_message(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_yaml(tmp_path / "none.yaml")
    bad = tmp_path / "latin.yaml"
    bad.write_bytes(b"a: \xe9t\xe9\n")
    with pytest.raises(InputError, match="cannot read it as UTF-8"):
        load_yaml(bad)


def test_empty_params_are_an_empty_mapping(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("", encoding="utf-8")
    assert load_params(path) == {}
