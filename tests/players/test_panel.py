"""The guesser panel, the population storyteller, cross-play and human calibration, baselines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.rules import RuleSet, observe
from models.bench.panel import PanelTable
from models.bench.tables import round_start
from models.players import ClipAgent, GuessModel
from models.players.calibration import (
    fit_guess_model,
    fit_population,
    human_voters,
    log_likelihood,
    other_model_voters,
    vote_observations,
)
from models.players.population import (
    assignment,
    member_rows,
    one_kind_deals,
    simulate_population,
)
from models.players.population_fit import PopulationFit
from models.players.resources import PlayerResources, from_vectors
from models.players.simulation import draw_deals, simulate
from tests.players.conftest import HashEmbedder

SMALL = {"vocabulary": None, "n_simulations": 32, "pair_clues": 0, "calibration": None}


def related_spaces(n_spaces: int, *, noise: float = 0.6, seed: int = 0, n_cards: int = 84,
                   n_clues: int = 120, dim: int = 16) -> list[PlayerResources]:
    """Embedding spaces of one deck and vocabulary: shared card anchors, each its own noise
    (different minds that agree on what the cards are about, each with its own quirks)."""
    embedder = HashEmbedder(dim)
    rng = np.random.default_rng(seed)
    words = [f"word{i}" for i in range(n_clues)]
    texts = dict(zip(words, embedder.embed_texts(words), strict=True))
    table = np.stack(list(texts.values()))
    anchors = table[rng.integers(0, n_clues, n_cards)] + table[rng.integers(0, n_clues, n_cards)]
    return [from_vectors(anchors + noise * rng.standard_normal((n_cards, dim)).astype(np.float32),
                         texts, embedder=embedder, fingerprint=f"space-{k}")
            for k in range(n_spaces)]


def test_population_of_one_is_the_independent_simulation():
    rng = np.random.default_rng(0)
    hand, pool = (rng.normal(0.2, 0.05, (6, 40)).astype(np.float32),
                  rng.normal(0.2, 0.05, (30, 40)).astype(np.float32))
    deals = draw_deals(rng, 30, 32, 4, 6)
    points = np.array([0.0, 3, 3, 3, 0])
    model = GuessModel(0.03, 0.4, 0.0)
    one = simulate(hand, pool, deals, n_voters=4, cards_per_guesser=1, model=model,
                   points_by_finders=points)
    for copies in (1, 2):
        many = simulate_population([hand] * copies, [pool] * copies, deals, n_voters=4,
                                   cards_per_guesser=1, models=[model] * copies,
                                   points_by_finders=points)
        for field in ("guess_rate", "expected_points", "success_rate"):
            np.testing.assert_allclose(getattr(many, field), getattr(one, field), atol=1e-5)


@pytest.mark.parametrize("rho", [1.0, 0.5])
def test_voters_of_one_member_read_the_board_as_one_as_in_the_self_simulation(rho):
    """Copies of one bot (a member whose guess model has correlation > 0) find a clue together
    or not at all: a population of that one member is the self simulation, shared votes and
    all, and not a sum of independent voters."""
    rng = np.random.default_rng(2)
    hand, pool = (rng.normal(0.2, 0.05, (6, 40)).astype(np.float32),
                  rng.normal(0.2, 0.05, (30, 40)).astype(np.float32))
    deals = draw_deals(rng, 30, 32, 4, 6)
    points = np.array([0.0, 3, 3, 3, 0])
    model = GuessModel(0.02, 0.3, rho)
    one = simulate(hand, pool, deals, n_voters=4, cards_per_guesser=1, model=model,
                   points_by_finders=points)
    alone = simulate_population([hand], [pool], deals, n_voters=4, cards_per_guesser=1,
                                models=[model], points_by_finders=points)
    for field in ("guess_rate", "expected_points", "success_rate"):
        np.testing.assert_allclose(getattr(alone, field), getattr(one, field), atol=1e-4)
    independent = simulate(hand, pool, deals, n_voters=4, cards_per_guesser=1,
                           model=GuessModel(0.02, 0.3, 0.0), points_by_finders=points)
    assert np.abs(alone.success_rate - independent.success_rate).max() > 0.05


def test_population_members_read_their_own_space():
    rng = np.random.default_rng(1)
    pool = rng.normal(0.0, 0.1, (30, 5)).astype(np.float32)
    sure = np.full((2, 5), 0.9, dtype=np.float32)     # the card beats every decoy
    never = np.full((2, 5), -0.9, dtype=np.float32)   # every decoy beats it
    deals = draw_deals(rng, 30, 16, 4, 6)
    result = simulate_population([sure, never], [pool, pool], deals, n_voters=4,
                                 cards_per_guesser=1, models=[GuessModel(0.01, 0, 0)] * 2,
                                 points_by_finders=np.array([0.0, 3, 3, 3, 0]))
    assert result.member_rate is not None
    np.testing.assert_allclose(result.member_rate[0], 1.0, atol=1e-3)
    np.testing.assert_allclose(result.member_rate[1], 0.0, atol=1e-3)
    np.testing.assert_allclose(result.guess_rate, 0.5, atol=1e-3)
    np.testing.assert_allclose(result.success_rate, 1.0, atol=1e-3)  # two find, two do not
    with pytest.raises(ValueError, match="one of each per member"):
        simulate_population([sure], [pool, pool], deals, n_voters=4, cards_per_guesser=1,
                            models=[GuessModel()] * 2, points_by_finders=np.zeros(5))


def test_tables_of_one_kind_of_mind_find_together_or_not_at_all():
    rng = np.random.default_rng(1)
    pool = rng.normal(0.0, 0.1, (30, 5)).astype(np.float32)
    sure = np.full((2, 5), 0.9, dtype=np.float32)
    never = np.full((2, 5), -0.9, dtype=np.float32)
    deals = draw_deals(rng, 30, 16, 4, 6)
    points = np.array([0.0, 3, 3, 3, 0])
    for mix, success in ((0.0, 1.0), (0.5, 0.5), (1.0, 0.0)):
        result = simulate_population([sure, never], [pool, pool], deals, n_voters=4,
                                     cards_per_guesser=1, models=[GuessModel(0.01, 0, 0)] * 2,
                                     points_by_finders=points, table_mix=mix)
        # Members stay balanced, so the guess rate is the same; only the outcomes change.
        np.testing.assert_allclose(result.guess_rate, 0.5, atol=1e-3)
        np.testing.assert_allclose(result.success_rate, success, atol=1e-3)
        np.testing.assert_allclose(result.expected_points, 3 * success, atol=1e-2)
    table = assignment(16, 4, 3, table_mix=0.5)
    assert all(len(set(row)) == 1 for row in table[:8])        # one member per table
    assert all(len(set(row)) == 3 for row in table[8:])        # every member at the table
    assert np.bincount(table[:8, 0], minlength=3).tolist() == [3, 3, 2]
    with pytest.raises(ValueError, match=r"table_mix must be in \[0, 1\]"):
        assignment(16, 4, 3, table_mix=1.5)


@pytest.mark.parametrize(("n_sims", "n_opponents", "n_members", "mix"),
                         [(16, 4, 3, 0.0), (16, 4, 3, 0.5), (64, 4, 4, 0.5), (7, 3, 2, 0.3),
                          (9, 4, 4, 1.0)])
def test_member_rows_are_the_assignment_as_strided_slices(n_sims, n_opponents, n_members, mix):
    table = assignment(n_sims, n_opponents, n_members, table_mix=mix)
    same = one_kind_deals(n_sims, mix)
    for g in range(n_opponents):
        for p in range(n_members):
            parts = member_rows(n_sims, n_members, same, g, p)
            assert all(isinstance(part, slice) for part in parts)
            rows = sorted(r for part in parts for r in range(*part.indices(n_sims)))
            assert rows == np.flatnonzero(table[:, g] == p).tolist()


def test_population_refuses_ground_truth_readers():
    with pytest.raises(ValueError, match="ground truth"):
        ClipAgent(population="self,caption-reader")
    with pytest.raises(ValueError, match="twice"):
        ClipAgent(population="self,self")


def _tell_items(ids: list[int], n: int, seed: int) -> list[tuple[list[tuple[int, ...]], list]]:
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(n):
        pick = rng.choice(len(ids), 30, replace=False)
        hands = [tuple(ids[j] for j in pick[h * 6:(h + 1) * 6]) for h in range(5)]
        pool = [c for c in ids if c not in hands[0]]
        deals = []
        for _ in range(4):
            drawn = rng.choice(pool, 24, replace=False)
            deals.append(tuple(tuple(int(x) for x in drawn[h * 6:(h + 1) * 6])
                               for h in range(4)))
        items.append((hands, deals))
    return items


def crossplay_fit(population: list[PlayerResources], path: Path) -> tuple[PopulationFit, dict]:
    """Four cross-play games among the population's minds (never a panel's) fit its members'
    guess models, saved at ``path``."""
    ids = list(population[0].card_ids)
    players = [ClipAgent(name=f"p{k}", deck=population[k % len(population)], **SMALL)
               for k in range(5)]
    records = [play_game(players[g:] + players[:g], edition="refresh-2021", deck=ids, seed=g)
               for g in range(4)]
    fit, notes = fit_population(records, [(f"p{k}", r) for k, r in enumerate(population)])
    fit.save(path)
    return fit, notes


def points_at(table: PanelTable, agents: list[ClipAgent], ids: list[int], *,
              seed: int) -> dict[str, list[float]]:
    """Each storyteller's points per turn on 60 tell items played against ``table``."""
    rules = RuleSet.edition("refresh-2021")
    points: dict[str, list[float]] = {agent.name: [] for agent in agents}
    for i, (hands, deals) in enumerate(_tell_items(ids, 60, seed=seed)):
        state = round_start(rules, hands, ids)
        for agent in agents:
            agent.reset(seat=0, rng=np.random.default_rng(i))
            story = agent.tell(observe(state, 0))
            points[agent.name].append(table.story_outcome(story.clue, story.card, deals,
                                                          i)["points"])
    return points


