"""A local Label Studio server, as teams run it: in an environment of its own, with a
SQLite database.

Label Studio's dependencies (Django and some hundred and fifty packages) are not the
pipeline's pins, so it lives in its own virtual environment, made from
``requirements-studio.txt`` (Label Studio pinned, with every dependency and the hashes of
their files): ``.venv-studio`` for ``make studio``, a cache folder for the tests
(:func:`cached_venv`). The server (:func:`start`) listens on 127.0.0.1 only, keeps its
database and files in a data folder (``.studio/`` for ``make studio``), and has one
administrator, whose e-mail, password and API token are made on the first start and kept
in ``<data>/admin.json`` (readable by its owner only); legacy API tokens are enabled, so
the token works as Label Studio's documented ``Authorization: Token ...``.

The data folder holds what must stay private: the database (the administrator's token in
plain text, the annotators' e-mails and answers) and the export snapshots. It is made
readable by its owner only (0700, and the database 0600, also when an older run left them
open), the server runs under the umask 077, and Django's uploads and Label Studio's export
files are written 0600 (:data:`SETTINGS`: Django's ``FILE_UPLOAD_PERMISSIONS``, which
Label Studio leaves at Django's default, 0644). The server's temporary files go into
``<data>/tmp/`` (:func:`temp_folder`), not the machine's: Label Studio copies each export
into a temporary file that it deletes only when the file is closed, so a server stopped by
a signal would leave the annotators' answers in ``/tmp``. Label Studio reports errors to
Sentry (its back end and, from the annotators' browsers, its front end) and usage to its
makers by default: both are turned off (:func:`server_env`). One server at a time runs on
a data folder (:func:`claim`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from analysis.core.errors import InputError
from analysis.core.locks import try_lock
from analysis.core.paths import PATHS

VENV = ".venv-studio"
DATA = ".studio"
HOST = "127.0.0.1"
PORT = 8080
ADMIN_FILE = "admin.json"
ADMIN_EMAIL = "admin@localhost"
LOG_FILE = "label-studio.log"  # the server's output, in its data folder
DATABASE = "label_studio.sqlite3"
STARTUP = 600  # seconds a first start may take (database migrations on a busy machine)
SETTINGS_FOLDER = "startup"  # on the server's PYTHONPATH, holding only SETTINGS
TEMP_FOLDER = "tmp"  # the server's TMPDIR, in its data folder
# Run by the server's Python at its start (Python imports ``sitecustomize`` from its path):
# Django's defaults for the modes of uploaded and exported files (0644) made the owner's
# only. Label Studio's settings do not set them; a settings module of our own cannot
# import Label Studio's, which reads Django's settings while it is being imported.
SETTINGS = """\
# Written by analysis.update.labels.studio_server at every start of the Label Studio server.
try:
    from django.conf import global_settings
except ImportError:
    pass
else:
    global_settings.FILE_UPLOAD_PERMISSIONS = 0o600
    global_settings.FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
"""
# Label Studio reads LABEL_STUDIO_<name> first (core.utils.params.get_env): empty DSNs and
# no analytics, whatever the environment says
QUIET = {"LABEL_STUDIO_SENTRY_DSN": "", "LABEL_STUDIO_FRONTEND_SENTRY_DSN": "",
         "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "",
         "LABEL_STUDIO_COLLECT_ANALYTICS": "false", "COLLECT_ANALYTICS": "false"}
PIN_RE = re.compile(r"^label-studio==(\S+)", re.M)


def pinned_version(requirements: Path = PATHS.requirements_studio) -> str:
    """The Label Studio version ``requirements-studio.txt`` pins."""
    found = PIN_RE.search(Path(requirements).read_text(encoding="utf-8"))
    if not found:
        raise InputError("no label-studio==VERSION pin", file=str(requirements),
                         fix="pin Label Studio in the file (see its comments)")
    return found.group(1)


def cached_venv() -> Path:
    """Where the tests keep Label Studio's environment, made once per pinned version:
    ``<XDG cache>/llm-framework-challenges-repro/label-studio-<version>``."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "llm-framework-challenges-repro" / f"label-studio-{pinned_version()}"


