"""Unit tests of ``analysis.update.labels``."""
