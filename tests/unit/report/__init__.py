"""Unit tests of ``analysis.report``."""
