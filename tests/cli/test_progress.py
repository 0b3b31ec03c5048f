"""Issue 16, item 6: one-time steps say what they do (counts and timings) on stderr.

Both tests start from an empty cache (a folder of their own), so every step is really done.
"""

from __future__ import annotations

import re

import pytest

from tests.cli.helpers import dixit


def test_deck_info_says_it_reads_the_cards(tmp_path):
    env = {"DIXIT_AI_CACHE_DIR": str(tmp_path / "cache")}
    result = dixit("deck", "info", "dream:size=40,seed=5", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.output
    assert re.search(r"read 40 cards of dream \(size 40, seed 5\) to fingerprint the deck "
                     r".* \.\.\. \d+\.\d s", result.stderr), result.stderr
    again = dixit("deck", "info", "dream:size=40,seed=5", cwd=tmp_path, env=env)
    assert again.returncode == 0 and "read 40 cards" not in again.stderr  # cached: nothing to say


@pytest.mark.slow
def test_a_tournament_says_what_it_prepares_before_the_games(tmp_path):
    pytest.importorskip("models.players")
    env = {"DIXIT_AI_CACHE_DIR": str(tmp_path / "cache")}
    result = dixit("tournament", "--agents", "clip-greedy,random", "--players", "3", "--games",
                   "1", "--max-rounds", "1", "--workers", "1", "--no-progress", "--deck",
                   "dream:size=24,seed=3", "--resamples", "20", "--rating-resamples", "0",
                   cwd=tmp_path, env=env, timeout=600)
    assert result.returncode == 0, result.output
    lines = result.stderr.splitlines()
    embedding = [line for line in lines
                 if re.fullmatch(r"embedding 24 cards with \S+ \.\.\. \d+\.\d s", line)]
    assert embedding, result.stderr
    assert any(re.match(r"loading model default .*\.\.\. \d+\.\d s", line) for line in lines)
    assert lines.index(embedding[0]) < next(
        i for i, line in enumerate(lines) if line.startswith("played 1 game "))
