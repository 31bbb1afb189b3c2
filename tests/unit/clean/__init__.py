"""Unit tests of ``analysis.clean``."""
