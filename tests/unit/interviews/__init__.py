"""Unit tests of ``analysis.interviews``."""
