"""The ``ingest`` stage: the released data, fetched, verified and copied into ``data/raw/``."""

from analysis.core.pipeline import P, Stage, rel
from analysis.ingest.params import IngestParams

# What the stage reads and writes (dvc.yaml is generated from it: analysis.tools.pipeline).
STAGE = Stage(
    "ingest", reads=("${ingest.source}",), notebook=False, module="analysis.ingest.__main__",
    cmd=f"python -m analysis.ingest --out {rel(P.raw)} --provenance {rel(P.provenance)}",
    outs=(rel(P.raw), rel(P.provenance)), params=IngestParams)
