"""The bootstrap over issues: multinomial pattern weights and percentile intervals."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.agreement import bootstrap as bs


def test_resampled_weights_keep_the_number_of_issues():
    w = np.array([5.0, 1.0, 10.0])
    chunks = list(bs.resample_weights(w, 600, 1, chunk=250))
    assert [len(c) for c in chunks] == [250, 250, 100]
    draws = np.concatenate(chunks)
    assert draws.shape == (600, 3)
    assert (draws.sum(axis=1) == 16).all()
    assert draws.mean(axis=0) == pytest.approx(w, rel=0.1)


def test_resampled_weights_are_seeded_and_do_not_depend_on_the_chunks():
    w = np.array([3.0, 7.0, 2.0, 8.0])
    one = np.concatenate(list(bs.resample_weights(w, 40, 5, chunk=40)))
    again = np.concatenate(list(bs.resample_weights(w, 40, 5, chunk=40)))
    other = np.concatenate(list(bs.resample_weights(w, 40, 6, chunk=40)))
    assert np.array_equal(one, again) and not np.array_equal(one, other)
    assert list(bs.resample_weights(w, 0, 5)) == []


def test_percentile_interval_counts_the_undefined_draws():
    draws = np.array([[0.1, 1.0], [0.2, np.nan], [0.3, 3.0], [np.nan, 4.0], [0.5, 5.0]])
    low, high, undefined = bs.percentile_interval(draws, 0.5)
    assert undefined == 2  # draws with any undefined value
    assert low.tolist() == pytest.approx([np.percentile([0.1, 0.2, 0.3, 0.5], 25),
                                          np.percentile([1.0, 3.0, 4.0, 5.0], 25)])
    assert high.tolist() == pytest.approx([np.percentile([0.1, 0.2, 0.3, 0.5], 75),
                                           np.percentile([1.0, 3.0, 4.0, 5.0], 75)])


def test_percentile_interval_without_defined_draws():
    low, high, undefined = bs.percentile_interval(np.empty((0, 3)), 0.95)
    assert low.shape == high.shape == (3,) and np.isnan(low).all() and undefined == 0
    low, high, undefined = bs.percentile_interval(np.full((4, 2), np.nan), 0.95)
    assert np.isnan(high).all() and undefined == 4


def test_progress_is_silent_off_a_terminal(capsys):
    assert list(bs.progress(range(3), desc="x")) == [0, 1, 2]
    assert capsys.readouterr().err == ""
