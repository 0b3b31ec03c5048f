"""The match runner and game records: determinism, replay, failures, golden playthroughs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from dixit_ai import GameRecord, ReplayMismatch, play_game, replay_record
from dixit_ai.agents import Choice, RandomAgent, Story, make_agent
from dixit_ai.records import read_records, write_records
from dixit_ai.rules import EDITIONS, View
from scripts.regen_golden import GAMES, GOLDEN, golden_name, golden_transcript
from tests.rules.helpers import variant_cells


def random_game(edition: str = "refresh-2021", n: int = 4, seed: int = 0,
                **kwargs: Any) -> GameRecord:
    return play_game([RandomAgent() for _ in range(n)], edition=edition, deck=range(84),
                     seed=seed, **kwargs)


def test_record_has_the_design_fields() -> None:
    record = random_game(n=5, seed=3)
    assert record.status == "complete" and not record.failures
    header = record.header
    assert header["edition"] == "refresh-2021" and header["n_players"] == 5
    assert header["seed"] == 3 and header["rules"]["score_limit"] == 30
    assert header["deck"]["card_ids"] == list(range(84)) and header["deck"]["fingerprint"]
    assert [a["name"] for a in header["agents"]] == ["random"] * 5
    for r in record.rounds:
        assert len(r.board) == len(r.board_owner) == 5
        assert set(r.votes) == {s for s in range(5) if s != r.storyteller}
        assert r.predicted_guess_rate is None
        assert r.board[r.board_owner.index(r.storyteller)] == r.storyteller_card
    assert record.final_scores == record.rounds[-1].scores
    assert max(record.final_scores) >= 30
    assert record.winners == [s for s, v in enumerate(record.final_scores)
                              if v == max(record.final_scores)]


@pytest.mark.parametrize("edition", EDITIONS)
def test_same_seed_same_record_byte_for_byte(edition: str) -> None:
    a, b = random_game(edition, 4, seed=42), random_game(edition, 4, seed=42)
    assert a.to_json() == b.to_json()
    assert random_game(edition, 4, seed=43).to_json() != a.to_json()


def test_json_round_trip_and_jsonl(tmp_path: Path) -> None:
    records = [random_game(seed=s) for s in range(3)]
    for record in records:
        again = GameRecord.from_json(record.to_json())
        assert again == record and again.to_json() == record.to_json()
    path = tmp_path / "games.jsonl"
    assert write_records(path, records) == 3
    assert [r.to_json() for r in read_records(path)] == [r.to_json() for r in records]


def test_bad_record_files_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(random_game().to_json() + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2"):
        list(read_records(path))
    with pytest.raises(ValueError, match="not a dixit-ai game record"):
        GameRecord.from_json('{"header": {"format": 1}}')


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("n", [3, 5, 6])
def test_replay_accepts_every_honest_record(edition: str, n: int) -> None:
    record = random_game(edition, n, seed=n)
    state = replay_record(record)
    assert list(state.scores) == record.final_scores


def tamper(record: GameRecord, **changes: Any) -> GameRecord:
    data = json.loads(record.to_json())
    for path, value in changes.items():
        target = data
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        if isinstance(target, list):
            target[int(keys[-1])] = value
        else:
            target[keys[-1]] = value
    return GameRecord.from_dict(data)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rounds__0__points": [9, 9, 9, 9]}, "points differs"),
        ({"rounds__1__scores": [0, 0, 0, 0]}, "scores differs"),
        ({"rounds__0__board": [1, 2, 3, 4]}, "board differs"),
        ({"final_scores": [1, 2, 3, 4]}, "final scores differs"),
        ({"winners": [3]}, "winners differs"),
        ({"rounds__0__storyteller": 2}, "storyteller differs"),
        ({"header__seed": 1}, "differs|illegal"),
    ],
)
def test_replay_fails_loudly_on_any_mismatch(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ReplayMismatch, match=message):
        replay_record(tamper(random_game(seed=8), **changes))


def test_replay_catches_a_truncated_record() -> None:
    record = random_game(seed=8)
    cut = dataclasses.replace(record, rounds=record.rounds[:-1],
                              final_scores=record.rounds[-2].scores)
    with pytest.raises(ReplayMismatch, match="rules go on"):
        replay_record(cut)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"header__n_players": 5}, r"round 0: 'played' must hold one list of cards per seat "
                                   r"\(5, as the header's n_players says\), not 4 entries"),
        ({"rounds__1__played__3": 38}, r"round 1: 'played\[3\]' must be a list of cards, not 38"),
        ({"rounds__0__forfeits": None}, r"round 0: 'forfeits' must be a list of seats, not None"),
        ({"header__n_players": 2}, r"header: cannot rebuild the game: .*3-8 players, not 2"),
        ({"header__seed": -5}, r"header: .*seed must be a non-negative integer, not -5"),
        ({"header__deck__card_ids": list(range(10))}, r"header: .*deck of 10 cards"),
        ({"header__rules": 3}, r"header: cannot rebuild the game"),
    ],
)
def test_replay_names_what_is_broken_in_a_record(changes: dict[str, Any], message: str) -> None:
    from dixit_ai.replay import MalformedRecord

    with pytest.raises(MalformedRecord, match=message):
        replay_record(tamper(random_game(seed=8), **changes))


class Broken:
    """An agent that fails in a chosen phase, in a chosen way."""

    def __init__(self, phase: str, how: str) -> None:
        self.name, self.phase, self.how = "broken", phase, how
        self.inner = RandomAgent()

    def reset(self, *, seat: int, rng: Any) -> None:
        self.inner.reset(seat=seat, rng=rng)

    def _fail(self, phase: str, decision: Any) -> Any:
        if phase != self.phase:
            return decision
        if self.how == "raise":
            raise RuntimeError("the model ran out of memory")
        if phase == "tell":
            return Story(card=-5, clue="nope")
        return Choice((99,))

    def tell(self, view: View) -> Story:
        return self._fail("tell", self.inner.tell(view))  # type: ignore[no-any-return]

    def play(self, view: View) -> Choice:
        return self._fail("play", self.inner.play(view))  # type: ignore[no-any-return]

    def vote(self, view: View) -> Choice:
        return self._fail("vote", self.inner.vote(view))  # type: ignore[no-any-return]

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "phase": self.phase, "how": self.how}


@pytest.mark.parametrize("phase", ["tell", "play", "vote"])
@pytest.mark.parametrize("how", ["raise", "illegal"])
def test_failing_agent_aborts_and_is_recorded(phase: str, how: str) -> None:
    agents = [RandomAgent(), Broken(phase, how), RandomAgent(), RandomAgent()]
    record = play_game(agents, edition="refresh-2021", deck=range(84), seed=1)
    assert record.status == "aborted" and record.winners == []
    (failure,) = record.failures
    assert failure.seat == 1 and failure.phase == phase and failure.penalty == "abort"
    assert failure.error == ("RuntimeError" if how == "raise" else "IllegalAction")
    replay_record(record)  # the rounds played before the failure still replay


@pytest.mark.parametrize("phase", ["tell", "play", "vote"])
def test_forfeit_policy_scores_nothing_that_round(phase: str) -> None:
    agents = [RandomAgent(), Broken(phase, "raise"), RandomAgent(), RandomAgent()]
    record = play_game(agents, edition="refresh-2021", deck=range(84), seed=1,
                       on_failure="forfeit")
    assert record.status == "complete"
    assert record.failures and all(f.seat == 1 and f.penalty == "forfeit"
                                   for f in record.failures)
    forfeited = [r for r in record.rounds if 1 in r.forfeits]
    assert forfeited and all(r.points[1] == 0 for r in forfeited)
    if phase == "tell":
        assert all(r.clue == "(forfeit)" for r in forfeited)
    replay_record(record)


def test_truncation_and_bad_arguments() -> None:
    record = random_game(seed=2, max_rounds=3)
    assert record.status == "truncated" and len(record.rounds) == 3
    replay_record(record)
    with pytest.raises(ValueError, match="3-6 players, not 7"):
        play_game(["random"] * 7, edition="original-2008", deck=range(84), seed=0)
    with pytest.raises(ValueError, match="on_failure"):
        play_game(["random"] * 4, edition="refresh-2021", deck=range(84), seed=0,
                  on_failure="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        play_game(["random"] * 4, edition="refresh-2021", deck=range(84), seed=-1)
    with pytest.raises(ValueError, match="missing"):
        play_game(["random"] * 4, edition="refresh-2021", deck=range(10), seed=0)
    with pytest.raises(ValueError, match="unknown rule parameter"):
        play_game(["random"] * 4, edition="refresh-2021", deck=range(84), seed=0, colour=1)


def test_agents_by_registry_name() -> None:
    record = play_game(["random"] * 3, edition="odyssey-2024", deck=range(84), seed=5)
    assert record.status == "complete"
    with pytest.raises(ValueError, match=r"registered agents: .*random"):
        make_agent("no-such-agent")


class PassingOn(RandomAgent):
    """Takes its keywords as ``**kwargs`` and passes them on, as the baseline tellers do."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)


