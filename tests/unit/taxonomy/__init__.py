"""Unit tests of ``analysis.taxonomy``."""
