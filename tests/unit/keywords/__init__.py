"""Unit tests of ``analysis.keywords``."""
