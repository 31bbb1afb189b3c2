"""Reproduce the pipeline with independent stages side by side: ``dvc repro`` on more cores.

    python -m analysis.tools.repro [-f] [--jobs N] [STAGE ...]

``dvc repro`` runs one stage at a time, while most of this pipeline's stages only wait for
one or two others. DVC's documented way to use more cores is to run ``dvc repro`` on
independent parts of the pipeline at once: it releases its repository lock while a
stage's command runs. This driver asks DVC which stages changed (``Repo.status``) and, from
DVC's own graph, which follow them (``-f``: all of them), and runs each as ``dvc
--wait-for-lock repro --single-item STAGE`` once the stages it depends on have run, at most
``--jobs`` at a time. DVC still decides whether a stage must run, caches its outputs and
writes ``dvc.lock``, so the outputs are those of ``dvc repro``, byte for byte, and so is
``dvc.lock`` (:func:`fix_lock_order`). A stage's output is shown whole when it ends; after a
failed stage no stage starts, and the ones running finish.

One question is answered without DVC: a stage that did not differ from ``dvc.lock`` when
the run began, and whose every upstream stage left its recorded outputs as they were (not
run, or run again to the same hashes), cannot have changed (:func:`unchanged_inputs`), so
it is not handed to a ``dvc repro`` of its own (a second or so of DVC's start and hashing
each) and says what DVC would say of it. A stage run again after an input changed only in
a way its outputs do not show (a parameter that only ``ingest`` reads, say) no longer sends
every stage after it through DVC.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

import yaml

from analysis.core.batchfiles import check_labels
from analysis.core.errors import InputError, user_error_line
from analysis.core.paths import Paths
from analysis.core.safeyaml import safe_load
from analysis.tools.dvclocks import recover
from analysis.tools.pipeline import STAGES

Graph = Mapping[str, frozenset[str]]  # stage -> the stages it depends on


def _graph(needs: Graph):
    """``needs`` as a networkx graph with an edge from each stage to each it depends on."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(needs)
    graph.add_edges_from((stage, up) for stage, ups in needs.items() for up in ups)
    return graph


def downstream(needs: Graph, seeds: Iterable[str]) -> set[str]:
    """``seeds`` and every stage that depends on one of them, directly or not."""
    import networkx as nx

    graph, seeds = _graph(needs), set(seeds)
    return seeds.union(*(nx.ancestors(graph, stage) for stage in seeds))


def upstream(needs: Graph, targets: Iterable[str]) -> set[str]:
    """``targets`` and every stage they depend on, directly or not."""
    import networkx as nx

    graph, targets = _graph(needs), set(targets)
    return targets.union(*(nx.descendants(graph, stage) for stage in targets))


def stages_to_run(needs: Graph, order: list[str], changed: Iterable[str],
                  targets: Iterable[str] = (), force: bool = False) -> list[str]:
    """The stages a run considers, in pipeline ``order``: the changed ones and those after
    them (all of them with ``force``), within the ``targets`` and what they need (every
    stage when no target is named)."""
    scope = upstream(needs, targets) if targets else set(order)
    chosen = scope if force else downstream(needs, set(changed) & scope) & scope
    return [stage for stage in order if stage in chosen]


def ready(plan: list[str], needs: Graph, done: set[str], started: set[str]) -> list[str]:
    """The planned stages not started yet whose planned dependencies have all run, in plan
    order."""
    return [stage for stage in plan if stage not in started
            and all(up in done for up in needs[stage] if up in plan)]


def unchanged_inputs(stage: str, needs: Graph, changed: set[str], kept: set[str]) -> bool:
    """Whether ``stage`` must be as ``dvc.lock`` records it without asking DVC: it was not
    among the ``changed`` stages when the run began (its own parameters, code and data
    files as recorded), and every stage it depends on is ``kept`` (its outputs have the
    hashes ``dvc.lock`` recorded when the run began)."""
    return stage not in changed and needs[stage] <= kept


def recorded_outputs(lock: Path) -> dict[str, object]:
    """Each stage's outputs as ``lock`` (a ``dvc.lock``) records them, with their hashes,
    by stage name (``merge@2026-01`` for an item of a ``foreach`` stage); empty when the
    file is missing or cannot be read, so that every stage counts as changed."""
    try:
        read = safe_load(lock.read_text(encoding="utf-8")) or {}
        return {name: entry.get("outs") for name, entry in (read.get("stages") or {}).items()}
    except (OSError, UnicodeDecodeError, AttributeError, yaml.YAMLError):
        return {}


def repro_command(stage: str, force: bool) -> list[str]:
    """The command that reproduces one stage: this Python's DVC, waiting for the
    repository lock while another stage's results are being recorded."""
    return [sys.executable, "-m", "dvc", "--wait-for-lock", "repro", "--single-item",
            *(["-f"] if force else []), stage]