def test_self_tuned_storyteller_scores_worse_against_the_panel_than_the_population(tmp_path):
    spaces = related_spaces(7, seed=0)
    own, population, panel = spaces[0], spaces[:3], spaces[3:]
    ids = list(own.card_ids)
    path = tmp_path / "population.json"
    fit, notes = crossplay_fit(population, path)
    assert set(fit.members) == {r.fingerprint for r in population} and not notes["unfitted"]
    assert PopulationFit.load(path).members == fit.members

    table = PanelTable([(f"m{k}", r) for k, r in enumerate(panel)], None, seed=0)
    common = {"deck": own, "mode": "expected_points", **SMALL}
    selfish = ClipAgent(name="self", **common)
    crowd = ClipAgent(name="population", population=population,
                      population_calibration=str(path), **common)
    assert table.check_held_out("population", crowd.describe()) == ["m0", "m1", "m2", "m3"]
    points = points_at(table, [selfish, crowd], ids, seed=1)
    assert np.mean(points["population"]) > np.mean(points["self"])


def test_a_copy_in_the_population_keeps_points_at_a_table_of_copies(tmp_path):
    """Fitted to other minds only, a population storyteller tells clues that copies of itself
    all find; with a copy of itself among its minds (its own calibration) and tables of one
    kind, it scores more there."""
    spaces = related_spaces(3, seed=0)
    own, population = spaces[0], spaces
    ids = list(own.card_ids)
    path = tmp_path / "population.json"
    crossplay_fit(population, path)
    common = {"deck": own, "mode": "expected_points", "population_calibration": str(path),
              "robustness": 0.5, **SMALL}
    others = ClipAgent(name="others", population=population, **common)
    both = ClipAgent(name="both", population=["copy", *population], table_mix=0.5, **common)
    (member, model), *_ = both.population_members
    assert member is both.resources and model == both.model   # a copy: its own calibration
    assert both.simulation_embedders() == [r.fingerprint for r in population]
    copies = PanelTable([(f"copy{k}", own) for k in range(4)], None, seed=0)
    points = points_at(copies, [others, both], ids, seed=3)
    assert np.mean(points["both"]) > np.mean(points["others"])


