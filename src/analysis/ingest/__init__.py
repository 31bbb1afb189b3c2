"""The ``ingest`` stage: the released data, fetched, verified and copied into ``data/raw/``."""

from analysis.core.pipeline import P, Stage, rel
from analysis.ingest.params import IngestParams

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
# It reads the study the study stage built (analysis.update.study: the release, ingest.source,
# extended with the team's batches; the release itself without a batch).
STAGE = Stage(
    "ingest", reads=(rel(P.study),), notebook=False, module="analysis.ingest.__main__",
    cmd=f"python -m analysis.ingest --study {rel(P.study)} --out {rel(P.raw)} "
        f"--provenance {rel(P.provenance)}",
    outs=(rel(P.raw), rel(P.provenance)), params=IngestParams)