def stamp(requirements: Path) -> str:
    return hashlib.sha256(Path(requirements).read_bytes()).hexdigest()


def ready(venv: Path, requirements: Path = PATHS.requirements_studio) -> bool:
    """Whether ``venv`` holds Label Studio installed from these very pins."""
    marker = Path(venv) / ".installed"
    return (Path(venv) / "bin" / "label-studio").is_file() and marker.is_file() and \
        marker.read_text(encoding="utf-8").strip() == stamp(requirements)


def installer() -> list[str]:
    """uv (the pinned installer of the project's environment) when there is one, else
    pip of the new environment."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    return [uv, "pip", "install", "--python"] if uv else []


def install(venv: Path, requirements: Path = PATHS.requirements_studio,
            python: str | None = None, quiet: bool = True) -> float:
    """Make ``venv`` with Label Studio from the pins (every file checked against its
    hash), unless it is ready; return the seconds it took (0 when it was ready). An
    interrupted install leaves no environment that looks ready."""
    venv = Path(venv)
    if ready(venv, requirements):
        return 0.0
    started = time.monotonic()
    shutil.rmtree(venv, ignore_errors=True)
    venv.parent.mkdir(parents=True, exist_ok=True)
    python = python or sys.executable
    run = dict(check=True, stdout=subprocess.DEVNULL if quiet else None)
    hush = ["--quiet"] if quiet else []
    try:
        subprocess.run([python, "-m", "venv", str(venv)], **run)
        target = str(venv / "bin" / "python")
        command = installer()
        if command:
            subprocess.run([*command, target, *hush, "--require-hashes", "-r",
                            str(requirements)], **run)
        else:
            subprocess.run([target, "-m", "pip", "install", *hush,
                            "--disable-pip-version-check", "--require-hashes", "-r",
                            str(requirements)], **run)
    except (subprocess.CalledProcessError, OSError) as exc:
        raise InputError(f"Label Studio could not be installed into {venv} ({exc})",
                         file=str(requirements),
                         fix="check the network (PyPI) and the message above, then run "
                             "make studio again") from exc
    (venv / ".installed").write_text(stamp(requirements) + "\n", encoding="utf-8")
    return time.monotonic() - started


def admin(data: Path) -> dict:
    """The administrator of the server of ``data``: made on the first call (a random
    password and API token), kept in ``<data>/admin.json`` for its owner only."""
    data = Path(data)
    path = data / ADMIN_FILE
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    private_folder(data)
    found = {"email": ADMIN_EMAIL, "password": secrets.token_urlsafe(18),
             "token": secrets.token_hex(20)}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(found, handle, indent=1)
    return found


def private_folder(data: Path) -> None:
    """Make the data folder (when missing) and keep it and its database for their owner
    only: 0700 and 0600, also when an older run left them readable by all."""
    data = Path(data)
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(data, 0o700)
    for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm", ADMIN_FILE):
        if (data / name).is_file():
            os.chmod(data / name, 0o600)


def temp_folder(data: Path) -> Path:
    """The server's folder for temporary files (``<data>/tmp``), made empty and private.
    What an earlier server left there (a server stopped by a signal does not delete its
    temporary copies of exports) is removed: only the server writes there, and a new one
    needs none of it."""
    folder = Path(data) / TEMP_FOLDER
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)
    elif folder.exists() or folder.is_symlink():
        folder.unlink()
    folder.mkdir(mode=0o700)
    return folder


def claim(data: Path) -> int:
    """Take the data folder for one server: an exclusive lock on the folder itself
    (:func:`~analysis.core.locks.try_lock`); its file descriptor, which :func:`start` hands
    to the server, so the lock lasts as long as the server runs and ends with it, however it
    ends. A data folder another server holds is refused in one message: two servers on one
    SQLite database, and the second one's start emptying the first one's temporary folder
    (:func:`temp_folder`) while it writes an export there, are what it prevents."""
    fd = os.open(data, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # a link the user made
    if not try_lock(fd):
        os.close(fd)
        raise InputError(f"{data}: a Label Studio server already runs on this data folder "
                         "(make studio, perhaps on another port)",
                         fix="use that server, or stop it (Ctrl-C where it runs) before "
                             "starting another")
    return fd


def write_settings(data: Path) -> Path:
    """Write Label Studio's settings module (:data:`SETTINGS`) into the data folder; the
    folder to put on the server's ``PYTHONPATH``."""
    folder = Path(data) / SETTINGS_FOLDER
    folder.mkdir(mode=0o700, exist_ok=True)
    target = folder / "sitecustomize.py"
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(SETTINGS)
    return folder


