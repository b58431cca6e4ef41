"""Least-squares fits, for the linear baselines the lessons compare against."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.block import mse


@dataclass(frozen=True)
class LinearFit:
    coefficients: np.ndarray   # one per input column
    intercept: float
    mse: float

    def predict(self, inputs: np.ndarray) -> np.ndarray:
        return np.asarray(inputs, dtype=np.float64) @ self.coefficients + self.intercept


def least_squares(inputs: np.ndarray, targets: np.ndarray) -> LinearFit:
    """The ŷ = x·a + c minimizing the mean squared error; the minimum-norm one if not unique."""
    x = np.asarray(inputs, dtype=np.float64)
    y = np.asarray(targets, dtype=np.float64).reshape(len(x))
    design = np.column_stack([x, np.ones(len(x))])
    solution, *_ = np.linalg.lstsq(design, y, rcond=None)
    coefficients, intercept = solution[:-1], float(solution[-1])
    return LinearFit(coefficients, intercept, mse(design @ solution, y))
