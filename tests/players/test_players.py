"""The players return legal moves, never vote for their own card, and load by name."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import agent_spec, load_agent_configs, make_agent
from dixit_ai.agents.registry import _REGISTRY
from dixit_ai.rules import EDITIONS, RuleSet, new_game, observe
from models.players import ClipAgent, ClipGuesser, DecoyPicker
from models.players.vocabulary import load_vocabulary

SMALL = {"n_simulations": 8, "pair_clues": 2}


def clip(resources, **kwargs):
    return ClipAgent(deck=resources, calibration=None, **{**SMALL, **kwargs})


def tables():
    """(edition, players, overrides) covering every edition, its player counts and teams."""
    cells = []
    for edition in EDITIONS:
        rules = RuleSet.edition(edition)
        counts = sorted({rules.min_players, 4, rules.max_players})
        cells += [(edition, n, {}) for n in counts if rules.min_players <= n <= rules.max_players]
        if rules.teams_allowed:
            cells.append((edition, max(6, rules.min_team_players), {"teams": True}))
    return cells


@pytest.mark.parametrize(("edition", "n_players", "overrides"), tables())
def test_players_only_make_legal_moves(resources, edition, n_players, overrides):
    variants = [
        {}, {"mode": "expected_points"}, {"vote_temperature": 0.05, "bluff": 0.5},
        {"target_guess_rate": 0.1, "second_vote": False},
    ]
    for seed in range(2):
        agents = [clip(resources, name=f"clip{seat}", **variants[(seat + seed) % len(variants)])
                  for seat in range(n_players)]
        if seed == 1:
            agents[0] = make_agent("random")
        record = play_game(agents, edition=edition, deck=list(resources.card_ids), seed=seed,
                           max_rounds=5, **overrides)
        assert record.failures == [], record.failures
        assert record.status in ("complete", "truncated")
        for rnd in record.rounds:
            for seat, votes in rnd.votes.items():
                assert all(rnd.board_owner[p] != int(seat) for p in votes)
            if rnd.predicted_guess_rate is not None:
                assert 0.0 <= rnd.predicted_guess_rate <= 1.0


def test_guesser_never_votes_its_own_card():
    guesser = ClipGuesser()
    rules = RuleSet.edition("odyssey-2011")
    rng = np.random.default_rng(0)
    for _ in range(200):
        sims = rng.random(7)
        own = int(np.argmax(sims))  # its own card is the best match: still never voted for
        legal = [p for p in range(7) if p != own]
        votes, info = guesser.vote(sims, legal, rules=rules, max_votes=2, rng=rng)
        assert own not in votes and len(set(votes)) == len(votes) and 1 <= len(votes) <= 2
        assert "second_vote" in info


def test_agent_vote_excludes_own_card_even_when_it_is_the_clue(resources):
    rules = RuleSet.edition("refresh-2021")
    state = new_game(rules, 4, list(resources.card_ids), np.random.default_rng(3))
    agents = [clip(resources, name=f"c{s}") for s in range(4)]
    for seat, agent in enumerate(agents):
        agent.reset(seat=seat, rng=np.random.default_rng(seat))
    from dixit_ai.match import decide
    from dixit_ai.rules import apply_action

    rng = np.random.default_rng(0)
    while state.phase.value != "vote":
        seat = state.pending[0]
        action, _, _ = decide(agents[seat], observe(state, seat))
        state = apply_action(state, action, rng)
    for seat in state.pending:
        view = observe(state, seat)
        choice = agents[seat].vote(view)
        assert not set(choice.items) & set(view.my_positions)


def test_second_vote_only_when_it_pays():
    rules = RuleSet.edition("odyssey-2011")  # a second vote from 7 players, single-vote bonus 1
    guesser = ClipGuesser(belief_temperature=0.05)
    rng = np.random.default_rng(0)
    confident = np.asarray([0.9, 0.1, 0.1, 0.1, 0.1, 0.1])
    votes, info = guesser.vote(confident, range(6), rules=rules, max_votes=2, rng=rng)
    assert len(votes) == 1 and info["second_vote"].startswith("withheld")
    torn = np.asarray([0.5, 0.5, 0.1, 0.1, 0.1, 0.1])
    votes, info = guesser.vote(torn, range(6), rules=rules, max_votes=2, rng=rng)
    assert len(votes) == 2 and info["second_vote"].startswith("cast")


def test_decoy_picker_plays_most_similar_and_bluff_holds_back():
    sims = np.asarray([0.1, 0.9, 0.5, 0.3])
    assert DecoyPicker().pick(sims, 2)[0] == [1, 2]
    unseen = np.linspace(0.0, 0.5, 50)
    picks, info = DecoyPicker(bluff=1.0).pick(sims, 1, unseen)
    assert picks == [2] and "bluff_threshold" in info


def test_storyteller_records_prediction_and_runner_ups(resources):
    record = play_game([clip(resources, name=f"c{s}") for s in range(4)],
                       edition="refresh-2021", deck=list(resources.card_ids), seed=5,
                       max_rounds=2)
    first = record.rounds[0]
    notes = first.notes[str(first.storyteller)]["tell"]
    assert first.predicted_guess_rate is not None
    assert len(notes["runner_ups"]) == 3 and notes["mode"] == "target"


def test_deterministic_given_seed(resources):
    def game():
        return play_game([clip(resources, name=f"c{s}") for s in range(5)],
                         edition="refresh-2021", deck=list(resources.card_ids), seed=11,
                         max_rounds=3).to_json()

    assert game() == game()


def test_a_card_outside_the_agents_deck_is_a_clear_error(resources):
    with pytest.raises(ValueError, match=r"not in this player's deck"):
        resources.rows([10_000])


def test_yaml_agents_load_by_name(resources):
    for name, target, mode in (("clip-greedy", 0.5, "target"), ("clip-obvious", 0.9, "target"),
                               ("clip-cryptic", 0.1, "target"),
                               ("clip-expected-self", 0.5, "expected_points"),
                               ("clip-sharp", 0.5, "target")):
        spec = agent_spec(name)
        assert spec.entry_point == "models.players:ClipAgent" and spec.extra == "models"
        agent = make_agent(name, deck=resources, calibration=None)
        assert isinstance(agent, ClipAgent) and agent.name == name
        assert agent.storyteller.mode == mode
        if mode == "target":
            assert agent.storyteller.target_guess_rate == target
        assert agent.storyteller.sharp_voters == (name == "clip-sharp")


def test_load_agent_configs_from_a_folder(tmp_path, resources):
    (tmp_path / "mine.yaml").write_text(
        "name: test-clip-mine\nentry_point: models.players:ClipAgent\n"
        "kwargs: {target_guess_rate: 0.3, n_simulations: 4}\n")
    try:
        (spec,) = load_agent_configs(tmp_path)
        assert spec.kwargs["target_guess_rate"] == 0.3
        agent = make_agent("test-clip-mine", deck=resources, calibration=None)
        assert agent.storyteller.target_guess_rate == 0.3
    finally:
        _REGISTRY.pop("test-clip-mine", None)
    (tmp_path / "bad.yaml").write_text("name: x\n")
    with pytest.raises(ValueError, match=r"bad\.yaml"):
        load_agent_configs(tmp_path)


def test_listing_agents_imports_neither_models_nor_torch():
    code = ("import sys; from dixit_ai.agents import list_agents; "
            "names = [s.name for s in list_agents()]; "
            "assert {'clip-greedy', 'clip-expected', 'clip-obvious', 'clip-cryptic', 'random'} "
            "<= set(names), names; "
            "assert 'models' not in sys.modules and 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_extra_names_it(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_models(name, *args, **kwargs):
        if name == "models.players" or name.startswith("models.players."):
            raise ImportError("No module named 'torch'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_models)
    monkeypatch.delitem(sys.modules, "models.players", raising=False)
    with pytest.raises(ImportError, match=r"dixit-ai\[models\]"):
        make_agent("clip-greedy")


def test_shipped_vocabulary():
    vocabulary = load_vocabulary()
    assert len(vocabulary) >= 3000
    assert len(set(vocabulary.texts)) == len(vocabulary)
    assert all(0 < len(t) <= RuleSet.edition("refresh-2021").max_clue_length
               for t in vocabulary.texts)
    assert {"noun", "adjective", "mood", "place", "myth", "action", "title"} <= set(
        vocabulary.categories)
    small = vocabulary.limit(70)
    assert len(small) == 70 and len(set(small.categories)) == 7


def test_calibration_for_another_embedder_warns(resources, tmp_path):
    from models.players.guess_files import CalibrationMismatchWarning
    from models.players.simulation import GuessModel

    other = tmp_path / "other.json"
    GuessModel(0.02, 0.1).save(other, embedder="default-0123456789")
    agent = ClipAgent(deck=resources, calibration=str(other), **SMALL)
    with pytest.warns(CalibrationMismatchWarning, match="fitted for embedder default-0123"):
        agent.describe()
    assert agent.model == GuessModel(0.02, 0.1)  # still used, but not silently
    import warnings

    with warnings.catch_warnings(record=True) as again:  # said once: another agent (each game
        warnings.simplefilter("always")                  # makes one) does not repeat it
        ClipAgent(deck=resources, calibration=str(other), **SMALL).describe()
    assert not [w for w in again if issubclass(w.category, CalibrationMismatchWarning)]

    mine = tmp_path / "mine.json"
    GuessModel(0.02, 0.1).save(mine, embedder=resources.fingerprint)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationMismatchWarning)
        ClipAgent(deck=resources, calibration=str(mine), **SMALL).describe()


def test_shipped_calibration_names_the_default_embedder():
    from models.players.guess_files import DEFAULT_CALIBRATION
    from models.players.simulation import GuessModel

    fitted = GuessModel.fitted_for(DEFAULT_CALIBRATION)
    assert fitted is not None and fitted.startswith("default-")
    pytest.importorskip("torch")
    pytest.importorskip("timm")
    from models import load_embedder

    # Refit (scripts/fit_calibration.py --write-default) whenever the default head changes.
    assert load_embedder("default", device="cpu").fingerprint == fitted


def test_hand_inference_rules_out_cards_an_opponent_did_not_play(resources):
    """An opponent that played d for clue X held nothing more similar to X, unless drawn since."""
    import dataclasses

    from dixit_ai.rules import RoundResult

    agent = clip(resources)
    agent.reset(seat=0, rng=np.random.default_rng(0))
    cards = list(resources.card_ids)
    clue = resources.vocabulary.texts[0]
    order = [cards[i] for i in np.argsort(-resources.clue_similarities(clue, cards))]
    played = ((order[50],), (order[10],), (order[60],), (order[70],))  # seat 1 played order[10]
    agent._history[0] = RoundResult(
        round=0, storyteller=0, clue=clue, clue_kind=None, storyteller_card=order[50],
        played=played, board=tuple(p[0] for p in played), board_owner=(0, 1, 2, 3),
        votes=((), (0,), (0,), (0,)), points=(0,) * 4, scores=(0,) * 4, forfeits=(),
        reshuffled=False)
    agent._piles = {0: 50}
    view = observe(new_game(RuleSet.edition("refresh-2021"), 4, cards, np.random.default_rng(0)), 0)
    unseen = order[:10] + order[11:40]
    weights = agent.hand_weights(dataclasses.replace(view, round=1), unseen)
    assert weights is not None and weights.shape == (3, len(unseen))
    # Seat 1 (the first opponent) held none of the 10 cards above its decoy, but drew once
    # since (odds 1/6); seats 2 and 3 played cards below all of these, so held none of them.
    np.testing.assert_allclose(weights[0, :10], 1 / 6)
    np.testing.assert_allclose(weights[0, 10:], 1.0)
    np.testing.assert_allclose(weights[1:], 1 / 6)
    # Six draws later, anything may have been drawn: no information left.
    later = agent.hand_weights(dataclasses.replace(view, round=6), unseen)
    np.testing.assert_allclose(later, 1.0)
    # With these odds, simulated deals rarely give seat 1 those 10 cards.
    from models.players.simulation import draw_deals

    deals = draw_deals(np.random.default_rng(0), len(unseen), 4000, 3, 6, weights)
    held = np.isin(deals[:, 0], np.arange(10)).mean()
    assert held < 0.6 * np.isin(deals[:, 1], np.arange(10, 39)).mean()
    assert all(len(set(deal.ravel())) == deal.size for deal in deals[:50])