def test_panel_refuses_a_storyteller_that_simulates_a_member():
    spaces = related_spaces(3, seed=2)
    table = PanelTable([("a", spaces[1]), ("b", spaces[2])], None)
    crowd = ClipAgent(deck=spaces[0], population=[spaces[0], spaces[1]], **SMALL)
    with pytest.raises(ValueError, match="simulates with the model of panel member"):
        table.check_held_out("crowd", crowd.describe())
    alone = ClipAgent(deck=spaces[0], **SMALL)
    assert table.check_held_out("alone", alone.describe()) == ["a", "b"]


def test_story_outcome_counts_votes_and_points():
    spaces = related_spaces(4, seed=3)
    table = PanelTable([(f"m{k}", r) for k, r in enumerate(spaces)], None, seed=0)
    ids = list(spaces[0].card_ids)
    (hands, deals), = _tell_items(ids, 1, seed=4)
    out = table.story_outcome("word3", hands[0][0], deals, 0)
    assert sum(out["seen"].values()) == 4 * len(deals)
    assert sum(out["random_seen"].values()) == 3 * len(deals)
    for found, finders, points in ((out["found"], out["finders"], out["points"]),):
        assert sum(found.values()) == sum(finders)
        expected = np.mean([3.0 if 0 < f < 4 else 0.0 for f in finders])
        assert points == pytest.approx(expected)
    assert 0.0 <= out["random_success"] <= 1.0