def stage_env(environ: Mapping[str, str], executable: str) -> dict[str, str]:
    """``environ`` with the folder of ``executable`` (this Python, e.g. ``.venv/bin``) first
    on ``PATH``: the stages' commands say ``python``, and DVC runs them through the shell,
    so run as ``.venv/bin/python -m analysis.tools.repro`` from a shell where nothing is
    activated they must still find this environment's Python, not the system's."""
    folder = os.path.dirname(executable)
    rest = [p for p in environ.get("PATH", "").split(os.pathsep) if p and p != folder]
    return {**environ, "PATH": os.pathsep.join([folder, *rest])}


def in_pipeline_order(stages: Mapping[str, object], order: list[str]) -> list[str] | None:
    """The keys of ``dvc.lock``'s ``stages`` in ``dvc.yaml``'s ``order`` (the order a
    sequential ``dvc repro`` writes them in), or None when they already are. DVC adds a
    stage that has no entry yet at the end, so side by side the order would follow which
    stage ended first."""
    rank = {stage: i for i, stage in enumerate(order)}
    keys = list(stages)
    ordered = sorted(keys, key=lambda k: rank.get(k, len(order)))
    return None if ordered == keys else ordered


def schedule(plan: list[str], needs: Graph, jobs: int,
             run_stage: Callable[[str], tuple[int, str]],
             on_end: Callable[[str, int, str], None],
             stop: Callable[[], None] = lambda: None) -> list[str]:
    """Run ``plan`` with :func:`ready` stages started as soon as there is room for them,
    at most ``jobs`` at a time; ``on_end`` gets each stage's code and
    output as it ends. Returns the stages that failed: once one has, no further stage
    starts. Interrupted (KeyboardInterrupt), it calls ``stop`` to end the running
    stages, waits for them, and raises."""
    done: set[str] = set()
    failed: list[str] = []
    running: dict[Future, str] = {}
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        try:
            while True:
                if not failed:
                    started = set(running.values()) | done | set(failed)
                    room = max(jobs - len(running), 0)
                    for stage in ready(plan, needs, done, started)[:room]:
                        running[pool.submit(run_stage, stage)] = stage
                if not running:
                    return failed
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    stage = running.pop(future)
                    code, output = future.result()
                    on_end(stage, code, output)
                    (failed.append if code else done.add)(stage)
        except KeyboardInterrupt:
            stop()
            raise


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def pipeline(root: Path) -> tuple[dict[str, frozenset[str]], list[str], object]:
    """DVC's view of the project at ``root``: each stage's dependencies, the stages in
    ``dvc.yaml``'s order, and the repository."""
    from dvc.repo import Repo

    repo = Repo(str(root))
    graph = repo.index.graph
    needs = {stage.addressing: frozenset(dep.addressing for dep in graph.successors(stage))
             for stage in graph.nodes}
    order = [stage.addressing for stage in repo.index.stages]
    return needs, order, repo


def fix_lock_order(root: Path, order: list[str]) -> None:
    """Put ``dvc.lock``'s stages in pipeline order when a stage new to it went in late."""
    lock = Paths(root).dvc_lock
    if not lock.is_file():
        return
    read = safe_load(lock.read_text(encoding="utf-8")) or {}
    if not in_pipeline_order(read.get("stages") or {}, order):
        return  # the usual case: dvc.lock is left as DVC wrote it
    from dvc.utils.serialize import modify_yaml

    with modify_yaml(str(lock)) as data:  # DVC's own writer, so the file keeps its form
        stages = data["stages"]
        data["stages"] = {key: stages[key] for key in in_pipeline_order(stages, order)}


def before_dvc(root: Path) -> list[str]:
    """What must hold before DVC looks at the project ``root``, each a line to print:
    what a killed DVC run left recovered (:func:`analysis.tools.dvclocks.recover`), and
    the team's records (``labels/``, which DVC hashes) holding regular files only, within
    their limits (:func:`analysis.core.batchfiles.check_labels`: DVC would block for ever
    on a FIFO). A problem is one :class:`InputError`."""
    said = recover(root)
    paths = Paths(root)
    check_labels(root, paths.records.relative_to(root).as_posix())
    return said


STOP_GRACE_S = 5.0


