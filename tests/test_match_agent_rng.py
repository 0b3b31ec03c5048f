"""An agent's generator does not hold the game's seed: seeded with words drawn from its seat's
stream, its SeedSequence's entropy is not the seed (from which the deal, every hand, could be
dealt again), and the same seed still gives the same draws."""

from __future__ import annotations

from typing import Any

import numpy as np

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.match import agent_rng, game_streams
from dixit_ai.rules import RuleSet, new_game


class Peeking(RandomAgent):
    """Keeps what its generator says of its seed."""

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        super().reset(seat=seat, rng=rng)
        sequence: Any = rng.bit_generator.seed_seq
        self.entropy = sequence.entropy
        self.spawn_key = tuple(sequence.spawn_key)
        self.first = float(np.random.default_rng(sequence).random())


def test_the_agents_generator_does_not_hold_the_game_seed() -> None:
    seed = 123_456
    peeker = Peeking()
    record = play_game([peeker] + [RandomAgent() for _ in range(3)], edition="refresh-2021",
                       deck=range(84), seed=seed, max_rounds=1)
    assert not np.array_equal(np.asarray(peeker.entropy), np.asarray(seed))
    assert peeker.spawn_key == ()
    # What the probe did: deal the game again from the generator's own seed.
    rules = RuleSet.edition("refresh-2021")
    root = np.random.SeedSequence(peeker.entropy)
    stolen = new_game(rules, 4, range(84), np.random.default_rng(root.spawn(5)[0]))
    real = new_game(rules, 4, range(84), np.random.default_rng(game_streams(seed, 4)[0]))
    assert stolen.hands != real.hands
    assert record.rounds  # the game was played


def test_the_same_seed_gives_the_same_generator() -> None:
    stream = game_streams(9, 4)[1]
    assert agent_rng(stream).random() == agent_rng(game_streams(9, 4)[1]).random()
    assert agent_rng(stream).random() != np.random.default_rng(stream).random()
