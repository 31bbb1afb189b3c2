"""The Label Studio commands and the export's reader, against a stand-in server
(tests/support/fakestudio.py) and made-up exports (tests/support/exports.py): the token
goes only to the server the person running the command names, an export is downloaded
and read within its limits, a hostile export is one line, a refused one leaves nothing in
the batch's records, two creates at once make one project, the records hold no machine
path, a task loads no image, and the server's data are its owner's only."""

from __future__ import annotations

import argparse
import copy
import json
import os
import stat
from pathlib import Path

import pytest

from analysis.core.paths import StudioPaths
from analysis.update.labels import studio, studio_api, studio_export, studio_server
from analysis.update.labels.__main__ import main, studio_of
from tests.support.exports import TEAM, export_tasks, result, write_export
from tests.support.fakestudio import export_routes, json_answer, serving
from tests.support.sheets import issues_of

U, CANDIDATES = issues_of("pytorch/pytorch", 3)
SECRET = "0123456789abcdef-admin-token"


@pytest.fixture(autouse=True)
def no_studio_environment(monkeypatch, tmp_path):
    """No server or token from the machine's environment, no .studio/ of the checkout."""
    monkeypatch.delenv(studio_api.URL_VARIABLE, raising=False)
    monkeypatch.delenv(studio_api.TOKEN_VARIABLE, raising=False)
    monkeypatch.chdir(tmp_path)


def write_record(out: Path, url: str, project: int = 3) -> Path:
    record = StudioPaths(out).record
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"url": url, "project": project}), encoding="utf-8")
    return record


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_record_naming_another_server_is_refused_and_gets_no_token(tmp_path, monkeypatch,
                                                                      capsys):
    out = tmp_path / "labels" / "2026-01"
    with serving(export_routes(3, json.dumps(export_tasks(1)).encode())) as attacker, \
            serving() as ours:
        write_record(out, attacker.url)
        monkeypatch.setenv(studio_api.TOKEN_VARIABLE, SECRET)
        assert main(["studio", "export", "--out", str(out)]) == 1  # the default server
        err = one_line(capsys.readouterr().err)
        assert attacker.url in err and studio_api.DEFAULT_URL in err
        monkeypatch.setenv(studio_api.URL_VARIABLE, ours.url)
        assert main(["studio", "export", "--out", str(out)]) == 1
        err = one_line(capsys.readouterr().err)
        assert attacker.url in err and ours.url in err and "project.json" in err
        assert attacker.requests == [] and ours.requests == []
    assert not StudioPaths(out).export.exists()


def test_a_record_of_the_named_server_is_exported(tmp_path, monkeypatch, capsys):
    out = tmp_path / "b"
    with serving(export_routes(3, json.dumps(export_tasks(2)).encode())) as server:
        write_record(out, server.url.replace("http://", "HTTP://") + "/")
        assert main(["studio", "export", "--out", str(out), "--url", server.url, "--token",
                     SECRET]) == 0
        assert all(r["headers"].get("Authorization") == f"Token {SECRET}"
                   for r in server.requests)
    assert "2 tasks, annotations by alice 2, bob 2, chen 2" in capsys.readouterr().out
    assert json.loads(StudioPaths(out).export.read_text()) == export_tasks(2)


def test_the_local_admin_token_goes_to_no_other_server(tmp_path):
    admin = tmp_path / studio_server.DATA / studio_server.ADMIN_FILE
    admin.parent.mkdir()
    admin.write_text(json.dumps({"token": SECRET}), encoding="utf-8")
    local = studio_of(argparse.Namespace(url="http://localhost:9000", token=None))
    assert local.token == SECRET
    with pytest.raises(studio_api.InputError, match="no API token for http://lab.example"):
        studio_of(argparse.Namespace(url="http://lab.example:8080", token=None))


def test_a_redirect_to_another_server_does_not_carry_the_token():
    with serving() as elsewhere:
        elsewhere.routes[("GET", "/api/users/")] = json_answer([])
        moved = {("GET", "/api/users/"): lambda request: (
            302, {"Location": elsewhere.url + "/api/users/"}, b"")}
        with serving(moved) as server:
            assert studio_api.Studio(server.url, SECRET).call("GET", "/api/users/") == []
        assert server.requests[0]["headers"]["Authorization"] == f"Token {SECRET}"
        assert [r["path"] for r in elsewhere.requests] == ["/api/users/"]
        assert "Authorization" not in elsewhere.requests[0]["headers"]


