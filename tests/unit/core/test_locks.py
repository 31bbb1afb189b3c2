"""The lock every command's hold on a folder is made of (:func:`analysis.core.locks.try_lock`):
taken without waiting, refused while another open file holds it, free once that one is
closed."""

from __future__ import annotations

import contextlib
import os

from analysis.core.locks import try_lock


def test_a_held_lock_is_refused_until_its_holder_closes(tmp_path):
    first = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    second = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert try_lock(first)
        assert not try_lock(second)  # flock: per open file, so also within one process
        os.close(first)
        assert try_lock(second)
    finally:
        os.close(second)
        with contextlib.suppress(OSError):  # closed above unless an assertion failed first
            os.close(first)
