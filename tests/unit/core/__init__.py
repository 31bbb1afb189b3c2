"""Unit tests of ``analysis.core``."""