def test_a_large_answer_is_refused_as_it_comes_and_leaves_nothing(tmp_path, monkeypatch,
                                                                  capsys):
    monkeypatch.setattr(studio_export, "MAX_EXPORT_BYTES", 1 << 20)
    out = tmp_path / "b"

    def endless():
        yield b"["
        for _ in range(1024):  # 64 MiB, unannounced
            yield b" " * 65536

    with serving(export_routes(3, endless)) as server:
        write_record(out, server.url)
        assert main(["studio", "export", "--out", str(out), "--url", server.url, "--token",
                     SECRET]) == 1
    err = one_line(capsys.readouterr().err)
    assert "with more than 1 MiB, the limit of an export" in err
    assert server.sent < 32 << 20
    assert sorted(p.name for p in StudioPaths(out).folder.iterdir()) == ["project.json"]


def test_a_refused_export_leaves_nothing_in_the_batch(tmp_path, capsys):
    out = tmp_path / "b"
    with serving(export_routes(3, b"[" * 100_000)) as server:
        write_record(out, server.url)
        assert main(["studio", "export", "--out", str(out), "--url", server.url, "--token",
                     SECRET]) == 1
    assert "JSON nested too deeply" in one_line(capsys.readouterr().err)
    assert sorted(p.name for p in StudioPaths(out).folder.iterdir()) == ["project.json"]


def hostile(change) -> list[dict] | str:
    tasks = export_tasks(2)
    return change(tasks) or tasks


def set_in(tasks, path, value):
    target = tasks
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


EXPORTS = {
    "nested": ("[" * 100_000, "JSON nested too deeply"),
    "number annotation": (hostile(lambda t: set_in(t, [0, "annotations", 0], 5)),
                          "an annotation that is a number, not an object"),
    "text annotation": (hostile(lambda t: set_in(t, [0, "annotations", 1], "C.3")),
                        "an annotation that is a text, not an object"),
    "object result": (hostile(lambda t: set_in(t, [0, "annotations", 0, "result"], {})),
                      "a result that is an object, not a list"),
    "text value": (hostile(lambda t: set_in(t, [0, "annotations", 0, "result", 0, "value"],
                                            "C.3")),
                   "a result value that is a text, not an object"),
    "infinite lead time": (json.dumps(export_tasks(2)).replace(
        '"lead_time": 60.0', '"lead_time": Infinity', 1), "Infinity is not a JSON number"),
    "huge lead time": (json.dumps(export_tasks(2)).replace(
        '"lead_time": 60.0', '"lead_time": 1e999', 1),
        "a lead time that is no number of seconds"),
    "duplicated task": (hostile(lambda t: t.append(copy.deepcopy(t[0]))),
                        "a second task of the same id or issue"),
    "two themes": (hostile(lambda t: t[0]["annotations"][0]["result"].extend(
        result("B.2"))), "2 theme results in one annotation"),
    "not a list": ('{"tasks": []}', "not a Label Studio export"),
    "cut short": (json.dumps(export_tasks(2))[:-300], "not valid JSON"),
}


