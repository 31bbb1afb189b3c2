"""Unit tests of ``analysis.tools``."""