class BrokenInside(RandomAgent):
    """Raises a TypeError of its own while it is made."""

    def __init__(self, *, size: int = 1, name: str = "broken") -> None:
        super().__init__(name=name)
        len(size)  # type: ignore[arg-type]


def test_a_wrong_agent_keyword_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from dixit_ai.agents import check_agent_arguments, registry

    registry._ensure_configs()  # read into the registry kept after this test, not its copy
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register_agent("passing-on", "tests.test_match:PassingOn")
    registry.register_agent("broken-inside", "tests.test_match:BrokenInside")
    for name in ("random", "passing-on"):  # **kwargs passed on: read from the base class
        with pytest.raises(ValueError, match=rf"agent '{name}' .*takes no keyword argument "
                                             r"'nope'; it takes: second_vote_rate, pass_rate"):
            make_agent(name, nope=1)
        with pytest.raises(ValueError, match="'nope'"):
            check_agent_arguments(name, {"nope": 1})
        check_agent_arguments(name, {"second_vote_rate": 0.0})
        assert make_agent(name, second_vote_rate=0.0).second_vote_rate == 0.0
    with pytest.raises(TypeError, match="has no len"):  # a constructor's own error stays
        make_agent("broken-inside")
    check_agent_arguments("broken-inside", {"size": 2})


