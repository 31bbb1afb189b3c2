"""Unit tests of ``analysis.findings``."""
