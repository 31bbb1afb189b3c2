"""Selection from GH Archive (python -m analysis.update.select): events per second per core on the
streaming engine, the speed-up with 2 Dask workers, memory per worker from 1 to 20 files.

Input: synthetic GH Archive hours (``tests/support/gharchive.py``: GH Archive's event mix
and shapes, issues and pull requests opened in the spec's repositories and in others), with
the projects file's spec and a PyTorch-like keyword list. Each measurement runs in a fresh
process: the streaming engine pinned to one core; Dask with a local cluster of 2 worker
processes (one thread each) on the machine's 2 cores; worker memory is the peak resident
size of the worker processes (``ru_maxrss`` of each, read on the workers). Targets (2
cores): 100,000 events/s per core streaming, 1.7x that with 2 workers, worker memory flat
from 1 to 20 files.

Crossover: the input size (bytes as stored, gzip) where 2 Dask workers overtake the
streaming engine, as a user meets it: ``python -m analysis.update.select`` run whole in a fresh
process on 1, 2, 4, 8 and 16 of the hours, streaming and ``--workers 2`` (the cluster's
start included). A line ``seconds = fixed + bytes / rate`` is fitted to each engine;
where they cross is ``crossover_bytes``, next to the constant ``--workers auto`` uses
(:data:`analysis.update.select.engine.CROSSOVER_BYTES`, recorded from this measurement). Target:
at every measured size, the engine ``--workers auto`` picks is within 10% of the faster.

Floor: in one run on the same files, zlib's decompression rate (MB/s of JSON out, one
core, CPU time), select's per-file work (:func:`analysis.update.select.engine.scan_input`: read,
decompress, find the events of the spec, parse and match them) with 1% and with 0.1% of
the events in the study's repositories, with zlib and, when python-isal is installed, with
ISA-L, and ISA-L's own decompression rate. Target: select at 60% or more of zlib's rate
with zlib, faster still with ISA-L. From the rate: the CPU hours of a year of GH Archive
(about 1.5 billion events) at the synthetic hours' bytes per event.

Hostile input: the peak resident size of ``python -m analysis.update.select`` (a fresh process,
its ``VmHWM``) on files made to fill the memory, next to the limits that refuse them: a
gzip bomb of 1 GiB of zeros without a line break (1 MB compressed), an hour whose one line
is 512 MiB long, and 2 GiB of short lines under a 1 GiB ``--max-file-bytes``; and, for
comparison, on one ordinary hour and on the worst line the limit lets through (an issue
whose body is 120 MiB of keywords, parsed and matched everywhere). Target: every refused
run stays under the ordinary peak plus twice the line limit plus 64 MiB (the line held,
the line joined, one block), and ends in the one-line refusal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATE = 100_000
TARGET_SPEEDUP = 1.7
FILES = 20
EVENTS_PER_FILE = 100_000
KEYWORDS = """pytorch_keywords = ['llm', 'llama', 'gpt', 'yi', 'qwen', 'transformer', 'BERT',
'OPT', 'FlashAttention', 'FSDP', 'LoRA', 'fp16', 'bf16', 'quantization', 'int8',
'mixed precision', 'torch.distributed', 'pipeline parallel', 'tensor parallel', 'vLLM',
'DeepSpeed', 'Megatron', 'NCCL error', 'torch.compile', 'model.generate', 'flash_attn_2']
tensorflow_keywords = ['llm', 'gpt']
mindspore_keywords = ['llm', 'ZeRO']
"""
CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
mode, keywords, out = sys.argv[1], sys.argv[2], sys.argv[3]
files = sys.argv[4:]
if mode == "streaming":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from analysis.core.paths import PATHS
from analysis.update.select.__main__ import load_spec, parser
from analysis.update.select import engine
args = parser().parse_args([*files, "--out", out, "--keywords", keywords])
spec = load_spec(args)
progress = engine.Progress(len(files), False)
def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if mode == "streaming":
    start = time.perf_counter(); cpu0 = time.process_time()
    parts = engine.run_streaming(files, spec, progress)
    seconds = time.perf_counter() - start; cpu = time.process_time() - cpu0
    worker_rss = [rss()]
else:
    client = engine.dask_client(int(mode), None)
    client.run(lambda: None)
    engine.run_dask(files[:1], spec, client, progress)  # warm the workers' imports
    cpu0 = sum(client.run(time.process_time).values())
    start = time.perf_counter()
    parts = engine.run_dask(files, spec, client, progress)
    seconds = time.perf_counter() - start
    cpu = sum(client.run(time.process_time).values()) - cpu0
    worker_rss = sorted(client.run(rss).values())
    client.close()
events = sum(p.records for p in parts)
candidates = len(engine.merge(spec, parts).candidates)
print(json.dumps({"load": os.getloadavg()[0], "seconds": seconds, "cpu_seconds": cpu,
                  "events": events,
                  "candidates": candidates, "worker_rss_mb": worker_rss}))
"""


