"""The bootstrap over issues, as multinomial draws of label-pattern weights, and its
percentile intervals."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable

import numpy as np
from tqdm import tqdm  # the plain bar: tqdm.auto warns in kernels without ipywidgets


def resample_weights(w: np.ndarray, bootstrap_resamples: int, seed: int,
                     chunk: int = 250) -> Iterable[np.ndarray]:
    """Bootstrap over issues, as multinomial draws of pattern weights, in chunks.

    Drawing N issues with replacement and counting their patterns is a multinomial draw
    with the patterns' shares as probabilities, so the cost is resamples x patterns,
    whatever the number of issues.
    """
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    n = int(round(w.sum()))
    probs = w / w.sum()
    done = 0
    while done < bootstrap_resamples:
        size = min(chunk, bootstrap_resamples - done)
        yield rng.multinomial(n, probs, size=size).astype(float)
        done += size


def percentile_interval(draws: np.ndarray, confidence_level: float
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """Percentile interval of bootstrap draws (axis 0), and how many draws were undefined."""
    tail = (1 - confidence_level) / 2 * 100
    undefined = int(np.isnan(draws).any(axis=tuple(range(1, draws.ndim))).sum())
    if np.isnan(draws).all():  # no draws, too
        shape = draws.shape[1:]
        return np.full(shape, np.nan), np.full(shape, np.nan), undefined
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanpercentile(draws, [tail, 100 - tail], axis=0)
    return low, high, undefined


def progress(iterable: Iterable, **kwargs):
    """A progress bar on a terminal, silence elsewhere (CI logs, papermill)."""
    return tqdm(iterable, disable=not sys.stderr.isatty(), leave=False, **kwargs)
