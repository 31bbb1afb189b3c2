"""The explorer stage's tests use the taxonomy tests' small taxonomy and issues."""

from tests.unit.taxonomy.conftest import PROJECTS, small, small_issues  # noqa: F401
