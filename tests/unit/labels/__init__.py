"""Unit tests of ``analysis.labels``."""