# The peak is the kernel's high-water mark of this process's memory (VmHWM): ru_maxrss
# would also count the benchmark's own memory, which Linux carries across fork and exec.
SELECT_CHILD = r"""
import json, re, sys
from pathlib import Path
from analysis.update.select.__main__ import main
code = main(sys.argv[1:])
hwm = re.search(r"VmHWM:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1)
print(json.dumps({"code": code, "peak_rss_mb": int(hwm) / 1024}))
"""
BOMB_MARGIN_MB = 64
ACCEPTED = ("ordinary_hour", "issue_body_of_120mib")  # under the limits: selected


def select_peak(args: list[str]) -> dict:
    """Run select in a fresh process: its exit status, last stderr line, peak RSS, time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", SELECT_CHILD, *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - start
    child = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = proc.stderr.strip().splitlines()
    return {"code": child["code"], "peak_rss_mb": round(child["peak_rss_mb"], 1),
            "seconds": round(seconds, 2), "stderr_lines": len(lines),
            "message": lines[-1] if lines else ""}


def measure_bombs(tmp: Path, keywords: Path, hour: Path) -> dict:
    """select's peak memory on hostile hours, each beside the limit that refuses it."""
    import orjson

    from analysis.core.sizes import GiB, MiB
    from analysis.update.select.formats import MAX_FILE, MAX_LINE
    from tests.support.bombs import repeated, write_gzip, zeros_bomb
    from tests.support.gharchive import opened_issues

    events = b"".join(orjson.dumps(e) + b"\n" for e in opened_issues(
        "pytorch/pytorch", [(n, "2024-01-01T00:00:00Z", "llm", "body") for n in range(1000)]))
    head, tail = orjson.dumps(opened_issues("pytorch/pytorch", [
        (1, "2024-01-01T00:00:00Z", "llm", "BODY")])[0]).split(b"BODY")
    cases = {
        "zeros_1gib_no_line_break": (zeros_bomb(tmp / "bombs" / "2024-01-01-0.json.gz", GiB),
                                     []),
        "one_line_of_512mib": (write_gzip(tmp / "bombs" / "2024-01-01-1.json.gz",
                                          [events, *repeated(b"x", 512 * MiB), b"\n",
                                           events], level=1), []),
        "short_lines_2gib_file_limit_1gib": (
            write_gzip(tmp / "bombs" / "2024-01-01-2.json.gz",
                       repeated(b'{"type":"PushEvent","repo":{"name":"a/b"}}\n', 2 * GiB),
                       level=1), ["--max-file-bytes", "1GiB"]),
        "ordinary_hour": (hour, []),
        "issue_body_of_120mib": (write_gzip(tmp / "bombs" / "2024-01-01-3.json.gz",
                                            [head, *repeated(b"llm crash in cuda ", 120 * MiB),
                                             tail, b"\n"], level=1), []),
    }
    result: dict = {"bomb_line_limit_mb": MAX_LINE // MiB, "bomb_file_limit_mb": MAX_FILE // MiB}
    for name, (path, extra) in cases.items():
        run = select_peak([str(path), "--out", str(tmp / f"bomb-{name}"), "--keywords",
                           str(keywords), "--project", "pytorch", *extra])
        result[f"bomb_{name}_gzip_mb"] = round(path.stat().st_size / 1e6, 2)
        for key in ("peak_rss_mb", "seconds", "code", "message"):
            result[f"bomb_{name}_{key}"] = run[key]
        result[f"bomb_{name}_one_line"] = run["stderr_lines"] == 1
    bound = (result["bomb_ordinary_hour_peak_rss_mb"] + 2 * result["bomb_line_limit_mb"]
             + BOMB_MARGIN_MB)
    result["bomb_peak_rss_bound_mb"] = round(bound, 1)
    result["target_met_bounded_memory"] = all(
        result[f"bomb_{n}_peak_rss_mb"] <= bound and result[f"bomb_{n}_code"] == 1
        and result[f"bomb_{n}_one_line"] for n in cases if n not in ACCEPTED)
    return result


def measure(mode: str, keywords: Path, out: Path, files: list[Path]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, str(keywords), str(out),
                           *map(str, files)], capture_output=True, text=True, env=env,
                          check=True, cwd=ROOT)
    return json.loads(proc.stdout.strip().splitlines()[-1])


