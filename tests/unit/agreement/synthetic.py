"""Synthetic and published ratings for the unit tests of the agreement statistics, and the
conversions to the libraries' formats (the libraries are the oracle)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.agreement.params import AgreementParams
from analysis.agreement.ratings import MISSING

# Fleiss (1971), Table 1: 30 patients, 6 psychiatrists, 5 diagnoses (1 depression,
# 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other).
FLEISS_1971 = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]) - 1

# The worked example of Fleiss' kappa on Wikipedia: 10 subjects, 14 raters, 5 categories,
# given as a subject x category count table; kappa = 0.210.
WIKIPEDIA_COUNTS = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])


def codes_from_counts(counts: np.ndarray) -> np.ndarray:
    """A subject x category count table as one row of codes per subject."""
    return np.array([np.repeat(np.arange(counts.shape[1]), row) for row in counts])


def random_codes(n: int, r: int, k: int, seed: int, missing: float = 0.0) -> np.ndarray:
    """Ratings with a true label per issue and 75 % accuracy, optionally with gaps."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < 0.75, truth[:, None], rng.integers(0, k, (n, r)))
    if missing:
        codes = np.where(rng.random((n, r)) < missing, MISSING, codes)
    return codes.astype(np.int8)


def library_frame(codes: np.ndarray) -> pd.DataFrame:
    """Codes as irrCAC wants them: one column per rater, NaN for a missing rating."""
    return pd.DataFrame(np.where(codes >= 0, codes, np.nan).astype(float))


def coded(frame: pd.DataFrame) -> tuple[np.ndarray, list]:
    """A library frame (NaN or None for a missing rating) as codes on its sorted values."""
    cells = frame.to_numpy(dtype=object)
    present = pd.notna(cells) & (cells != "")
    categories = sorted({v for v in cells[present]})
    codes = np.full(cells.shape, MISSING, dtype=np.int8)
    for k, value in enumerate(categories):
        codes[present & (cells == value)] = k
    return codes, categories


def settings(bootstrap_resamples: int, seed: int = 1, confidence_level: float = 0.95,
             ac1_categories: str | int = "taxonomy") -> AgreementParams:
    """The agreement stage's settings (params.yaml's ``agreement`` section) for a test."""
    return AgreementParams.of(bootstrap_resamples=bootstrap_resamples, seed=seed,
                              confidence_level=confidence_level,
                              ac1_categories=ac1_categories)
