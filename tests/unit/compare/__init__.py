"""Unit tests of ``analysis.compare``."""
