"""Selection from GH Archive (python -m analysis.select): events per second per core on the
streaming engine, the speed-up with 2 Dask workers, memory per worker from 1 to 20 files.

Input: synthetic GH Archive hours (``tests/support/gharchive.py``: GH Archive's event mix
and shapes, issues and pull requests opened in the spec's repositories and in others), with
the projects file's spec and a PyTorch-like keyword list. Each measurement runs in a fresh
process: the streaming engine pinned to one core; Dask with a local cluster of 2 worker
processes (one thread each) on the machine's 2 cores; worker memory is the peak resident
size of the worker processes (``ru_maxrss`` of each, read on the workers). Targets (2
cores): 100,000 events/s per core streaming, 1.7x that with 2 workers, worker memory flat
from 1 to 20 files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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
from analysis.select.__main__ import load_spec, parser
from analysis.select import engine
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


def measure(mode: str, keywords: Path, out: Path, files: list[Path]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, str(keywords), str(out),
                           *map(str, files)], capture_output=True, text=True, env=env,
                          check=True, cwd=ROOT)
    return json.loads(proc.stdout.strip().splitlines()[-1])


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
    ]


if __name__ == "__main__":
    print(json.dumps(run(ROOT / "bench" / "results"), indent=2))
