"""The test suite: ``unit/`` mirrors the package, ``e2e/`` runs notebooks and DVC."""