FLOOR_CHILD = r"""
import json, sys, time, zlib
from analysis.update.select import engine, gharchive
from analysis.update.select.__main__ import load_spec, parser
keywords, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
spec = load_spec(parser().parse_args([*files, "--out", out, "--keywords", keywords]))
modules = {"zlib": zlib}
try:
    from isal import isal_zlib
    modules["isal"] = isal_zlib
except ImportError:
    pass
def inflate(module):
    n = 0
    for f in files:
        n += sum(hi - lo for _, lo, hi in gharchive._blocks(
            __import__("pathlib").Path(f), f, inflate_module=module))
    return n
result = {}
for name, module in modules.items():
    best = {}
    for _ in range(3):
        start = time.process_time(); size = inflate(module)
        best["inflate"] = min(best.get("inflate", 1e9), time.process_time() - start)
        gharchive.INFLATE = module
        start = time.process_time()
        parts = [engine.scan_input(f, spec) for f in files]
        best["select"] = min(best.get("select", 1e9), time.process_time() - start)
    result[name] = {"bytes": size, "inflate_seconds": best["inflate"],
                    "select_seconds": best["select"],
                    "events": sum(p.records for p in parts),
                    "candidates": sum(s.matched for p in parts for s in p.sightings)}
print(json.dumps(result))
"""
FLOOR_SHARES = (("1pct", 0.01), ("0_1pct", 0.001))
FLOOR_FILES = 4
TARGET_FLOOR_SHARE = 0.6
YEAR_EVENTS = 1.5e9
ISSUE_AND_PR_SHARE = 0.12  # of all events, in the synthetic mix (MIX)


def measure_floor(tmp: Path, keywords: Path, repos: tuple[str, ...]) -> dict:
    """zlib's rate, select's rate with zlib and (installed) ISA-L, at 1% and 0.1%."""
    from tests.support.gharchive import Hour, write_archive

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    result: dict = {"target_floor_share": TARGET_FLOOR_SHARE}
    for tag, share in FLOOR_SHARES:
        # only issue and pull-request events are put in the spec's repositories
        files = write_archive(tmp / f"floor-{tag}", FLOOR_FILES,
                              Hour(repos, events=EVENTS_PER_FILE,
                                   spec_share=share / ISSUE_AND_PR_SHARE), seed=7)
        proc = subprocess.run([sys.executable, "-c", FLOOR_CHILD, str(keywords),
                               str(tmp / f"floor-out-{tag}"), *map(str, files)],
                              capture_output=True, text=True, env=env, check=True, cwd=ROOT)
        runs = json.loads(proc.stdout.strip().splitlines()[-1])
        zl = runs["zlib"]
        result["floor_json_mb"] = round(zl["bytes"] / 1e6, 1)
        result["floor_zlib_mb_per_second"] = round(zl["bytes"] / zl["inflate_seconds"] / 1e6)
        result[f"floor_select_{tag}_zlib_mb_per_second"] = round(
            zl["bytes"] / zl["select_seconds"] / 1e6)
        result[f"floor_select_{tag}_zlib_share"] = round(
            zl["inflate_seconds"] / zl["select_seconds"], 2)
        result[f"floor_select_{tag}_candidates"] = zl["candidates"]
        events_per_second = zl["events"] / zl["select_seconds"]
        if "isal" in runs:
            isal = runs["isal"]
            assert isal["candidates"] == zl["candidates"]
            result["floor_isal_mb_per_second"] = round(
                isal["bytes"] / isal["inflate_seconds"] / 1e6)
            result[f"floor_select_{tag}_isal_mb_per_second"] = round(
                isal["bytes"] / isal["select_seconds"] / 1e6)
            result[f"floor_select_{tag}_isal_share"] = round(
                zl["inflate_seconds"] / isal["select_seconds"], 2)
            events_per_second = isal["events"] / isal["select_seconds"]
        result[f"floor_year_cpu_hours_{tag}"] = round(YEAR_EVENTS / events_per_second / 3600,
                                                      2)
    result["floor_isal_installed"] = "floor_isal_mb_per_second" in result
    result["target_met_floor"] = all(result[f"floor_select_{tag}_zlib_share"]
                                     >= TARGET_FLOOR_SHARE for tag, _ in FLOOR_SHARES)
    return result