@pytest.mark.parametrize(("edition", "n", "seed", "overrides"), GAMES,
                         ids=[golden_name(e, n, o) for e, n, _, o in GAMES])
def test_golden_playthrough(edition: str, n: int, seed: int,
                            overrides: dict[str, object]) -> None:
    expected = (GOLDEN / golden_name(edition, n, overrides)).read_text(encoding="utf-8")
    assert golden_transcript(edition, n, seed, overrides) == expected, (
        "the transcript changed; if deliberate, run scripts/regen_golden.py and review the diff")


# ---------------------------------------------------------------------- team variant and Party


@pytest.mark.parametrize(("edition", "n", "overrides"), variant_cells(),
                         ids=[f"{e}-{n}p-{'teams' if o.get('teams') else 'party'}"
                              for e, n, o in variant_cells()])
def test_team_and_party_records_replay_at_every_count(edition: str, n: int,
                                                      overrides: dict[str, Any]) -> None:
    record = play_game([RandomAgent() for _ in range(n)], edition=edition, deck=range(84),
                       seed=n, **overrides)
    # Both variants: "the game ends when each player has been storyteller once".
    assert record.status == "complete" and len(record.rounds) == n
    again = GameRecord.from_json(record.to_json())
    assert again.to_json() == record.to_json()
    state = replay_record(again)
    assert list(state.scores) == record.final_scores
    for round_ in record.rounds:
        assert [sum(p.values()) for p in round_.parts] == round_.points
    if overrides.get("mode") == "party":
        assert all(r.red_token is not None for r in record.rounds)
        with pytest.raises(ReplayMismatch, match=r"points differs|point parts differs"):
            replay_record(tamper(record, rounds__0__red_token=(record.rounds[0].red_token + 1)
                                 % n))
    else:
        # One card per guessing team, plus the storyteller's and its teammate's.
        assert all(len(r.board) == n // 2 + 1 and len(r.votes) == n // 2 - 1
                   for r in record.rounds)


def test_party_needs_agents_that_play_party() -> None:
    with pytest.raises(ValueError, match="cannot play Dixit Party"):
        play_game([RandomAgent() for _ in range(5)] + [Broken("tell", "raise")],
                  edition="odyssey-2011", deck=range(84), seed=0, mode="party")


@pytest.mark.parametrize("overrides", [{"teams": True}, {"mode": "party"}])
def test_forfeits_in_the_variants_replay(overrides: dict[str, Any]) -> None:
    class Flaky(RandomAgent):
        def vote(self, view: View) -> Choice:
            if view.round % 2:
                raise RuntimeError("flaky")
            return super().vote(view)

    agents = [RandomAgent() for _ in range(7)] + [Flaky()]
    record = play_game(agents, edition="odyssey-2011", deck=range(84), seed=4,
                       on_failure="forfeit", **overrides)
    assert record.status == "complete"
    replay_record(record)
