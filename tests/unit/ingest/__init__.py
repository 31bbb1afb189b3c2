"""Unit tests of ``analysis.ingest``."""