@pytest.mark.parametrize("case", EXPORTS)
def test_a_hostile_export_is_one_line_in_the_merge(tmp_path, capsys, case):
    data, said = EXPORTS[case]
    path = write_export(StudioPaths(tmp_path / "b").export, data)
    assert main(["merge", str(path), "--out", str(tmp_path / "out"), "--selection",
                 "none"]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "Traceback" not in err and len(lines) <= 3, err
    assert all(line.startswith("merge: ") for line in lines), err
    assert any(said in line for line in lines), err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("limit,value,said", [
    ("MAX_TASKS", 2, "more than 2 tasks"),
    ("MAX_ANNOTATIONS", 5, "more than 5 annotations"),
    ("MAX_TASK_BYTES", 1000, "an item of the list is over the limit of 1,000 bytes"),
    ("MAX_EXPORT_BYTES", 1000, "the export is over the limit of 1,000 bytes"),
])
def test_an_export_past_a_limit_is_one_line(tmp_path, monkeypatch, limit, value, said):
    monkeypatch.setattr(studio_export, limit, value)
    tasks = export_tasks(3)
    tasks[2]["data"]["title"] = "x" * 2000
    path = write_export(tmp_path / "export.json", tasks)
    with pytest.raises(studio_export.InputError, match=said):
        studio.read_export(path)


def test_an_export_is_read_as_it_was_exported(tmp_path):
    tasks = export_tasks(3)
    tasks[0]["annotations"][0]["result"] = result("excluded", "high", "naïve « retry »")
    tasks[1]["annotations"][2]["was_cancelled"] = True
    tasks[1]["annotations"].append(copy.deepcopy(tasks[1]["annotations"][2]))
    tasks[1]["annotations"][3]["was_cancelled"] = False
    tasks[2]["annotations"][1]["completed_by"] = 2  # a user id, as Label Studio's button
    read = studio.read_export(write_export(tmp_path / "e.json", tasks), codes={"C.3"})
    assert read.problems == []
    assert len(read.table) == 9 and read.source.facts["cancelled"] == {
        "alice": 0, "bob": 0, "chen": 1}
    first = read.table.iloc[0].to_dict()
    assert (first["annotator"], first["label"], first["excluded"], first["confidence"],
            first["comment"], first["seconds"]) == ("alice", "", True, "high",
                                                     "naïve « retry »", 60)
    assert read.source.selection == "sel-1" and len(read.source.sha256) == 64


def test_an_image_in_a_body_is_a_link_never_loaded():
    row = CANDIDATES.iloc[0].copy()
    row["body"] = ("see ![pixel](http://evil.example/p.png) and ![ref][r] and "
                   "![data](data:image/png;base64,AAAA)\n\n[r]: https://evil.example/q.gif")
    shown = studio.tasks(row.to_frame().T, "sel-1", TEAM)[0]["data"]["issue_html"]
    assert "<img" not in shown and "src=" not in shown
    assert '<a href="http://evil.example/p.png"' in shown and "image: pixel" in shown
    assert '<a href="https://evil.example/q.gif"' in shown
    assert "[image: data]" in shown


def fake_create(monkeypatch, made: list, during=None) -> None:
    """studio create's calls answered without a server; ``during`` runs while the project
    is being made."""
    monkeypatch.setattr(studio_api, "ensure_users", lambda server, team: [
        {"name": n, "email": e, "id": k, "created": False}
        for k, (n, e) in enumerate(team, 1)])

    def create_project(server, *args):
        made.append(len(made) + 1)
        if during and len(made) == 1:
            during()
        return {"id": made[-1]}

    monkeypatch.setattr(studio_api, "create_project", create_project)
    monkeypatch.setattr(studio_api, "import_tasks", lambda server, project, tasks: len(tasks))
    monkeypatch.setattr(studio_api, "task_view", lambda server, project, title, hidden: {})


def test_two_creates_at_once_make_one_project(tmp_path, monkeypatch, capsys):
    candidates = tmp_path / "candidates.csv"
    CANDIDATES.to_csv(candidates, index=False)
    out = tmp_path / "labels" / "2026-01"
    details = tmp_path / "elsewhere" / "dump"
    details.mkdir(parents=True)
    command = ["studio", "create", str(candidates), "--annotators", "alice,bob", "--out",
               str(out), "--url", "http://127.0.0.1:8080", "--token", SECRET,
               "--details", str(details)]
    second = []
    made = []
    fake_create(monkeypatch, made, lambda: second.append(main(command)))
    assert main(command) == 0
    assert second == [1] and made == [1]
    err = capsys.readouterr().err
    assert "another studio create is making a project for this folder now" in err
    record = StudioPaths(out).record.read_text(encoding="utf-8")
    assert json.loads(record)["project"] == 1
    assert str(tmp_path) not in record and json.loads(record)["codebook"]["dump"] == "dump"
    assert sorted(p.name for p in StudioPaths(out).folder.iterdir()) == ["project.json"]
    assert main(command) == 1  # made: not again without --force
    assert "already has a Label Studio project" in capsys.readouterr().err


def test_the_sheets_record_holds_no_machine_path(tmp_path, capsys):
    candidates = tmp_path / "candidates.csv"
    CANDIDATES.to_csv(candidates, index=False)
    details = tmp_path / "elsewhere" / "dump"
    details.mkdir(parents=True)
    assert main(["sheets", str(candidates), "--annotators", "2", "--out",
                 str(tmp_path / "b"), "--details", str(details)]) == 0
    text = (tmp_path / "b" / "sheets" / "sheets.json").read_text(encoding="utf-8")
    assert str(tmp_path) not in text and '"dump": "dump"' in text


def test_the_server_keeps_its_data_to_its_owner_and_reports_nothing(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    database = data / "label_studio.sqlite3"
    database.write_bytes(b"")
    os.chmod(database, 0o644)
    started = {}

    def popen(command, **kwargs):
        started.update(kwargs, command=command)
        return "process"

    monkeypatch.setenv("LABEL_STUDIO_SENTRY_DSN", "https://key@sentry.example/1")
    monkeypatch.setattr(studio_server.subprocess, "Popen", popen)
    studio_server.start(tmp_path / "venv", data, 8123)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
    assert stat.S_IMODE((data / studio_server.ADMIN_FILE).stat().st_mode) == 0o600
    assert started["umask"] == 0o077
    env = started["env"]
    assert env["LABEL_STUDIO_SENTRY_DSN"] == env["LABEL_STUDIO_FRONTEND_SENTRY_DSN"] == ""
    assert env["SENTRY_DSN"] == env["FRONTEND_SENTRY_DSN"] == ""
    assert env["LABEL_STUDIO_COLLECT_ANALYTICS"] == "false"
    startup = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    text = (startup / "sitecustomize.py").read_text(encoding="utf-8")
    assert "FILE_UPLOAD_PERMISSIONS = 0o600" in text
    assert stat.S_IMODE((startup / "sitecustomize.py").stat().st_mode) == 0o600


@pytest.mark.parametrize("record,said", [
    ({"url": "http://evil.example\u202e\x1b[2J\n:80", "project": 3},
     "names the server 'http://evil.example⟨U+202E⟩⟨U+001B⟩[2J⟨U+000A⟩:80'"),
    ({"url": ["http://127.0.0.1:8080"], "project": 3}, "names the server '<list>'"),
    ({"url": "http://127.0.0.1:8080", "project": True}, "not a record of a Label Studio"),
])
def test_a_record_of_another_shape_is_one_visible_line(tmp_path, capsys, record, said):
    path = StudioPaths(tmp_path / "b").record
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["studio", "export", "--out", str(tmp_path / "b"), "--token", SECRET]) == 1
    assert said in one_line(capsys.readouterr().err)


def test_a_record_names_a_folder_by_its_path_in_the_project(tmp_path):
    from analysis.core.paths import ROOT, recorded_path

    assert recorded_path(ROOT / "data" / "raw") == "data/raw"
    assert recorded_path(ROOT / "data" / ".." / "build" / "x") == "build/x"
    assert recorded_path(tmp_path / "dump") == "dump"


# The data manager's columns of a project, in the shape Label Studio 1.23.2 answers
# GET /api/dm/columns/ (a few of them): the task data's fields, then the task's own
COLUMNS = [
    {"id": "title", "target": "tasks", "parent": "data",
     "visibility_defaults": {"explore": True, "labeling": True}},
    {"id": "issue_html", "target": "tasks", "parent": "data",
     "visibility_defaults": {"explore": True, "labeling": True}},
    {"id": "url", "target": "tasks", "parent": "data",
     "visibility_defaults": {"explore": True, "labeling": False}},
    {"id": "annotators", "target": "tasks", "parent": "data",
     "visibility_defaults": {"explore": True, "labeling": False}},
    {"id": "data", "target": "tasks", "children": ["title", "issue_html", "url", "annotators"]},
    {"id": "id", "target": "tasks", "visibility_defaults": {"explore": True, "labeling": False}},
    {"id": "inner_id", "target": "tasks",
     "visibility_defaults": {"explore": False, "labeling": False}},
    {"id": "completed_at", "target": "tasks"}]


def test_the_task_list_hides_the_raw_html_and_keeps_what_label_studio_hides():
    assert studio.column_key(COLUMNS[0]) == "tasks:data.title"
    assert studio.column_key(COLUMNS[5]) == "tasks:id"
    hidden = studio.hidden_columns(COLUMNS)
    assert hidden["explore"] == ["tasks:data.issue_html", "tasks:data.annotators",
                                 "tasks:inner_id"]
    # beside the editor: the title alone, and what Label Studio hides there by default
    assert hidden["labeling"] == ["tasks:data.issue_html", "tasks:data.url",
                                  "tasks:data.annotators", "tasks:id", "tasks:inner_id"]
    assert "tasks:data" not in hidden["explore"]  # the group of the data fields
    assert "tasks:data.title" not in hidden["explore"] + hidden["labeling"]


def test_the_project_gets_its_view_once_the_tasks_are_in():
    routes = {("GET", "/api/dm/columns/"): json_answer({"columns": COLUMNS}),
              ("POST", "/api/dm/views/"): json_answer({"id": 4, "project": 3})}
    with serving(routes) as server:
        view = studio_api.task_view(studio_api.Studio(server.url, SECRET), 3, "Issues",
                                    studio.hidden_columns)
    assert view == {"id": 4, "project": 3}
    asked, made = server.requests
    assert (asked["method"], asked["path"]) == ("GET", "/api/dm/columns/")
    sent = json.loads(made["body"])
    assert sent == {"project": 3, "data": {"title": "Issues",
                                           "hiddenColumns": studio.hidden_columns(COLUMNS)}}