def test_found_rates_of_every_candidate_match_the_played_story():
    spaces = related_spaces(5, seed=3)
    table = PanelTable([(f"m{k}", r) for k, r in enumerate(spaces)], None, seed=0)
    ids = list(spaces[0].card_ids)
    texts = spaces[0].vocabulary.texts
    for i, (hands, deals) in enumerate(_tell_items(ids, 2, seed=4)):
        rates = table.found_rates(hands[0], deals, i)
        assert set(rates) == set(table.names)
        for card in range(len(hands[0])):
            for clue in range(0, len(texts), 9):
                out = table.story_outcome(texts[clue], hands[0][card], deals, i)
                for name in table.names:
                    assert rates[name][card, clue] == pytest.approx(
                        out["found"][name] / out["seen"][name])


PEOPLE = (1, 2)


def games_with_people(space: PlayerResources, n_games: int, change_round: Any) -> list[Any]:
    """``n_games`` refresh-2021 games of five bots on ``space``, each round changed by
    ``change_round(round)`` and the seats :data:`PEOPLE` marked as people (as web tables
    record them)."""
    players = [ClipAgent(name=f"bot{k}", deck=space, **SMALL) for k in range(5)]
    records = []
    for seed in range(n_games):
        record = play_game(players, edition="refresh-2021", deck=list(space.card_ids), seed=seed)
        for rnd in record.rounds:
            change_round(rnd)
        for seat in PEOPLE:
            record.header["agents"][seat] = {"name": "human", "player": f"person {seat}"}
        records.append(record)
    return records