def floor_summary(result: dict) -> list[str]:
    """Markdown lines: select's rate beside the decompression floor."""
    if "floor_zlib_mb_per_second" not in result:
        return []
    isal = result["floor_isal_installed"]
    lines = [f"- Decompression floor (one core, CPU time, {result['floor_json_mb']} MB of "
             f"JSON): zlib {result['floor_zlib_mb_per_second']} MB/s"
             + (f", ISA-L {result['floor_isal_mb_per_second']} MB/s." if isal else
                " (python-isal not installed).")]
    for tag, label in (("1pct", "1%"), ("0_1pct", "0.1%")):
        line = (f"  - select, {label} of events in the study's repositories: "
                f"{result[f'floor_select_{tag}_zlib_mb_per_second']} MB/s with zlib "
                f"({result[f'floor_select_{tag}_zlib_share']:.0%} of zlib's rate)")
        if isal:
            line += (f", {result[f'floor_select_{tag}_isal_mb_per_second']} MB/s with ISA-L "
                     f"({result[f'floor_select_{tag}_isal_share']:.0%} of zlib's rate)")
        line += (f"; a year of GH Archive ({YEAR_EVENTS / 1e9:.1f} billion events) about "
                 f"{result[f'floor_year_cpu_hours_{tag}']} CPU hours at these events' size")
        lines.append(line + ".")
    lines.append(f"  - target: select at {result['target_floor_share']:.0%} of zlib's rate "
                 f"or more: {'met' if result['target_met_floor'] else 'not met'}.")
    return lines


CROSSOVER_FILES = (1, 2, 4, 8, 16)
AUTO_TOLERANCE = 1.1


def timed_select(files: list[Path], keywords: Path, out: Path, *extra: str) -> float:
    """Wall seconds of ``python -m analysis.update.select`` on ``files`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "analysis.update.select", *map(str, files), "--out",
                    str(out), "--keywords", str(keywords), "--known", "none", "--force",
                    *extra], check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least-squares (seconds at 0 bytes, seconds per byte) of (bytes, seconds)."""
    import numpy as np

    x = np.array([b for b, _ in points], dtype=float)
    y = np.array([t for _, t in points], dtype=float)
    slope, fixed = np.polyfit(x, y, 1)
    return float(fixed), float(slope)


def measure_crossover(tmp: Path, keywords: Path, files: list[Path]) -> dict:
    """Streaming and 2 workers, whole commands, on growing inputs; where they cross."""
    from analysis.update.select.engine import CROSSOVER_BYTES, auto_workers

    stream, dask = [], []
    result: dict = {"crossover_constant_bytes": CROSSOVER_BYTES}
    auto_ok = True
    for n in CROSSOVER_FILES:
        chosen = files[:n]
        size = sum(f.stat().st_size for f in chosen)
        s = timed_select(chosen, keywords, tmp / "x-stream")
        d = timed_select(chosen, keywords, tmp / "x-dask", "--workers", "2")
        stream.append((size, s))
        dask.append((size, d))
        result[f"crossover_{n}_files_mb"] = round(size / 1e6, 1)
        result[f"crossover_{n}_files_streaming_seconds"] = round(s, 2)
        result[f"crossover_{n}_files_dask2_seconds"] = round(d, 2)
        workers, _ = auto_workers(size, 2)
        picked = d if workers else s
        auto_ok &= picked <= AUTO_TOLERANCE * min(s, d)
    (fs, ss), (fd, sd) = fit(stream), fit(dask)
    result["streaming_fixed_seconds"] = round(fs, 2)
    result["dask2_fixed_seconds"] = round(fd, 2)
    result["streaming_mb_per_second_whole_command"] = round(1 / ss / 1e6, 1)
    result["dask2_mb_per_second_whole_command"] = round(1 / sd / 1e6, 1)
    result["crossover_bytes"] = (int((fd - fs) / (ss - sd)) if ss > sd else None)
    result["target_met_auto_picks_the_faster"] = bool(auto_ok)
    return result


