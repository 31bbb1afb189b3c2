"""Unit tests of ``analysis.update.select``."""
