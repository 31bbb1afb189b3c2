"""The local Label Studio server and the studio commands' messages, without Label Studio:
a port in use is one line with the way to choose another, the server's group of
processes is stopped whole, the password command names the server's data, the project
is titled by its batch, the export leads to adding the batch to the study, and one server
at a time holds a data folder."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from analysis.core.errors import InputError
from analysis.update.labels import __main__ as cli
from analysis.update.labels import studio, studio_server


def test_a_port_in_use_is_one_line_naming_it_and_how_to_choose_another(capsys, tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind((studio_server.HOST, 0))
        held.listen()
        port = held.getsockname()[1]
        assert studio_server.port_in_use(port)
        code = cli.main(["studio", "serve", "--port", str(port), "--data",
                         str(tmp_path / "data"), "--venv", str(tmp_path / "venv")])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1
    assert f"port {port} of 127.0.0.1 is in use" in err
    assert f"make studio PORT={port + 1}" in err
    assert not (tmp_path / "venv").exists()  # nothing installed, nothing started


def test_stop_ends_the_servers_whole_process_group():
    process = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"],
                               start_new_session=True)
    time.sleep(0.3)
    studio_server.stop(process, grace=5)
    time.sleep(0.2)
    assert running_in_group(process.pid) == []  # the children (sleep) ended with it


def running_in_group(group: int) -> list[int]:
    """The processes of a process group that are running (not ended, nor ended and left
    for their parent to collect)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def test_the_password_command_names_the_servers_data_folder_and_database():
    command = studio_server.password_command(Path(".venv-studio"), Path(".studio"),
                                             "alice@localhost")
    assert command == (".venv-studio/bin/label-studio reset_password --data-dir .studio "
                       "--database .studio/label_studio.sqlite3 --username alice@localhost")


def test_the_project_is_titled_by_its_batch_and_the_export_leads_to_the_study():
    assert cli.batch_title(Path("labels/2026-01")) == "Batch 2026-01"
    line = cli.next_after_export(Path("labels/2026-01"))
    assert "add 2026-01 to study.batches in params.yaml" in line
    assert "analysis.tools.repro merge@2026-01" in line


def test_one_theme_is_chosen_with_radio_buttons(taxonomy):
    from analysis.update.labels.codebook import Codebook

    config = studio.label_config(Codebook.load(taxonomy) if hasattr(Codebook, "load")
                                 else codebook_of(taxonomy))
    assert config.count('choice="single-radio"') == 2 and 'choice="single"' not in config


def codebook_of(taxonomy):
    from tests.support.sheets import codebook_of as make

    return make(taxonomy)


def test_the_servers_temporary_files_stay_in_its_data_folder(tmp_path):
    data = tmp_path / "studio"
    studio_server.private_folder(data)
    left = data / "tmp"
    left.mkdir()
    (left / "tmpab12.json").write_text('[{"annotations": []}]')  # a killed server's export
    folder = studio_server.temp_folder(data)
    assert folder == left and folder.is_dir() and not any(folder.iterdir())
    assert folder.stat().st_mode & 0o777 == 0o700
    env = studio_server.server_env(data, {"email": "a@localhost", "password": "p",
                                          "token": "t"})
    assert env["TMPDIR"] == str(folder)


def test_a_link_in_place_of_the_temporary_folder_is_replaced_not_followed(tmp_path):
    data, elsewhere = tmp_path / "studio", tmp_path / "elsewhere"
    studio_server.private_folder(data)
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("not the server's")
    (data / "tmp").symlink_to(elsewhere, target_is_directory=True)
    folder = studio_server.temp_folder(data)
    assert folder.is_dir() and not folder.is_symlink()
    assert (elsewhere / "keep.txt").read_text() == "not the server's"


def test_one_server_at_a_time_holds_a_data_folder(tmp_path, monkeypatch):
    """start hands the data folder's lock to the server it starts (here a program that
    waits, in place of label-studio): a second start on that folder, on another port, is
    refused in one message and leaves the first server's temporary files alone; once the
    first server has ended, however it ended, the folder can be taken again."""
    monkeypatch.setattr(studio_server, "command", lambda *args, **kwargs: ["sleep", "60"])
    venv, data = tmp_path / "venv", tmp_path / "studio"
    first, _ = studio_server.start(venv, data, port=18080)
    try:
        export = data / studio_server.TEMP_FOLDER / "tmpab12.json"
        export.write_text("[]")  # an export the first server is writing
        with pytest.raises(InputError) as refused:
            studio_server.start(venv, data, port=18081)
        assert "a Label Studio server already runs on this data folder" in str(refused.value)
        assert str(refused.value).count("\n") == 0 and export.read_text() == "[]"
    finally:
        studio_server.stop(first, grace=5)
    os.close(studio_server.claim(data))  # free again: the lock ended with its server


def test_a_data_folder_reached_by_a_link_is_claimed(tmp_path):
    """``--data`` may be a link the user made (``.studio`` on another disk): it is
    followed, and the folder it leads to is the one locked."""
    target, link = tmp_path / "disk" / "studio", tmp_path / ".studio"
    studio_server.private_folder(target)
    link.symlink_to(target, target_is_directory=True)
    held = studio_server.claim(link)
    try:
        with pytest.raises(InputError, match="already runs on this data folder"):
            studio_server.claim(target)
    finally:
        os.close(held)
