"""The pipeline runs the fault tests start from: those of the end-to-end tests, built
once per session (see tests/e2e/conftest.py). Tests only read them; a test that changes a
run works in its own copy (:func:`tests.support.workspace.copy_run`)."""

from tests.e2e.conftest import shared_small_dump, small_run  # noqa: F401 (fixtures)