def test_human_calibration_recovers_a_different_model(tmp_path):
    """Synthetic "people": their votes come from another space with a known softmax; fitting
    to them beats the guess model fitted to the bots' own votes, on held-out games."""
    spaces = related_spaces(2, seed=5, noise=0.4)
    mine, theirs = spaces
    rng = np.random.default_rng(6)
    truth = GuessModel(0.05, 1.0)

    def people_vote(rnd: Any) -> None:
        """The people's votes drawn from ``theirs`` at temperature 0.05 with a bias of +1
        towards the storyteller's card."""
        target = rnd.board.index(rnd.storyteller_card)
        sims = theirs.clue_similarities(rnd.clue, list(rnd.board))
        for seat in PEOPLE:
            if seat == rnd.storyteller or seat not in rnd.votes:
                continue
            legal = [i for i, o in enumerate(rnd.board_owner) if o != seat]
            p = truth.vote_probabilities(sims[legal], legal.index(target)
                                         if target in legal else None)
            rnd.votes[seat] = [legal[int(rng.choice(len(legal), p=p))]]

    records = games_with_people(mine, 6, people_vote)
    fit, held = records[0::2], records[1::2]
    people = vote_observations(fit, mine.cards, mine.texts, human_voters)
    bots = vote_observations(fit, mine.cards, mine.texts,
                             lambda record, seat: not human_voters(record, seat))
    assert people and bots
    to_people = fit_guess_model(people)
    to_bots = fit_guess_model(bots)
    test = vote_observations(held, mine.cards, mine.texts, human_voters)
    assert (log_likelihood(test, to_people.temperature, to_people.bias)
            > log_likelihood(test, to_bots.temperature, to_bots.bias))
    # A storyteller configured with the people's fit predicts with it.
    path = tmp_path / "people.json"
    to_people.save(path, embedder=mine.fingerprint, voters="human")
    agent = ClipAgent(deck=mine, **{**SMALL, "calibration": str(path)})
    assert agent.model.temperature == pytest.approx(to_people.temperature)
    assert agent.model.bias == pytest.approx(to_people.bias)


def test_beliefs_fitted_to_the_stories_people_told(tmp_path):
    """Synthetic "people" at seats 1 and 2 tell stories whose card lies among the board as
    softmax(similarity / 0.03) says (plainer stories than the bots'); fitted on the rounds they
    told (``human_tellers``), the belief temperature finds them, and the bots' rounds do not."""
    from models.players.calibration import as_found, fit_belief_temperature, human_tellers

    space = related_spaces(1, seed=8)[0]
    rng = np.random.default_rng(9)

    def people_tell(rnd: Any) -> None:
        if rnd.storyteller not in PEOPLE:
            return
        sims = space.clue_similarities(rnd.clue, list(rnd.board))
        weights = np.exp((sims - sims.max()) / 0.03)
        new = int(rng.choice(len(sims), p=weights / weights.sum()))
        old = rnd.board.index(rnd.storyteller_card)
        owners = list(rnd.board_owner)
        # The seat whose card was drawn swaps with the storyteller; its vote goes, since its own
        # card moved: every vote kept sees the draw as a softmax over its legal cards.
        if owners[new] != rnd.storyteller:
            rnd.votes.pop(owners[new], None)
        owners[old], owners[new] = owners[new], owners[old]
        rnd.board_owner = owners
        rnd.storyteller_card = rnd.board[new]

    records = games_with_people(space, 24, people_tell)  # some 70 rounds people told
    people = vote_observations(records, space.cards, space.texts, rounds=human_tellers)
    bots = vote_observations(records, space.cards, space.texts,
                             rounds=lambda r, rnd, seat: not human_tellers(r, rnd, seat))
    assert len(people) > 300 and len(bots) > 300
    to_people = fit_belief_temperature(people)
    to_bots = fit_belief_temperature(bots)
    assert 0.018 < to_people < 0.045, to_people
    assert to_bots > 2 * to_people, (to_bots, to_people)
    assert (log_likelihood(as_found(people), to_people, 0.0)
            > log_likelihood(as_found(people), to_bots, 0.0))


def test_other_model_voters_skip_the_members_own_seats():
    spaces = related_spaces(2, seed=7)
    ids = list(spaces[0].card_ids)
    players = [ClipAgent(name=f"p{k}", deck=spaces[k % 2], **SMALL) for k in range(4)]
    record = play_game(players, edition="refresh-2021", deck=ids, seed=0)
    keep = other_model_voters("space-0")
    assert not keep(record, 0) and keep(record, 1)


