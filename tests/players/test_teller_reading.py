"""Reading the storyteller: the guesser's posterior over a storyteller's mind, from its stories
and its votes, and the votes that follow it (models/players/teller_reading.py, ClipAgent's
``read_storytellers``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dixit_ai import play_game
from models.players import ClipAgent, GuessModel
from models.players.population_fit import PopulationFit
from models.players.table_reading import LAPSE_PRIOR, LAPSES
from models.players.teller_reading import (
    OWN_PRIOR,
    TEMPERATURE_SCALES,
    StorytellerBelief,
    StorytellerReader,
    log_prior,
    read_storyteller,
    story_log_likelihood,
)
from tests.players.test_panel import SMALL, related_spaces

MODEL = GuessModel(0.1, 0.0, 0.0)


def _stories(spaces, teller_space, n_rounds: int, seed: int = 0, voters=None
             ) -> list[SimpleNamespace]:
    """Revealed 5-player rounds told by seat 1 (the reader is seat 0): the told card is the
    board card most similar to the clue in space ``teller_space`` (``None``: a random card);
    seat ``s`` in ``voters`` votes by space ``voters[s]``."""
    rng = np.random.default_rng(seed)
    ids = list(spaces[0].card_ids)
    words = list(spaces[0].vocabulary.texts)
    rounds = []
    for t in range(n_rounds):
        board = [int(c) for c in rng.choice(ids, 5, replace=False)]
        clue = str(rng.choice(words))
        if teller_space is None:
            told = int(rng.integers(5))
        else:
            told = int(np.argmax(spaces[teller_space].clue_similarities(clue, board)))
        others = [s for s in range(5) if s != 1]
        rng.shuffle(others)
        owner = [0] * 5
        owner[told] = 1
        for position in (p for p in range(5) if p != told):
            owner[position] = others.pop()
        votes: list[tuple[int, ...]] = [()] * 5
        for seat, space in (voters or {}).items():
            legal = [i for i in range(5) if owner[i] != seat]
            sims = spaces[space].clue_similarities(clue, board)
            votes[seat] = (max(legal, key=lambda i: sims[i]),)
        played = tuple((board[owner.index(seat)],) for seat in range(5))
        rounds.append(SimpleNamespace(round=t, clue=clue, board=tuple(board),
                                      board_owner=tuple(owner), storyteller=1,
                                      votes=tuple(votes), played=played))
    return rounds


def test_with_no_story_read_the_belief_is_the_prior():
    spaces = related_spaces(3, seed=1)
    members = [(space, MODEL) for space in spaces]
    belief = read_storyteller([], storyteller=1, seat=0, members=members)
    np.testing.assert_allclose(belief.minds, [OWN_PRIOR, (1 - OWN_PRIOR) / 2,
                                              (1 - OWN_PRIOR) / 2])
    assert belief.lapse == pytest.approx(np.dot(LAPSES, LAPSE_PRIOR) / np.sum(LAPSE_PRIOR))
    assert belief.posterior.shape == (3, len(TEMPERATURE_SCALES), len(LAPSES))
    with pytest.raises(ValueError, match=r"own_prior must be in \(0, 1\]"):
        log_prior(3, 0.0)
    with pytest.raises(ValueError, match="1 with a single mind"):
        log_prior(1, 0.5)
    with pytest.raises(ValueError, match="is not among the positions read"):
        story_log_likelihood([np.zeros(5)], [MODEL], [0, 1, 2], 4)


def test_a_storyteller_of_another_mind_is_read_as_that_mind_and_found_more_often():
    spaces = related_spaces(3, noise=1.0, seed=2)
    members = [(space, MODEL) for space in spaces]
    rounds = _stories(spaces, 2, 40)
    learned = read_storyteller(rounds[:20], storyteller=1, seat=0, members=members)
    assert learned.stories == 20 and learned.unread == 0
    assert int(np.argmax(learned.minds)) == 2 and learned.minds[2] > 0.9
    assert learned.lapse < 0.1
    # On the next twenty boards, the reader votes as the storyteller's mind would mean; its own
    # mind alone finds the card less often.
    reader = StorytellerReader(members, ["own", "a", "b"])
    hits_reader = hits_own = 0
    for r in rounds[20:]:
        legal = [i for i in range(5) if r.board_owner[i] != 0]
        teller = r.board_owner.index(1)
        beliefs, note = reader.beliefs(rounds[:20], clue=r.clue, board=r.board, legal=legal,
                                       storyteller=1, seat=0)
        assert beliefs.sum() == pytest.approx(1.0) and note["minds"]["b"] > 0.9
        hits_reader += legal[int(np.argmax(beliefs))] == teller
        own = spaces[0].clue_similarities(r.clue, list(r.board))
        hits_own += max(legal, key=lambda i: own[i]) == teller
    assert hits_reader == 20 and hits_own < 16
    # Another seat's stories say nothing of seat 1.
    other = read_storyteller(rounds, storyteller=3, seat=0, members=members)
    np.testing.assert_allclose(other.posterior,
                               read_storyteller([], storyteller=3, seat=0,
                                                members=members).posterior)


def test_a_random_storyteller_reads_as_lapses_and_its_votes_tell_its_mind():
    spaces = related_spaces(3, noise=1.0, seed=4)
    members = [(space, MODEL) for space in spaces]
    random_teller = read_storyteller(_stories(spaces, None, 30, seed=1), storyteller=1, seat=0,
                                     members=members)
    assert random_teller.lapse > 0.6
    # Seat 3 never told, but voted as member 1 in every round: its votes are read.
    rounds = _stories(spaces, 0, 20, seed=2, voters={3: 1, 2: 2})
    voter = read_storyteller(rounds, storyteller=3, seat=0, members=members)
    assert voter.votes == 20 and voter.stories == 0 and voter.minds[1] > 0.9
    deaf = read_storyteller(rounds, storyteller=3, seat=0, members=members, votes=False)
    np.testing.assert_allclose(deaf.minds, [OWN_PRIOR, 0.25, 0.25])
    assert read_storyteller(rounds, storyteller=2, seat=0, members=members).minds[2] > 0.9


def test_a_players_decoys_tell_its_mind():
    spaces = related_spaces(3, noise=1.0, seed=7)
    members = [(space, MODEL) for space in spaces]
    rng = np.random.default_rng(3)
    ids = list(spaces[0].card_ids)
    rounds = _stories(spaces, 0, 30, seed=5)
    for r in rounds:  # seat 2 plays the best of a random hand of six by member 1's similarity
        hand = [int(c) for c in rng.choice(ids, 6, replace=False)]
        sims = spaces[1].clue_similarities(r.clue, hand)
        r.played = tuple((hand[int(np.argmax(sims))],) if seat == 2 else () for seat in range(5))
    read = read_storyteller(rounds, storyteller=2, seat=0, members=members, votes=False,
                            decoys=6)
    assert read.minds[1] > 0.9 and read.decoys == 30 and read.votes == 0
    unread = read_storyteller(rounds, storyteller=2, seat=0, members=members, votes=False)
    np.testing.assert_allclose(unread.minds, [OWN_PRIOR, 0.25, 0.25])
    # A card played at random reads as lapses: no member is favoured much.
    for r in rounds:
        r.played = tuple((int(rng.choice(ids)),) if seat == 2 else () for seat in range(5))
    shuffled = read_storyteller(rounds, storyteller=2, seat=0, members=members, votes=False,
                                decoys=6)
    assert shuffled.minds.max() < 0.9


def test_clues_a_mind_cannot_read_are_counted_or_left_out_and_named():
    spaces = related_spaces(2, seed=3)
    members = [(space, MODEL) for space in spaces]
    rounds = _stories(spaces, 1, 3)
    # Its own text: the embedding below puts it in the session's embedding cache, where another
    # test's "clue nobody embedded" must not find it.
    clue = "a clue no mind of the storyteller reader embedded"
    rounds[1].clue = clue
    belief = read_storyteller(rounds, storyteller=1, seat=0, members=members)
    assert belief.stories == 2 and belief.unread == 1
    assert not spaces[1].knows(clue)
    sims = [np.linspace(0, 1, 5), None]
    beliefs = belief.beliefs(sims, [MODEL, MODEL], [0, 1, 2, 4])
    assert int(np.argmax(beliefs)) == 3 and beliefs.shape == (4,)
    with pytest.raises(ValueError, match="no member of the guesser's population knows"):
        belief.beliefs([None, None], [MODEL, MODEL], [0, 1])
    with pytest.raises(ValueError, match="2 members' similarities for 1 members"):
        belief.beliefs(sims, [MODEL], [0, 1])
    assert StorytellerBelief.of(np.zeros((2, 4, 4))).minds.sum() == pytest.approx(1.0)
    # A reader that embeds (a person's free text) reads the round with every mind's own tower.
    embedding = read_storyteller(rounds, storyteller=1, seat=0, members=members, embed=True)
    assert embedding.stories == 3 and embedding.unread == 0
    assert spaces[1].knows(clue)


def _fit(tmp_path, spaces):
    path = tmp_path / "population.json"
    PopulationFit({s.fingerprint: {"name": s.fingerprint, "temperature": 0.1, "bias": 0.0,
                                   "votes": 10} for s in spaces}, {"seed": 0}).save(path)
    return path


def test_a_reading_clip_agent_plays_a_game_and_says_whom_it_read(tmp_path):
    spaces = related_spaces(3, noise=1.0, seed=6)
    fit = _fit(tmp_path, spaces)
    ids = list(spaces[0].card_ids)
    with pytest.raises(ValueError, match="cannot sample"):
        ClipAgent(deck=spaces[0], read_storytellers=True, reading_minds=spaces[1:],
                  vote_temperature=0.5, **SMALL)
    with pytest.raises(ValueError, match="needs minds besides its own"):
        ClipAgent(deck=spaces[0], read_storytellers=True, **SMALL)
    listener = ClipAgent(name="listener", deck=spaces[0], read_storytellers=True,
                         reading_minds=spaces[1:], reading_calibration=str(fit), **SMALL)
    others = [ClipAgent(name=f"p{k}", deck=spaces[2], **SMALL) for k in range(4)]
    record = play_game([listener, *others], edition="refresh-2021", deck=ids, seed=3)
    assert record.status == "complete"
    notes = [r for r in record.to_dict()["rounds"] if r["storyteller"] != 0]
    reading = [r["notes"]["0"]["vote"]["reading"] for r in notes]
    assert reading and all(set(n) >= {"stories_read", "votes_read", "minds"} for n in reading)
    assert max(n["votes_read"] + n["stories_read"] for n in reading) > 0
    described = listener.describe()
    assert described["read_storytellers"] is True and len(described["reading_minds"]) == 3
    # A mind the population fit does not hold is refused, and says which fit holds what.
    stranger = related_spaces(4, seed=9)[3]
    lost = ClipAgent(deck=spaces[0], read_storytellers=True, reading_minds=[stranger],
                     reading_calibration=str(fit), **SMALL)
    with pytest.raises(ValueError, match="has no guess model in the population fit"):
        _ = lost.storyteller_reader
    named = ClipAgent(deck=spaces[0], read_storytellers=True, reading_minds="lite1-minilm",
                      reading_calibration=str(fit), **SMALL)
    with pytest.raises(ValueError, match="needs its own vectors of the cards"):
        _ = named.storyteller_reader
    truth = ClipAgent(deck=spaces[0], read_storytellers=True, reading_minds="caption-reader",
                      reading_calibration=str(fit), **SMALL)
    with pytest.raises(ValueError, match="a guesser may not read storytellers with it"):
        _ = truth.storyteller_reader


def test_in_team_dixit_the_listener_votes_as_the_plain_guesser_and_says_so(tmp_path):
    spaces = related_spaces(3, noise=1.0, seed=8)
    fit = _fit(tmp_path, spaces)
    ids = list(spaces[0].card_ids)
    listener = ClipAgent(name="listener", deck=spaces[0], read_storytellers=True,
                         reading_minds=spaces[1:], reading_calibration=str(fit), **SMALL)
    plain = ClipAgent(name="plain", deck=spaces[0], **SMALL)
    others = [ClipAgent(name=f"p{k}", deck=spaces[k % 3], **SMALL) for k in range(5)]
    games = [play_game([agent, *others], edition="odyssey-2011", deck=ids, seed=2, teams=True)
             for agent in (listener, plain)]
    assert all(g.status == "complete" for g in games)
    notes = [r["notes"].get("0", {}).get("vote") for r in games[0].to_dict()["rounds"]]
    read = [n["reading"] for n in notes if n]
    assert read and all(n.startswith("not read") for n in read)
    # The same votes as the plain guesser: reading is off, nothing else changed.
    assert [r.votes for r in games[0].rounds] == [r.votes for r in games[1].rounds]
