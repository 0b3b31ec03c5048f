"""A learned clue policy with non-finite weights or probabilities raises; it never quietly tells
the shortlist's first candidate (``argmax`` of NaN is row 0)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.players.policy import FEATURES, LinearCluePolicy


def test_a_policy_with_non_finite_weights_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "policy.json"
    LinearCluePolicy(np.full(len(FEATURES), np.nan)).save(path)
    with pytest.raises(ValueError, match=rf"{path.name}.*not finite"):
        LinearCluePolicy.load(path)
    LinearCluePolicy(np.ones(len(FEATURES))).save(path)
    assert LinearCluePolicy.load(path).shortlist == 32


def test_a_policy_raises_on_non_finite_probabilities() -> None:
    features = np.ones((3, len(FEATURES)))
    features[1, 0] = np.inf
    rng = np.random.default_rng(0)
    for greedy in (True, False):
        policy = LinearCluePolicy(np.ones(len(FEATURES)), greedy=greedy)
        with pytest.raises(ValueError, match="not finite"):
            policy.choose(features, rng)
    assert LinearCluePolicy(np.ones(len(FEATURES))).choose(np.eye(3, len(FEATURES)), rng) == 0