def test_the_wide_storyteller_simulates_a_classifier_and_no_held_out_panel_member():
    from dixit_ai.agents import agent_spec, make_agent
    from models.players.panel import resolve_panel
    from models.players.panel_models import resolve_embedder
    from models.players.population_fit import load_population_fit

    spec = agent_spec("clip-expected-wide")
    assert "lite1-zeroshot" in spec.kwargs["population"].split(",")
    fit = load_population_fit(spec.kwargs["population_calibration"])
    assert fit is not None
    fitted = {m["name"]: m["temperature"] for m in fit.members.values()}
    assert set(fitted) == {"default", "lite1-minilm", "lite1-mpnet", "lite1-zeroshot"}
    assert all(t > 0 for t in fitted.values())
    simulated = set(make_agent("clip-expected-wide").describe()["simulation_embedders"])
    held_out = {resolve_embedder(m.embedder).fingerprint for m in resolve_panel("panel-heldout")}
    assert len(simulated) == 4 and not simulated & held_out
    with pytest.raises(FileNotFoundError):
        load_population_fit("no-such-fit.json")


def test_aiming_at_each_member_prefers_the_clue_every_mind_finds_at_the_target():
    from models.players.population import PopulationResult
    from models.players.storyteller import ClipStoryteller

    # One hand card, three clues. Clue 0: both members at 0.5. Clue 1: the mean at 0.5 from
    # members at 0.2 and 0.8 (and more expected points). Clue 2: members at 0.4 and 0.45.
    members = np.array([[[0.5, 0.2, 0.4]], [[0.5, 0.8, 0.45]]])
    result = PopulationResult(guess_rate=members.mean(axis=0),
                              expected_points=np.array([[1.0, 2.0, 1.5]]),
                              success_rate=np.zeros((1, 3)), decoy_gap=np.zeros((1, 3)),
                              member_rate=members, member_deals=np.array([32, 32]))
    allowed = np.ones((1, 3), dtype=bool)
    for aim, first in (("mean", 1), ("each", 0)):
        story = ClipStoryteller(mode="target", target_guess_rate=0.5, aim=aim)
        order = story._order(result.guess_rate, result.expected_points, allowed, None, 3.0,
                             story._member_gap(result))
        assert int(order[0]) == first, aim
    each = ClipStoryteller(mode="target", target_guess_rate=0.5, aim="each")
    np.testing.assert_allclose(each._member_gap(result), [[0.0, 0.3, 0.1]])
    # A member in no deal does not count; expected-points mode has no per-member aim.
    absent = PopulationResult(**{**result.__dict__, "member_deals": np.array([0, 32])})
    np.testing.assert_allclose(each._member_gap(absent), [[0.0, 0.3, 0.05]])
    assert ClipStoryteller(mode="expected_points", aim="each")._member_gap(result) is None
    with pytest.raises(ValueError, match="aim must be one of mean, each, rms, not 'every'"):
        ClipStoryteller(aim="every")
    with pytest.raises(ValueError, match=r"tolerance must be at least 0, not -0\.01"):
        ClipStoryteller(tolerance=-0.01)
    with pytest.raises(ValueError, match="per-member aim is one of each, rms, not 'mean'"):
        result.member_gap(0.5, "mean")


def test_the_root_mean_square_aim_lets_no_single_mind_decide_alone():
    from models.players.population import PopulationResult
    from models.players.storyteller import ClipStoryteller

    # Target 0.75, three members, three clues. Clue 0: two members at 0.75, the third (a mind
    # no clue reaches 0.75 for) at 0.45. Clue 1: every member near 0.5, the best the third can
    # do beside the others. Clue 2: the mean at 0.75 from members at 1.0, 1.0 and 0.25.
    members = np.array([[[0.75, 0.55, 1.0]], [[0.75, 0.55, 1.0]], [[0.45, 0.5, 0.25]]])
    result = PopulationResult(guess_rate=members.mean(axis=0),
                              expected_points=np.zeros((1, 3)), success_rate=np.zeros((1, 3)),
                              decoy_gap=np.zeros((1, 3)), member_rate=members,
                              member_deals=np.array([32, 32, 32]))
    np.testing.assert_allclose(result.member_gap(0.75, "each"), [[0.3, 0.25, 0.5]])
    np.testing.assert_allclose(result.member_gap(0.75, "rms"),
                               [[np.sqrt(0.09 / 3), np.sqrt(0.1425 / 3), np.sqrt(0.375 / 3)]])
    allowed = np.ones((1, 3), dtype=bool)
    for aim, first in (("mean", 2), ("each", 1), ("rms", 0)):
        story = ClipStoryteller(mode="target", target_guess_rate=0.75, aim=aim, tolerance=0.0)
        order = story._order(result.guess_rate, result.expected_points, allowed, None, 3.0,
                             story._member_gap(result))
        assert int(order[0]) == first, aim