def run(results_dir: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from tests.support.gharchive import Hour, write_archive

    repos = ("pytorch/pytorch", "tensorflow/tensorflow", "vllm-project/vllm",
             "microsoft/DeepSpeed", "NVIDIA/Megatron-LM")
    result: dict = {"target_events_per_second_per_core": TARGET_RATE,
                    "target_speedup_2_workers": TARGET_SPEEDUP,
                    "files": FILES, "events_per_file": EVENTS_PER_FILE,
                    "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        keywords = tmp / "filter_keywords"
        keywords.write_text(KEYWORDS, encoding="utf-8")
        files = write_archive(tmp / "gh", FILES, Hour(repos, events=EVENTS_PER_FILE,
                                                      spec_share=0.05))
        raw = sum(len(__import__("gzip").decompress(f.read_bytes())) for f in files[:2]) / 2
        result["bytes_per_event"] = int(raw / EVENTS_PER_FILE)
        result["gzip_mb_per_file"] = round(sum(f.stat().st_size for f in files)
                                           / FILES / 1e6, 2)
        s = measure("streaming", keywords, tmp / "o1", files)
        result["streaming_seconds"] = round(s["seconds"], 2)
        result["streaming_events_per_second"] = int(s["events"] / s["seconds"])
        result["streaming_events_per_cpu_second"] = int(s["events"] / s["cpu_seconds"])
        result["streaming_mb_per_second"] = round(result["streaming_events_per_second"]
                                                  * result["bytes_per_event"] / 1e6, 1)
        result["candidates"] = s["candidates"]
        d = measure("2", keywords, tmp / "o2", files)
        result["dask2_seconds"] = round(d["seconds"], 2)
        result["dask2_events_per_second"] = int(d["events"] / d["seconds"])
        result["dask2_events_per_worker_cpu_second"] = int(d["events"] / d["cpu_seconds"])
        # on an idle machine 2 workers on 2 cores run at twice one worker's CPU rate; the
        # load average says how idle the machine was
        result["load_average_during_runs"] = [round(s["load"], 2), round(d["load"], 2)]
        result["speedup_2_workers"] = round(result["dask2_events_per_second"]
                                            / result["streaming_events_per_second"], 2)
        assert d["candidates"] == s["candidates"]
        one = measure("1", keywords, tmp / "o3", files[:1])
        twenty = measure("1", keywords, tmp / "o4", files)
        result["worker_peak_rss_mb_1_file"] = round(one["worker_rss_mb"][0], 1)
        result["worker_peak_rss_mb_20_files"] = round(twenty["worker_rss_mb"][0], 1)
        result.update(measure_floor(tmp, keywords, repos))
        result.update(measure_crossover(tmp, keywords, files))
        result.update(measure_bombs(tmp, keywords, files[0]))
    result["worker_memory_ratio_20_vs_1"] = round(result["worker_peak_rss_mb_20_files"]
                                                  / result["worker_peak_rss_mb_1_file"], 2)
    result["target_met_rate"] = result["streaming_events_per_second"] >= TARGET_RATE
    result["target_met_speedup"] = result["speedup_2_workers"] >= TARGET_SPEEDUP
    result["target_met_memory"] = result["worker_memory_ratio_20_vs_1"] <= 1.1
    return result


def summary(result: dict) -> list[str]:
    return [
        f"- Synthetic GH Archive: {result['files']} hourly files of "
        f"{result['events_per_file']:,} events ({result['bytes_per_event']:,} bytes an event "
        f"uncompressed, {result['gzip_mb_per_file']} MB a file compressed).",
        f"- Streaming engine, one core: {result['streaming_events_per_second']:,} events/s "
        f"({result['streaming_mb_per_second']} MB/s of JSON; "
        f"{result['streaming_events_per_cpu_second']:,} per CPU second; target "
        f"{result['target_events_per_second_per_core']:,}: "
        f"{'met' if result['target_met_rate'] else 'not met'}).",
        f"- Dask, 2 worker processes: {result['dask2_events_per_second']:,} events/s, "
        f"{result['speedup_2_workers']}x the streaming engine (target "
        f"{result['target_speedup_2_workers']}x: "
        f"{'met' if result['target_met_speedup'] else 'not met'}); "
        f"{result['dask2_events_per_worker_cpu_second']:,} events per worker CPU second. "
        f"Load average during the runs: {result['load_average_during_runs']} "
        + (f"(over the {result['cpus']} cores: other work shared them, and the wall-clock "
           "rates understate)." if max(result['load_average_during_runs']) > result['cpus']
           else f"(at most the {result['cpus']} cores: no other work competed)."),
        f"- Peak memory of a worker: {result['worker_peak_rss_mb_1_file']} MB for 1 file, "
        f"{result['worker_peak_rss_mb_20_files']} MB for 20 (ratio "
        f"{result['worker_memory_ratio_20_vs_1']}: "
        f"{'flat' if result['target_met_memory'] else 'not flat'}).",
        *floor_summary(result),
        *crossover_summary(result),
        *bomb_summary(result),
    ]


def crossover_summary(result: dict) -> list[str]:
    """Markdown lines: where 2 workers overtake streaming, and auto's choices."""
    if "crossover_bytes" not in result:
        return []
    cross = result["crossover_bytes"]
    lines = [f"- Crossover (whole commands, the cluster's start included): streaming "
             f"{result['streaming_fixed_seconds']} s + "
             f"{result['streaming_mb_per_second_whole_command']} MB/s, 2 workers "
             f"{result['dask2_fixed_seconds']} s + "
             f"{result['dask2_mb_per_second_whole_command']} MB/s of gzip input: 2 workers "
             + (f"overtake streaming at {cross / 1e6:,.0f} MB" if cross else
                "never overtake streaming here")
             + f" (--workers auto uses {result['crossover_constant_bytes'] / 1e6:,.0f} MB; "
             f"it picked the faster engine, within 10%, at every size: "
             f"{'met' if result['target_met_auto_picks_the_faster'] else 'not met'})."]
    for n in CROSSOVER_FILES:
        lines.append(f"  - {n} hour(s), {result[f'crossover_{n}_files_mb']} MB: streaming "
                     f"{result[f'crossover_{n}_files_streaming_seconds']} s, 2 workers "
                     f"{result[f'crossover_{n}_files_dask2_seconds']} s")
    return lines


BOMBS = (("zeros_1gib_no_line_break", "1 GiB of zeros without a line break"),
         ("one_line_of_512mib", "an hour with one line of 512 MiB"),
         ("short_lines_2gib_file_limit_1gib", "2 GiB of short lines, --max-file-bytes 1GiB"),
         ("ordinary_hour", "an ordinary hour"),
         ("issue_body_of_120mib", "an issue whose body is 120 MiB of keywords (under the "
                                  "line limit: parsed and matched)"))


def bomb_summary(result: dict) -> list[str]:
    """Markdown lines: select's peak memory on each hostile file, beside the limits."""
    if "bomb_line_limit_mb" not in result:
        return []
    from analysis.core.sizes import MiB, size_text

    lines = [f"- Hostile input (limits: --max-line-bytes "
             f"{size_text(result['bomb_line_limit_mb'] * MiB)}, --max-file-bytes "
             f"{size_text(result['bomb_file_limit_mb'] * MiB)}): peak memory of select "
             f"at most {result['bomb_peak_rss_bound_mb']} MB (the ordinary peak + twice the "
             f"line limit + {BOMB_MARGIN_MB} MiB): "
             f"{'met' if result['target_met_bounded_memory'] else 'not met'}."]
    for key, what in BOMBS:
        lines.append(f"  - {what} ({result[f'bomb_{key}_gzip_mb']} MB gzip): peak "
                     f"{result[f'bomb_{key}_peak_rss_mb']} MB in "
                     f"{result[f'bomb_{key}_seconds']} s; "
                     + (f"refused: `{result[f'bomb_{key}_message']}`"
                        if result[f"bomb_{key}_code"] else "selected"))
    return lines


if __name__ == "__main__":
    print(json.dumps(run(ROOT / "bench" / "results"), indent=2))
