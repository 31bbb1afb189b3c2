"""``make validate-release`` (:mod:`analysis.report.checkrelease`): DVC's MD5s recomputed
as DVC computes them, a crate whose MD5 is not its file's caught, the validator's cache
filled without network, a missing archive in one line."""

from __future__ import annotations

import hashlib
import json

from analysis.report import checkrelease as cr


def write(folder, files: dict[str, bytes]):
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


def test_a_folder_s_md5_is_the_one_dvc_computes(tmp_path):
    from dvc_data.hashfile.hash_info import HashInfo
    from dvc_data.hashfile.tree import Tree

    files = {"b.txt": b"two\n", "a/z.csv": b"x,y\n1,2\n", "a/é.md": b"# hi\n"}
    folder = write(tmp_path / "f", {**files, "a/__pycache__/m.pyc": b"\0", "c.pyc": b"\0"})
    tree = Tree()
    for rel, data in files.items():
        tree.add(tuple(rel.split("/")), None, HashInfo("md5", hashlib.md5(data).hexdigest()))
    tree.digest()
    assert cr.dvc_md5(folder) == tree.hash_info.value
    assert cr.dvc_md5(folder / "b.txt") == hashlib.md5(b"two\n").hexdigest()


def crate(entities: list[dict]) -> dict:
    return {"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": entities}


def test_an_md5_that_is_not_the_archive_s_is_named(tmp_path):
    write(tmp_path, {"source/a.txt": b"a\n", "downloads/d.json": b"{}\n"})
    good = hashlib.md5(b"a\n").hexdigest()
    entities = [
        {"@id": "source/a.txt", "@type": "File", "identifier": {"@id": "#md5-1"}},
        {"@id": "#md5-1", "@type": "PropertyValue", "propertyID": "md5", "value": good},
        {"@id": "downloads/", "@type": "Dataset", "identifier": {"@id": "#md5-2"}},
        {"@id": "#md5-2", "@type": "PropertyValue", "propertyID": "md5", "value": "0.dir"},
        {"@id": "#dvc:data/raw/", "@type": "Dataset", "identifier": {"@id": "#md5-3"}},
        {"@id": "#md5-3", "@type": "PropertyValue", "propertyID": "md5", "value": "9.dir"}]
    (tmp_path / "ro-crate-metadata.json").write_text(json.dumps(crate(entities)))
    checked, wrong = cr.md5_mismatches(tmp_path)
    assert checked == 2
    assert wrong == [f"downloads/: crate 0.dir, archive {cr.dvc_md5(tmp_path / 'downloads')}"]


def test_the_validator_s_cache_is_filled_without_network(tmp_path):
    from requests_cache import CachedSession

    cache = tmp_path / "http"
    cr.warm_cache(cache, {cr.CONTEXT_1_1: {"@context": {"a": "b"}}})
    session = CachedSession(cache_name=str(cache), backend="sqlite", expire_after=-1)
    session.settings.only_if_cached = True
    response = session.get(cr.CONTEXT_1_1)
    assert response.from_cache and response.json() == {"@context": {"a": "b"}}
    assert "ComputationalWorkflow" in cr.context_1_1()["@context"]


def test_no_archive_is_one_line(tmp_path, capsys):
    assert cr.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"validate-release: {tmp_path}: no ro-crate-metadata.json -> run make "
                   "release first\n")
