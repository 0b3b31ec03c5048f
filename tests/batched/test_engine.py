"""The batched engine: the scalar engine's draws, replayable records, legality, refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dixit_ai.batched import CLUE_WORDS, BatchedRandomAgent, play_batch, play_rounds, to_records
from dixit_ai.match import game_seeds
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.rules import EDITIONS, IllegalAction, Phase, RuleSet, new_game
from dixit_ai.rules.batched import BatchedGames
from dixit_ai.rules.batched_random import DrawSchedule, draw_games

CONFIGS = [(edition, n) for edition in EDITIONS
           for n in range(RuleSet.edition(edition).min_players,
                          RuleSet.edition(edition).max_players + 1)]


@pytest.mark.parametrize("first", ["seat0", "random"])
@pytest.mark.parametrize(("edition", "n"), [("refresh-2021", 5), ("refresh-2021", 3),
                                            ("odyssey-2024", 12), ("original-2008", 4)])
def test_draws_are_numpys_own(edition: str, n: int, first: str) -> None:
    rules = RuleSet.edition(edition, first_storyteller=first)
    schedule = DrawSchedule.build(rules, n, 84, rounds=25)
    seeds = [0, 1, 2**63 - 1, *game_seeds(5, 60)]  # enough for the array path
    draws = draw_games(schedule, seeds)
    for g, seed in enumerate(seeds):
        generator = np.random.default_rng(np.random.SeedSequence(seed).spawn(n + 1)[0])
        assert (generator.permutation(84) == draws.deal[g]).all()
        if first == "random":
            assert int(generator.integers(n)) == draws.first_storyteller[g]
        shuffles = 0
        for round_ in range(schedule.rounds):
            assert (generator.permutation(schedule.board_size) == draws.boards[g, round_]).all()
            if schedule.reshuffle_round[round_]:
                assert (generator.permutation(schedule.reshuffle_size)
                        == draws.reshuffles[g, shuffles]).all()
                shuffles += 1


def _replay_all(records: list[GameRecord]) -> None:
    for record in records:
        replay_record(record)


@pytest.mark.parametrize(("edition", "n"), CONFIGS)
def test_every_game_replays_through_the_scalar_engine(edition: str, n: int) -> None:
    rules = RuleSet.edition(edition)
    games = play_batch([BatchedRandomAgent(n)] * n, rules, n_games=7, total_games=12, seed=n,
                       cohort=5)
    records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
    assert len(records) == 12
    assert all(r.status == "complete" and r.rounds for r in records)
    assert all(sum(part.values()) == points for r in records for round_ in r.rounds
               for part, points in zip(round_.parts, round_.points, strict=True))
    _replay_all(records)
    assert sorted(r.seed for r in records) == sorted(game_seeds(n, 12))


@pytest.mark.parametrize("overrides", [
    {"first_storyteller": "random"}, {"score_limit": 12}, {"on_deck_exhausted": "end"},
    {"bonus_cap": 1, "second_vote_from": 3, "single_vote_bonus": 2},
    {"three_player_solo_points": 5}, {"all_or_none_points": 1, "storyteller_points": 4},
    {"single_vote_bonus_when": "some_found"}, {"rounds_per_player": 1, "score_limit": None},
    {"cards_per_guesser": 2, "hand_size": 7},
])
def test_rule_parameters_replay(overrides: dict[str, object]) -> None:
    rules = RuleSet.edition("odyssey-2011", **overrides)
    for n in (3, 7):
        games = play_batch([BatchedRandomAgent(1)] * n, rules, n_games=6, total_games=10,
                           seed=3, deck=range(100, 160))
        records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
        _replay_all(records)
        for record in records:
            assert GameRecord.from_json(record.to_json()).to_json() == record.to_json()


@pytest.mark.parametrize("edition", ["refresh-2021", "original-2008"])
def test_a_deck_with_no_draw_pile(edition: str) -> None:
    rules = RuleSet.edition(edition)
    games = play_batch([BatchedRandomAgent(3)] * 5, rules, n_games=4, total_games=6, seed=2,
                       deck=range(30))
    records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
    _replay_all(records)
    if edition == "original-2008":
        assert all(len(r.rounds) == 1 for r in records)
    else:
        assert all(any(round_.reshuffled for round_ in r.rounds) for r in records)


def test_long_games_draw_more_rounds_on_demand() -> None:
    rules = RuleSet.edition("refresh-2021")
    games = play_batch([BatchedRandomAgent(2)] * 4, rules, n_games=5, total_games=9, seed=4,
                       rounds_ahead=2, cohort=2)
    assert games.extensions > 0
    _replay_all(to_records(games, games.take_finished(), clues=CLUE_WORDS))


def test_the_deal_is_the_scalar_engines() -> None:
    rules = RuleSet.edition("refresh-2021", first_storyteller="random")
    games = BatchedGames(rules, 5, 3, seed=9, deck=range(10, 94))
    for slot, seed in enumerate(game_seeds(9, 3)):
        rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(6)[0])
        state = new_game(rules, 5, range(10, 94), rng)
        hands = games.card_ids[games.hands[slot]].tolist()
        assert hands == [list(hand) for hand in state.hands]
        assert games.storyteller[slot] == state.storyteller


def test_same_seed_same_records() -> None:
    rules = RuleSet.edition("odyssey-2024")
    texts = []
    for _ in range(2):
        games = play_batch([BatchedRandomAgent(7)] * 6, rules, n_games=4, total_games=6,
                           seed=11)
        texts.append([r.to_json() for r in to_records(games, games.take_finished(),
                                                      clues=CLUE_WORDS)])
    assert texts[0] == texts[1]


def test_cut_off_games_are_truncated_records() -> None:
    rules = RuleSet.edition("refresh-2021")
    games = BatchedGames(rules, 4, 3, seed=1)
    play_rounds(games, [BatchedRandomAgent(0)] * 4, 3)
    games.finish()
    finished = games.take_finished()
    records = to_records(games, finished, clues=CLUE_WORDS)
    assert {r.status for r in records} <= {"complete", "truncated"}
    assert any(r.status == "truncated" for r in records)
    _replay_all(records)
    assert not games.active.any()
    games.release(keep_games=finished)
    assert games.rows(finished[0])
    games.release()
    with pytest.raises(ValueError, match="released"):
        games.rows(finished[-1])


def _fresh(n: int = 4, edition: str = "refresh-2021") -> BatchedGames:
    return BatchedGames(RuleSet.edition(edition), n, 3, seed=2, total_games=3)


def test_illegal_moves_raise_and_change_nothing() -> None:
    games = _fresh()
    agent = BatchedRandomAgent(0)
    with pytest.raises(IllegalAction, match=r"play phase|tell phase"):
        games.play(np.zeros((3, 4, 1), dtype=np.int64))
    with pytest.raises(IllegalAction, match="hand slot 6"):
        games.tell(np.array([0, 6, 0]))
    with pytest.raises(ValueError, match="shape"):
        games.tell(np.array([0, 1]))
    assert games.phase is Phase.TELL
    games.tell(*agent.tell(games))
    with pytest.raises(IllegalAction, match="slot"):
        games.play(np.full((3, 4, 1), -1))
    games.play(agent.play(games))
    before = (games.scores.copy(), games.hands.copy(), games.pile_size.copy())
    votes = agent.vote(games)
    own = games.board_owner.argmax(axis=1)  # position 0's owner is somebody
    bad = votes.copy()
    owner0 = games.board_owner[0, 0]
    if owner0 != games.storyteller[0]:
        bad[0, owner0, 0] = 0
        with pytest.raises(IllegalAction, match="its own card"):
            games.vote(bad)
    bad = votes.copy()
    bad[1, (games.storyteller[1] + 1) % 4, 0] = 9
    with pytest.raises(IllegalAction, match="position 9"):
        games.vote(bad)
    del own
    assert games.phase is Phase.VOTE
    assert all((a == b).all() for a, b in zip(before, (games.scores, games.hands,
                                                        games.pile_size), strict=True))
    games.vote(votes)
    assert games.phase is Phase.TELL


def test_second_votes_and_three_player_plays_are_checked() -> None:
    games = _fresh(3, "odyssey-2024")
    agent = BatchedRandomAgent(0)
    games.tell(*agent.tell(games))
    slots = agent.play(games)
    same = slots.copy()
    guesser = (games.storyteller[0] + 1) % 3
    same[0, guesser, 1] = same[0, guesser, 0]
    with pytest.raises(IllegalAction, match="same hand slot twice"):
        games.play(same)
    games.play(slots)
    votes = agent.vote(games)
    twice = votes.copy()
    twice[0, guesser, 1] = twice[0, guesser, 0]
    with pytest.raises(IllegalAction, match="twice for the same card"):
        games.vote(twice)
    assert votes.shape == (3, 3, 2)
    games.vote(votes)


def test_masks() -> None:
    games = _fresh(5)
    agent = BatchedRandomAgent(0)
    assert games.legal_tell().all() and not games.legal_play().any()
    games.tell(*agent.tell(games))
    play = games.legal_play()
    assert not play[np.arange(3), games.storyteller].any()
    assert play.sum() == 3 * 4 * games.hand_size
    games.play(agent.play(games))
    vote = games.legal_vote()
    seats = np.arange(5)
    assert not (vote & (games.board_owner[:, None, :] == seats[None, :, None])).any()
    assert (vote.sum(axis=2) == np.where(seats[None, :] == games.storyteller[:, None], 0,
                                         games.board_size - 1)).all()


@pytest.mark.parametrize("overrides", [{"teams": True}, {"mode": "party"}])
def test_team_and_party_are_refused(overrides: dict[str, object]) -> None:
    rules = RuleSet.edition("odyssey-2011", **overrides)
    with pytest.raises(ValueError, match="does not implement"):
        BatchedGames(rules, 6, 2, seed=0)


def test_bad_arguments() -> None:
    rules = RuleSet.edition("original-2008")
    with pytest.raises(ValueError, match="3-6 players"):
        BatchedGames(rules, 7, 2, seed=0)
    with pytest.raises(ValueError, match="too small"):
        BatchedGames(rules, 6, 2, seed=0, deck=range(20))
    with pytest.raises(ValueError, match="n_games"):
        BatchedGames(rules, 4, 0, seed=0)
    with pytest.raises(ValueError, match="seed"):
        BatchedGames(rules, 4, 2, seed=-1)


def test_dixit_ai_replay_verifies_a_batched_run(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from dixit_ai.cli import main
    from dixit_ai.records import write_records

    games = play_batch([BatchedRandomAgent(0)] * 7, RuleSet.edition("odyssey-2011"),
                       n_games=20, total_games=30, seed=1)
    path = tmp_path / "batched.jsonl"
    write_records(path, to_records(games, games.take_finished(), clues=CLUE_WORDS))
    assert main(["replay", str(path)]) == 0
    assert "replayed 30 games" in capsys.readouterr().out
    # A tampered record fails loudly.
    lines = path.read_text(encoding="utf-8").splitlines()
    record = GameRecord.from_json(lines[0])
    record.rounds[0].points[0] += 1
    path.write_text(record.to_json() + "\n", encoding="utf-8")
    assert main(["replay", str(path)]) != 0


def test_games_whose_words_run_out_are_drawn_again() -> None:
    from dixit_ai.rules.batched_random import draw_games_one_by_one

    schedule = DrawSchedule.build(RuleSet.edition("odyssey-2011", first_storyteller="random"),
                                  7, 84, rounds=10)
    seeds = game_seeds(2, 64)
    short = draw_games(schedule, seeds, _count=160)  # too few words for most games
    exact = draw_games_one_by_one(schedule, seeds)
    for part in ("deal", "first_storyteller", "boards", "reshuffles"):
        assert (getattr(short, part) == getattr(exact, part)).all()


def test_game_seeds_are_computed_directly() -> None:
    from dixit_ai.rules.batched_log import batch_game_seeds, game_seeds_at

    assert batch_game_seeds(7, 300) == game_seeds(7, 300)
    assert game_seeds_at(7, [299, 5, 0]) == [game_seeds(7, 300)[k] for k in (299, 5, 0)]
    far = np.random.SeedSequence(3).generate_state(100_001, dtype=np.uint64)[-1]
    assert game_seeds_at(3, [100_000]) == [int(far >> np.uint64(1))]
