"""The held-out figures share ties: a model that cannot tell images apart scores chance."""

from __future__ import annotations

import numpy as np
import pytest

from models.evaluation import caption_retrieval, target_rank


def test_images_a_model_cannot_tell_apart_score_chance_in_retrieval() -> None:
    n = 6
    images = np.tile(np.array([[1.0, 0.0]]), (n, 1))  # every image the same vector
    captions = np.random.default_rng(0).normal(size=(n, 2))
    result = caption_retrieval(images, captions)
    assert result["top1"] == pytest.approx(1 / n)
    assert result["mrr"] == pytest.approx(sum(1 / k for k in range(1, n + 1)) / n)
    assert result["ranks"] == [1] * n


def test_distinct_scores_rank_as_before() -> None:
    images = np.eye(3)
    captions = np.array([[1.0, 0.2, 0.0], [0.9, 0.5, 0.0], [0.0, 0.0, 1.0]])
    result = caption_retrieval(images, captions)
    assert result["ranks"] == [1, 2, 1]
    assert result["top1"] == pytest.approx(2 / 3)
    assert result["mrr"] == pytest.approx((1 + 0.5 + 1) / 3)


def test_target_rank_shares_only_the_cards_tied_with_the_target() -> None:
    standing = target_rank(np.array([0.5, 0.9, 0.5, 0.5, 0.1]), 0)
    assert standing.rank == 2 and standing.top1 == 0.0
    assert standing.reciprocal_rank == pytest.approx((1 / 2 + 1 / 3 + 1 / 4) / 3)
    assert target_rank(np.array([0.7, 0.7, 0.2]), 1).top1 == pytest.approx(0.5)
