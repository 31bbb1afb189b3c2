"""``studio serve`` (what ``make studio`` runs) against the real, pinned Label Studio: a
port another program holds is one line with the way to choose another; on a free port
the server answers where it says, its output is in its log, the password command it
prints for an account works on its database, a second server on its data folder is
refused, and SIGTERM leaves no Label Studio process."""

from __future__ import annotations

import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.update.labels import studio_server
from tests.support.studio import free_port, prepared

pytestmark = pytest.mark.slow


def serve(venv: Path, data: Path, port: int, **kw) -> list[str]:
    return [sys.executable, "-m", "analysis.update.labels", "studio", "serve", "--port", str(port),
            "--data", str(data), "--venv", str(venv)]


def processes_naming(text: str) -> list[int]:
    """The running processes whose command line holds ``text``."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (cmdline.parent / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in line and state != "Z":
            found.append(int(cmdline.parent.name))
    return found


def password_hash(data: Path, email: str) -> str:
    with sqlite3.connect(data / studio_server.DATABASE) as db:
        return db.execute("select password from htx_user where email = ?",
                          (email,)).fetchone()[0]


def test_a_taken_port_a_working_password_command_and_sigterm(tmp_path):
    venv, template, _ = prepared()
    data = tmp_path / "studio-data"
    shutil.copytree(template, data, ignore=shutil.ignore_patterns("ready", "*.log"))
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        proc = subprocess.run(serve(venv, data, taken), capture_output=True, text=True,
                              timeout=120)
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1, proc.stderr
    assert f"port {taken} of 127.0.0.1 is in use" in proc.stderr
    assert f"make studio PORT={taken + 1}" in proc.stderr

    port = free_port()
    server = subprocess.Popen(serve(venv, data, port), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        said = []
        deadline = time.monotonic() + studio_server.STARTUP
        while time.monotonic() < deadline:
            line = server.stdout.readline()
            said.append(line)
            if "Label Studio at" in line or not line:
                break
        assert f"Label Studio at http://127.0.0.1:{port}" in said[-1], "".join(said)
        assert (data / studio_server.LOG_FILE).stat().st_size > 0  # its output, kept
        assert processes_naming(str(data))  # label-studio runs
        # the password command printed for an account works on this server's database
        admin = studio_server.admin(data)
        before = password_hash(data, admin["email"])
        command = shlex.split(studio_server.password_command(venv, data, admin["email"]))
        done = subprocess.run([*command, "--password", "a-new-pass-4567"], capture_output=True,
                              text=True, timeout=300)
        assert "not found" not in done.stdout + done.stderr, done.stdout + done.stderr
        assert password_hash(data, admin["email"]) != before
        # a second server on the same data folder, on another port, is refused in one line
        # and leaves the running one's temporary files alone
        export = data / studio_server.TEMP_FOLDER / "tmpab12.json"
        export.write_text("[]")
        second = subprocess.run(serve(venv, data, free_port()), capture_output=True,
                                text=True, timeout=120)
        assert second.returncode != 0 and second.stderr.count("\n") == 1, second.stderr
        assert "a Label Studio server already runs on this data folder" in second.stderr
        assert export.read_text() == "[]"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    time.sleep(1)
    assert processes_naming(str(data)) == []  # SIGTERM left no Label Studio process
