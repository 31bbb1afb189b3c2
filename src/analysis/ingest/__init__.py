"""The ``ingest`` stage: the released data, fetched, verified and copied into ``data/raw/``."""
