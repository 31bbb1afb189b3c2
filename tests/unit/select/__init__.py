"""Unit tests of ``analysis.select``."""