def server_env(data: Path, credentials: dict) -> dict[str, str]:
    """The server's environment: its data folder, its administrator, no sign-up without
    an invitation link, its settings (:data:`SETTINGS`), its temporary files in its data
    folder (:func:`temp_folder`), nothing reported to Sentry or Label Studio's makers
    (:data:`QUIET`)."""
    settings = str(Path(data) / SETTINGS_FOLDER)
    path = os.pathsep.join(p for p in (settings, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "LABEL_STUDIO_BASE_DATA_DIR": str(data),
            "LABEL_STUDIO_USERNAME": credentials["email"],
            "LABEL_STUDIO_PASSWORD": credentials["password"],
            "LABEL_STUDIO_USER_TOKEN": credentials["token"],
            "LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK": "true",
            "PYTHONPATH": path, "TMPDIR": str(Path(data) / TEMP_FOLDER),
            "PYTHONUNBUFFERED": "1", **QUIET}


def command(venv: Path, data: Path, port: int = PORT, host: str = HOST) -> list[str]:
    """The command that starts the server of ``data`` on ``host``:``port``."""
    return [str(Path(venv) / "bin" / "label-studio"), "start", "--no-browser",
            "--internal-host", host, "--port", str(port), "--host", f"http://{host}:{port}",
            "--data-dir", str(data), "--database", str(Path(data) / DATABASE),
            "--enable-legacy-api-token"]


def port_in_use(port: int, host: str = HOST) -> bool:
    """Whether another program already listens on ``host``:``port`` (Label Studio would
    not say so: it tries another port, or fails in its log)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        return probe.connect_ex((host, int(port))) == 0


def password_command(venv: Path, data: Path, email: str) -> str:
    """The command that gives the account ``email`` of the server of ``data`` a password
    (it asks for it): Label Studio's ``reset_password`` with the server's own data folder
    and database, without which it looks in another (and makes it)."""
    return (f"{Path(venv) / 'bin' / 'label-studio'} reset_password --data-dir {data} "
            f"--database {Path(data) / DATABASE} --username {email}")


def stop(process: subprocess.Popen, grace: float = 10.0) -> int:
    """End the server and every process it started (its own process group, as
    :func:`start` makes it): SIGTERM, then SIGKILL after ``grace`` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            return process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return process.wait()


def start(venv: Path, data: Path, port: int = PORT, host: str = HOST,
          log: Path | None = None) -> tuple[subprocess.Popen, dict]:
    """Start the server (in the background, in a process group of its own, under the
    umask 077, its data folder private and held by it alone: see the module docstring and
    :func:`claim`) and return it with its administrator; its output is appended to
    ``log``."""
    data = Path(data).absolute()
    credentials = admin(data)
    private_folder(data)
    lock = claim(data)
    try:
        temp_folder(data)
        write_settings(data)
        out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the server's)
        process = subprocess.Popen(command(venv, data, port, host), env=server_env(
            data, credentials), stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, umask=0o077, pass_fds=(lock,))
    finally:
        os.close(lock)  # the server's copy holds the lock
    return process, credentials


def wait_until_up(url: str, process: subprocess.Popen | None = None,
                  timeout: float = STARTUP) -> float:
    """Wait until the server answers ``/health``; the seconds it took. A server that
    ended, or is not up in ``timeout`` seconds, is one message."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if process is not None and process.poll() is not None:
            raise InputError(f"Label Studio ended (status {process.returncode}) before "
                             f"answering at {url}", fix="see its log")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=5) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(1)
    raise InputError(f"Label Studio did not answer at {url} within {timeout:.0f} s",
                     fix="see its log")
