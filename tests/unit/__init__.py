"""Unit tests, one folder per package of ``src/analysis``."""
