"""The agreement stage on the offline mirror and on a dump resampled 100 times (3.9 M issues).

Measured, each in a fresh Python process (so peak memory is the measurement's own):

- ``mirror_stage``: the agreement notebook on the mirror's issues, with the pipeline's
  parameters (outputs to a temporary folder);
- ``headline``: the three per-type kappas and the overall one on the large dump, with this
  package's estimators (:func:`analysis.agreement.estimators.kappas_by_group`, which gives
  both Fleiss' kappa estimators per group from one set of label patterns);
- ``upstream``: the same kappas the way the authors' ``kappa.py`` computes them, side by
  side: a ``collections.Counter`` per issue builds the rating matrix, then statsmodels'
  ``fleiss_kappa`` (the matrix is preallocated, so memory stays bounded);
- ``full``: every statistic of the stage with intervals (2,000 bootstrap resamples) and the
  audit, on the large dump;
- ``headline_missing``: the headline with both Fleiss' kappa estimators (complete rows and
  Gwet's generalised one, :func:`analysis.agreement.estimators.kappas_by_group`) per type and
  overall, on the large dump with a tenth of its ratings removed at random; checked (not
  timed) against each group's issues alone (:func:`analysis.agreement.estimators.estimate`).

Targets, on a 2-core machine: headline under 1 s (with and without missing ratings), full
under 15 s and 2 GB. Times exclude reading the Parquet file, which is reported separately.
The released data come from the offline mirror, else from ``data/release`` (filled by
``python -m analysis.ingest fetch``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIRROR = (ROOT / ".." / "shared" / "upstream" / "LLMChallengeEmpirical").resolve()
FACTOR = 100
MISSING_SHARE = 0.1
SEED = 20250613
RESAMPLES = 2000
HEADLINE_TARGET_S = 1.0
FULL_TARGET_S = 15.0
FULL_TARGET_BYTES = 2 * 1024 ** 3

PRELUDE = """
import json, resource, sys, time
t0 = time.perf_counter()
from analysis.agreement.inputs import load_issues
issues = load_issues(sys.argv[1])
load = time.perf_counter() - t0
def done(**kw):
    kw["load_seconds"] = round(load, 3)
    kw["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(kw))
"""

# the three kappas per type and over all issues, both estimators, timed
HEADLINE_CORE = """
import numpy as np
from analysis.agreement.estimators import kappas_by_group
from analysis.agreement.ratings import encode_ratings, group_index
from analysis.core.taxonomy import load_taxonomy
taxonomy = load_taxonomy()
t = time.perf_counter()
ratings = encode_ratings(issues, taxonomy.codes)
groups, names = group_index(issues["type"])
both = kappas_by_group(ratings.codes, groups, len(names), ratings.n_categories,
                       with_total=True)  # per type, then all issues (the last row)
seconds = time.perf_counter() - t
"""

HEADLINE = PRELUDE + HEADLINE_CORE + """
kappas = dict(zip([*map(str, names), "all"], both["complete"]["value"].tolist()))
done(seconds=round(seconds, 3), kappas=kappas)
"""

HEADLINE_MISSING = PRELUDE + HEADLINE_CORE + """
kappas, used = {}, {}
for est in ("complete", "generalised"):
    kappas[est] = dict(zip([*map(str, names), "all"], both[est]["value"].tolist()))
    used[est] = dict(zip([*map(str, names), "all"], both[est]["n"].tolist()))
# the same kappas from each group's issues alone, to check the grouping
from analysis.agreement.estimators import estimate
from analysis.agreement.ratings import label_patterns
diff = 0.0
for g, name in [*enumerate(names), (None, "all")]:
    codes = ratings.codes if g is None else ratings.codes[groups == g]
    pats, _ = label_patterns(codes, ratings.n_categories)
    for est, stat in (("complete", "fleiss_kappa"), ("generalised", "fleiss_kappa_generalised")):
        ref = estimate(stat, pats.features, pats.weights).value
        diff = max(diff, abs(ref - kappas[est][str(name)]))
done(seconds=round(seconds, 3), kappas=kappas, used=used, max_abs_difference_core=diff,
     ratings_missing=int((ratings.codes < 0).sum()), ratings=int(ratings.codes.size))
"""

UPSTREAM = PRELUDE + """
from collections import Counter
import numpy as np
from statsmodels.stats.inter_rater import fleiss_kappa
cols = [c for c in issues.columns if c.startswith("annotator_")]
t = time.perf_counter()
def rating_matrix(frame):
    categories = sorted({v for c in cols for v in frame[c].unique()})
    index = {c: i for i, c in enumerate(categories)}
    matrix = np.zeros((len(frame), len(categories)), dtype=np.int32)
    for i, row in enumerate(frame[cols].itertuples(index=False, name=None)):
        for label, count in Counter(row).items():
            matrix[i, index[label]] = count
    return matrix
kappas = {}
for name, group in issues.groupby(issues["type"].astype(str), observed=True):
    kappas[name] = float(fleiss_kappa(rating_matrix(group)))
kappas["all"] = float(fleiss_kappa(rating_matrix(issues)))
done(seconds=round(time.perf_counter() - t, 3), kappas=kappas)
"""

FULL = PRELUDE + """
from analysis.agreement.compute import analyse
from analysis.agreement.params import AgreementParams
from analysis.core.paths import PATHS
from analysis.core.projects import Projects
from analysis.core.taxonomy import load_taxonomy
projects = Projects.load(PATHS.projects_file)
order = projects.order(map(str, issues["project"].unique()))
t = time.perf_counter()
params = AgreementParams.of(bootstrap_resamples=int(sys.argv[2]), seed=1,
                            confidence_level=0.95, ac1_categories="taxonomy")
a = analyse(issues, load_taxonomy(), order, params)
done(seconds=round(time.perf_counter() - t, 3), rows=len(a.statistics))
"""


def measure(script: str, *args: str) -> dict:
    """Run a measurement script in a fresh interpreter; return what it printed (JSON)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    if proc.returncode:
        raise RuntimeError(f"measurement failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def release_folder() -> Path | None:
    """The released data: the offline mirror, else ``data/release`` if it holds them."""
    from analysis.core.paths import PATHS

    for folder in (MIRROR, PATHS.release):
        if folder.is_dir():
            return folder
    return None


def with_missing_ratings(frame, share: float, seed: int):
    """A copy of ``frame`` with ``share`` of its annotator labels removed at random."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = frame.copy()
    for col in [c for c in out.columns if c.startswith("annotator_")]:
        out[col] = out[col].mask(rng.random(len(out)) < share)
    return out


def write_dumps(tmp: Path, source: Path) -> tuple[Path, Path, Path, int]:
    """The release's issues, a dump of FACTOR x as many issues drawn with replacement, and
    the same with MISSING_SHARE of its ratings removed."""
    import numpy as np

    from analysis.clean.compute import clean_dump
    from analysis.core.artifacts import write_parquet
    from analysis.core.paths import PATHS
    from analysis.core.projects import Projects
    from analysis.core.taxonomy import load_taxonomy

    issues = clean_dump(source, load_taxonomy(), Projects.load(PATHS.projects_file)).issues
    small = tmp / "mirror.parquet"
    write_parquet(small, issues)
    cols = [c for c in issues.columns if c.startswith("annotator_")]
    keep = issues[["project", "year", "type", "final_label", *cols]]
    keep = keep.astype({c: "category" for c in ["project", "type", "final_label", *cols]})
    idx = np.random.default_rng(SEED).integers(0, len(keep), FACTOR * len(keep))
    big = tmp / "resampled.parquet"
    resampled = keep.iloc[idx].reset_index(drop=True)
    resampled.to_parquet(big, index=False)
    holes = tmp / "resampled_missing.parquet"
    with_missing_ratings(resampled, MISSING_SHARE, SEED).to_parquet(holes, index=False)
    return small, big, holes, len(idx)


def run(results_dir: Path) -> dict:
    source = release_folder()
    if source is None:
        return {"skipped": "no released data: neither the offline mirror ../shared nor "
                           "data/release (python -m analysis.ingest fetch)"}
    from analysis.core.config import load_params
    from analysis.core.paths import PATHS, Paths
    from analysis.tools.nbrun import run as run_notebook

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        small, big, holes, n_big = write_dumps(tmp, source)
        params = dict(load_params().get("agreement") or {})
        stage = Paths(tmp / "root")  # a project root with the stage's inputs only
        stage.clean.issues_parquet.parent.mkdir(parents=True)
        shutil.copyfile(small, stage.clean.issues_parquet)
        stage.taxonomy_file.parent.mkdir(parents=True, exist_ok=True)
        for source, target in ((PATHS.taxonomy_file, stage.taxonomy_file),
                               (PATHS.projects_file, stage.projects_file),
                               (PATHS.claims_file, stage.claims_file)):
            shutil.copyfile(source, target)
        start = time.perf_counter()
        if run_notebook(PATHS.agreement.notebook_source, stage.agreement.notebook,
                        {"root": str(stage.root), "params": params}):
            raise RuntimeError("the agreement notebook failed on the mirror")
        seconds = time.perf_counter() - start
        mirror_full = measure(FULL, str(small), str(params.get("bootstrap_resamples", 1000)))
        headline = measure(HEADLINE, str(big))
        upstream = measure(UPSTREAM, str(big))
        full = measure(FULL, str(big), str(RESAMPLES))
        missing = measure(HEADLINE_MISSING, str(holes))
    diff = max(abs(headline["kappas"][k] - upstream["kappas"][k]) for k in upstream["kappas"])
    return {
        "mirror_stage_seconds": round(seconds, 2),
        "mirror_analysis_seconds": mirror_full["seconds"],
        "mirror_bootstrap_resamples": params.get("bootstrap_resamples"),
        "large_issues": n_big,
        "large_load_seconds": headline["load_seconds"],
        "headline_seconds": headline["seconds"],
        "headline_peak_rss_mb": round(headline["peak_rss_bytes"] / 2 ** 20),
        "upstream_seconds": upstream["seconds"],
        "upstream_peak_rss_mb": round(upstream["peak_rss_bytes"] / 2 ** 20),
        "speed_ratio_upstream_over_headline": round(upstream["seconds"] / headline["seconds"],
                                                    1),
        "max_abs_kappa_difference": diff,
        "kappas": {k: round(v, 6) for k, v in headline["kappas"].items()},
        "full_seconds": full["seconds"],
        "full_bootstrap_resamples": RESAMPLES,
        "full_peak_rss_mb": round(full["peak_rss_bytes"] / 2 ** 20),
        "headline_target_seconds": HEADLINE_TARGET_S,
        "full_target_seconds": FULL_TARGET_S,
        "full_target_mb": FULL_TARGET_BYTES // 2 ** 20,
        "headline_missing_share": MISSING_SHARE,
        "headline_missing_ratings": f"{missing['ratings_missing']} of {missing['ratings']}",
        "headline_missing_seconds": missing["seconds"],
        "headline_missing_peak_rss_mb": round(missing["peak_rss_bytes"] / 2 ** 20),
        "headline_missing_kappas": {est: {k: round(v, 6) for k, v in ks.items()}
                                    for est, ks in missing["kappas"].items()},
        "headline_missing_issues_used": missing["used"],
        "headline_missing_max_abs_difference_core": missing["max_abs_difference_core"],
        "headline_missing_target_met": missing["seconds"] < HEADLINE_TARGET_S,
        "headline_target_met": headline["seconds"] < HEADLINE_TARGET_S,
        "full_target_met": full["seconds"] < FULL_TARGET_S
        and full["peak_rss_bytes"] < FULL_TARGET_BYTES,
        "cpus": os.cpu_count(),
    }