class StageRunner:
    """Runs one stage at a time per thread (:func:`repro_command`) and can stop them all.

    Each ``dvc repro`` runs in a process group of its own, and on Ctrl-C or SIGTERM the
    driver sends SIGINT to each group: as Ctrl-C in a terminal does, it reaches DVC and the
    stage's command (DVC itself ignores SIGINT while its command runs), the command stops,
    and DVC leaves the stage to be run again."""

    def __init__(self, root: Path, force: bool, needs: Graph | None = None,
                 changed: set[str] | None = None, kept: set[str] | None = None):
        self.root, self.force = root, force
        self.running: set[subprocess.Popen] = set()
        # what unchanged_inputs reads: with needs unset, every stage goes to DVC
        self.needs, self.changed, self.kept = needs, changed or set(), kept or set()
        self.lock = Paths(root).dvc_lock
        self.recorded = recorded_outputs(self.lock) if needs is not None else {}

    def __call__(self, stage: str) -> tuple[int, str]:
        if (not self.force and self.needs is not None
                and unchanged_inputs(stage, self.needs, self.changed, self.kept)):
            self.kept.add(stage)
            return 0, f"Stage '{stage}' didn't change, skipping (its inputs are as recorded)\n"
        say(f"repro: stage '{stage}' started")
        begun = time.perf_counter()
        with subprocess.Popen(repro_command(stage, self.force), cwd=self.root, text=True,
                              env=stage_env(os.environ, sys.executable),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True) as proc:
            self.running.add(proc)
            try:
                output, _ = proc.communicate()
            finally:
                self.running.discard(proc)
        took = f"repro: stage '{stage}' took {time.perf_counter() - begun:.1f} s\n"
        if (proc.returncode == 0 and stage in self.recorded
                and recorded_outputs(self.lock).get(stage) == self.recorded[stage]):
            self.kept.add(stage)
        return proc.returncode, output + took

    def stop(self, grace: float = STOP_GRACE_S) -> None:
        """SIGINT to every running stage's process group; SIGTERM to those still running
        ``grace`` seconds later (a command that ignores SIGINT)."""
        running = list(self.running)
        for sig in (signal.SIGINT, signal.SIGTERM):
            for proc in running:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, sig)
            end = time.monotonic() + grace
            while any(proc.poll() is None for proc in running) and time.monotonic() < end:
                time.sleep(0.05)


def study_preflight(root: Path) -> tuple[list[str], list[str]]:
    """The checks the stages' modules offer before anything runs (a module's
    ``preflight(root)``: its problems, one line each, and notes), e.g. the list of batches
    against their records' folders: a misspelt batch is one line, said first, and no
    stage runs, so no other batch's entry of ``dvc.lock`` is touched."""
    problems, notes = [], []
    for name in dict.fromkeys(stage.module for stage in STAGES if stage.module):
        check = getattr(importlib.import_module(name), "preflight", None)
        if callable(check):
            found, said = check(root)
            problems += found
            notes += said
    return problems, notes


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of stages (1 or more)")
    return int(text)


_PRINTING = threading.Lock()


def say(text: str) -> None:
    """Print ``text`` (ended by a newline) in one piece, whichever thread prints."""
    with _PRINTING:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
        sys.stdout.flush()


def interrupted(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.tools.repro",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", metavar="STAGE",
                        help="reproduce these stages and what they need (default: all)")
    parser.add_argument("-f", "--force", action="store_true",
                        help="run the stages even if nothing changed (as dvc repro -f)")
    parser.add_argument("-j", "--jobs", type=positive, default=default_jobs(),
                        help="stages at a time (default: the cores available, here "
                             "%(default)s)")
    args = parser.parse_args(argv)
    root = Path.cwd()  # as for dvc: the project is the one the command runs in
    started = time.perf_counter()
    try:
        for line in before_dvc(root):
            print(f"repro: {line}")
    except InputError as exc:
        print(user_error_line("repro", exc), file=sys.stderr)
        return 2
    problems, notes = study_preflight(root)
    for line in [*problems, *notes]:
        print(line, file=sys.stderr)
    if problems:
        print("repro: no stage ran (correct what the line above says)", file=sys.stderr)
        return 1
    from dvc.exceptions import DvcException

    try:
        needs, order, repo = pipeline(root)
        changed = set() if args.force else set(repo.status())  # stages that differ from dvc.lock
        repo.close()
    except DvcException as exc:
        print(f"repro: {root}: {exc} (run it in the project's folder, where dvc.yaml is)",
              file=sys.stderr)
        return 2
    unknown = [t for t in args.targets if t not in needs]
    if unknown:
        print(f"repro: no stage named {', '.join(unknown)} in dvc.yaml; the stages: "
              f"{', '.join(order)}", file=sys.stderr)
        return 2
    plan = stages_to_run(needs, order, changed, args.targets, args.force)
    if not plan:
        print("Data and pipelines are up to date.")
        return 0
    runner = StageRunner(root, args.force, needs, changed, set(needs) - set(plan))
    previous = signal.signal(signal.SIGTERM, interrupted)
    try:
        failed = schedule(plan, needs, args.jobs, runner,
                          lambda stage, code, output: say(output), runner.stop)
    except KeyboardInterrupt:
        print("repro: interrupted; the stages that did not finish run again next time",
              file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    fix_lock_order(root, order)
    seconds = time.perf_counter() - started
    if failed:
        print(f"repro: stage {', '.join(failed)} failed (its output is above); the stages "
              f"after it did not run", file=sys.stderr)
        return 1
    print(f"repro: {len(plan)} stage{'s' * (len(plan) != 1)} in {seconds:.1f} s, up to "
          f"{args.jobs} at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