def test_the_temperature_scale_sharpens_every_fitted_member_but_the_copy(tmp_path):
    spaces = related_spaces(3, seed=0)
    own, population = spaces[0], spaces
    path = tmp_path / "population.json"
    fit, _ = crossplay_fit(population, path)
    common = {"deck": own, "population": ["copy", *population],
              "population_calibration": str(path), **SMALL}
    plain = ClipAgent(name="plain", **common)
    sharp = ClipAgent(name="sharp", population_temperature_scale=0.5, **common)
    (copy, copy_model), *members = sharp.population_members
    assert copy is sharp.resources and copy_model == sharp.model   # the copy is not scaled
    for (resources, model), (_, fitted) in zip(members, plain.population_members[1:],
                                               strict=True):
        assert fitted == fit.model_for(resources.fingerprint, GuessModel())
        assert model.temperature == pytest.approx(0.5 * fitted.temperature)
        assert (model.bias, model.correlation) == (fitted.bias, fitted.correlation)
    assert sharp.describe()["population_temperature_scale"] == 0.5
    for bad in (0, -1.0, float("nan"), float("inf"), "0.5", True):
        with pytest.raises(ValueError, match="population_temperature_scale must be a positive"):
            ClipAgent(deck=own, population_temperature_scale=bad, **SMALL)


def test_the_benchs_panel_loads_no_vocabulary_until_a_study_asks_for_every_clue(monkeypatch):
    """A panel guesser at the bench only plays decoys and votes for the clues it is told: its
    resources hold no vocabulary (an mpnet member would otherwise embed 3,500 clues one at a
    time on a cold cache) and its decisions are the same; found_rates loads the vocabulary."""
    from models.players.panel import PanelMember

    spaces = related_spaces(2, seed=4)
    names = ["panel-sibling", "panel-default-zeroshot"]
    first_clue = {space.vocabulary.texts[0]: space.vocabulary_vectors[0] for space in spaces}
    asked: list[tuple[str, bool]] = []

    def resources(self, deck, *, vocabulary=True):
        asked.append((self.name, vocabulary))
        space = spaces[names.index(self.name)]
        if vocabulary:
            return space
        return from_vectors(dict(zip(space.card_ids, space.card_vectors, strict=True)),
                            first_clue, embedder=space.embedder, fingerprint=space.fingerprint)

    monkeypatch.setattr(PanelMember, "resources", resources)
    table = PanelTable(",".join(names), None, seed=3)
    assert asked == [(name, False) for name in names]
    assert all(len(r.vocabulary) == 1 for r in table.resources)
    whole = PanelTable([(n, s) for n, s in zip(names, spaces, strict=True)], None, seed=3)
    rng = np.random.default_rng(0)
    deals = [[list(map(int, rng.choice(84, 6, replace=False))) for _ in range(4)]
             for _ in range(3)]
    for item, clue in enumerate(["word3", "word40", "word77", "not a vocabulary clue"]):
        card = 80 + item
        assert (table.story_outcome(clue, card, deals, item)
                == whole.story_outcome(clue, card, deals, item))
    hand = list(range(6))
    rates = table.found_rates(hand, deals, 1)
    assert asked[2:] == [(name, True) for name in names]
    expected = whole.found_rates(hand, deals, 1)
    assert all(np.array_equal(rates[n], expected[n]) for n in expected)
