"""The Dixit Party embedding players (models/players/party.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai import play_game, replay_record
from dixit_ai.agents import RandomAgent, make_agent
from dixit_ai.rules import Announce, Game, Phase, Play, RuleSet, Vote, observe
from models.players.party import PartyAgent
from models.players.resources import from_vectors

PARTY = RuleSet.edition("odyssey-2011", mode="party")


def toy_resources(n_cards: int = 84, dim: int = 16, seed: int = 0) -> object:
    rng = np.random.default_rng(seed)
    cards = rng.normal(size=(n_cards, dim)).astype(np.float32)
    words = {f"w{i}": rng.normal(size=dim).tolist() for i in range(40)}
    # "sun" points at card 5, the deck's clearest focus.
    words["sun"] = (cards[5] * 3 + rng.normal(size=dim) * 0.1).tolist()
    return from_vectors(cards, words)


def agents(n: int, resources: object) -> list[PartyAgent]:
    return [PartyAgent(deck=resources, focal_clues=8) for _ in range(n)]


def test_each_decision_follows_its_rule() -> None:
    resources = toy_resources()
    game = Game(PARTY, 6, range(84), seed=1)
    players = agents(6, resources)
    for seat, player in enumerate(players):
        player.reset(seat=seat, rng=np.random.default_rng(seat))
    teller = players[0]
    said = teller.announce(observe(game.state, 0))  # no hand in view: the clue comes first
    assert said.clue in teller.focal_vocabulary()
    game.apply(Announce(0, "sun"))
    while game.state.phase is Phase.PLAY:
        seat = game.state.pending[0]
        view = observe(game.state, seat)
        (card,) = players[seat].play(view).items
        sims = resources.clue_similarities("sun", list(view.hand))  # type: ignore[attr-defined]
        assert card == view.hand[int(np.argmax(sims))]  # the hand card most like the clue
        game.apply(Play(seat, (card,)))
    share = players[1].popularity("sun", game.state.board)
    for seat in range(6):
        (position,) = players[seat].vote(observe(game.state, seat)).items
        assert position == int(np.argmax(share))  # the card most likely to be popular
        game.apply(Vote(seat, (position,)))
    (red,) = teller.red_token(observe(game.state, 0)).items
    # Never on its own voted card; else on the others' most likely favourite.
    assert red != game.state.votes[0][0]
    ranked = [int(p) for p in np.argsort(-share) if int(p) != game.state.votes[0][0]]
    assert red == ranked[0]


def test_focal_clues_single_out_few_cards() -> None:
    agent = PartyAgent(deck=toy_resources(), focal_clues=3)
    assert agent.focal_vocabulary()[0] == "sun"
    agent.reset(seat=0, rng=np.random.default_rng(0))
    view = observe(Game(PARTY, 6, range(84), seed=0).state, 0)
    said = [agent.announce(view).clue for _ in range(3)]
    assert sorted(said) == sorted(agent.focal_vocabulary())  # never the same clue twice
    with pytest.raises(RuntimeError, match="focal clues"):
        agent.announce(view)


def test_whole_party_games_replay_and_beat_random_voters() -> None:
    resources = toy_resources()
    record = play_game(agents(8, resources), edition="odyssey-2011", deck=range(84), seed=3,
                       mode="party")
    assert record.status == "complete" and len(record.rounds) == 8
    replay_record(record)
    # Coordination: embedding voters agree far more often than random ones.
    mixed = play_game([*agents(4, resources), *(RandomAgent() for _ in range(4))],
                      edition="odyssey-2011", deck=range(84), seed=3, mode="party")
    embed = sum(mixed.final_scores[:4])
    rand = sum(mixed.final_scores[4:])
    assert embed > rand


def test_refuses_the_base_game_and_bad_options() -> None:
    record = play_game(agents(4, toy_resources()), edition="refresh-2021", deck=range(84),
                       seed=0)
    assert record.status == "aborted" and "Dixit Party only" in record.failures[0].reason
    with pytest.raises(ValueError, match="focal_clues must be an int >= 1"):
        PartyAgent(focal_clues=0)
    with pytest.raises(ValueError, match="temperature"):
        PartyAgent(temperature=0)


def test_registry_entry() -> None:
    agent = make_agent("party-embedding", deck=toy_resources())
    assert isinstance(agent, PartyAgent) and agent.name == "party-embedding"
