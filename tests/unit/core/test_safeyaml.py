import pytest
import yaml

from analysis.core.safeyaml import safe_load, safe_loader


def test_the_loader_is_a_safe_one():
    assert safe_loader() is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert "Safe" in safe_loader().__name__


def test_it_reads_what_the_python_safe_loader_reads():
    text = ("a: 1\nb: [x, 'y z', {c: null}]\nd: |\n  two\n  lines\ne: 2024-01-01\n"
            "f: 'it''s'\ng: &w word\nh: *w\n")
    assert safe_load(text) == yaml.safe_load(text)


def test_it_refuses_python_objects():
    with pytest.raises(yaml.YAMLError):
        safe_load("!!python/object/apply:os.system ['true']")
