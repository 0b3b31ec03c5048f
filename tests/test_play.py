"""Terminal play: the human agent refuses illegal answers, plays whole games, and quits cleanly."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.agents.human import HumanAgent
from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.rules import Phase, RuleSet, new_game, observe


class Script:
    """Answers prompts like a careless person: tries each board position in turn when voting."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.vote_try = 0

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt.startswith("Card ("):
            return "1 lonely lighthouse"
        if prompt.startswith("Play 2"):
            return "1 2"
        if prompt.startswith("Play"):
            return "1"
        self.vote_try += 1
        return str(self.vote_try % 6 + 1)


def test_a_whole_game_through_the_human_agent_replays(tmp_path):
    out = io.StringIO()
    script = Script()
    human = HumanAgent(deck="dream", images_dir=tmp_path, input_fn=script, output=out)
    record = play_game([human, RandomAgent(), RandomAgent()], edition="refresh-2021",
                       seed=4, score_limit=12)
    assert record.status == "complete" and not record.failures
    replay_record(record)  # raises on any mismatch
    text = out.getvalue()
    assert "you are the storyteller" in text and "revealed" in text
    assert any(p.startswith("Your vote") for p in script.prompts)
    assert (tmp_path / "hand.png").is_file() and (tmp_path / "board.png").is_file()


def _vote_view(seed: int = 1):
    rules = RuleSet.edition("refresh-2021")
    rng = np.random.default_rng(seed)
    from dixit_ai.rules import Play, Tell, apply_action

    state = new_game(rules, 4, tuple(range(84)), rng)
    state = apply_action(state, Tell(0, state.hands[0][0], "x"), rng)
    while state.phase is Phase.PLAY:
        seat = state.pending[0]
        state = apply_action(state, Play(seat, (state.hands[seat][0],)), rng)
    return observe(state, 1)


@pytest.mark.parametrize("answers, message", [
    (["9 clue"], "9 is not between 1 and 6"),
    (["1"], "clue is empty"),
    (["1 " + "x" * 201], "the limit is 200"),
    (["one clue"], "'one' is not a card number"),
])
def test_bad_clues_are_refused_with_the_reason(answers, message):
    rules = RuleSet.edition("refresh-2021")
    state = new_game(rules, 4, tuple(range(84)), np.random.default_rng(0))
    view = observe(state, 0)
    feed = iter([*answers, "2 a fine clue"])
    out = io.StringIO()
    story = HumanAgent(input_fn=lambda _: next(feed), output=out).tell(view)
    assert message in out.getvalue()
    assert story.card == view.hand[1] and story.clue == "a fine clue"


def test_votes_are_checked_before_they_count():
    view = _vote_view()
    own = view.my_positions[0] + 1
    other = next(p for p in view.legal_vote_positions()) + 1
    feed = iter([str(own), f"{other} {other}", "7", "", str(other)])
    out = io.StringIO()
    choice = HumanAgent(input_fn=lambda _: next(feed), output=out).vote(view)
    text = out.getvalue()
    assert "you may not vote for it" in text and "the same card twice" in text
    assert "7 is not between 1 and" in text and "give a card number" in text
    assert choice.items == (other - 1,)


def test_quitting_is_recorded_as_the_seats_failure():
    human = HumanAgent(input_fn=lambda _: "quit", output=io.StringIO())
    record = play_game([human, RandomAgent(), RandomAgent()], edition="refresh-2021", seed=0)
    assert record.status == "aborted"
    assert record.failures[0].seat == 0 and record.failures[0].error == "HumanQuit"

    def ended(_: str) -> str:
        raise EOFError

    record = play_game([RandomAgent(), HumanAgent(input_fn=ended, output=io.StringIO()),
                        RandomAgent()], edition="refresh-2021", seed=0)
    assert record.failures[0].seat == 1 and "input ended" in record.failures[0].reason


def test_play_command_writes_a_replayable_record(tmp_path, monkeypatch, capsys):
    script = Script()
    monkeypatch.setattr("builtins.input", script)
    out = tmp_path / "game.json"
    status = main(["play", "--seats", "human,random,random", "--seed", "5", "--rule",
                   "score_limit=10", "--images", str(tmp_path / "cards"), "--out", str(out)])
    printed = capsys.readouterr().out
    assert status == 0
    record = GameRecord.from_json(out.read_text())
    replay_record(record)
    winners = re.search(r"Winners?: (.*)", printed)
    assert winners is not None
    assert record.header["seed"] == 5 and record.status == "complete"
    assert f"Record: {out}" in printed
    assert json.loads(out.read_text())["final_scores"] == record.final_scores


@pytest.mark.parametrize("argv, message", [
    (["--seats", "random,random,random"], "at least one 'human'"),
    (["--seats", "human,nobody,random"], "nobody"),
    (["--seats", "human,random"], "player"),
])
def test_play_command_refuses_bad_seats(argv, message, capsys):
    assert main(["play", *argv]) == 2
    assert message in capsys.readouterr().err


def test_play_command_checks_its_paths_before_the_game(tmp_path, monkeypatch, capsys):
    """A record that cannot be written was found only after the whole game; a pictures folder
    that cannot be made stopped the game at round 0, recorded as the person's failure."""
    def no_game(_prompt=""):
        raise AssertionError("the game started")

    monkeypatch.setattr("builtins.input", no_game)
    monkeypatch.chdir(tmp_path)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    seats = ["play", "--seats", "human,random,random", "--seed", "5"]
    assert main([*seats, "--out", str(tmp_path / "no" / "game.json")]) == 2
    assert f"--out {tmp_path / 'no' / 'game.json'}: the folder {tmp_path / 'no'} does not exist" \
        in capsys.readouterr().err
    assert main([*seats, "--images", str(blocker / "cards"), "--out", "game.json"]) == 2
    assert f"--images {blocker / 'cards'}: cannot make the folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_round_records_give_back_what_the_rules_revealed():
    seen = {}

    class Watcher(RandomAgent):
        def _note(self, view):
            if view.last_round is not None:
                seen[view.last_round.round] = view.last_round

        def tell(self, view):
            self._note(view)
            return super().tell(view)

        def play(self, view):
            self._note(view)
            return super().play(view)

    record = play_game([Watcher(), RandomAgent(), RandomAgent(), RandomAgent()],
                       edition="original-2008", seed=2)
    assert seen
    for number, result in seen.items():
        assert record.rounds[number].to_result() == result


def test_installed_agent_configs_are_found_outside_a_source_checkout(tmp_path, monkeypatch):
    from dixit_ai.agents import registry

    monkeypatch.setattr(registry, "REPOSITORY_CONFIGS", tmp_path / "no-checkout")
    monkeypatch.setattr(registry, "INSTALLED_CONFIGS", tmp_path / "share")
    monkeypatch.delenv(registry.CONFIG_DIRS_VARIABLE, raising=False)
    assert registry.agent_config_dirs() == [tmp_path / "share"]
    monkeypatch.setattr(registry, "REPOSITORY_CONFIGS", tmp_path)
    assert registry.agent_config_dirs() == [tmp_path]


def test_agents_that_read_a_deck_are_given_the_games_deck():
    from dixit_ai.agents import make_agent_for_deck, register_agent

    register_agent("deck-reader-test", "tests.test_play:_DeckReader", overwrite=True,
                   deck="dream")
    assert make_agent_for_deck("deck-reader-test", "dream:size=30").deck == "dream:size=30"
    assert make_agent_for_deck("deck-reader-test", "dream:size=30",
                               deck="folder:x").deck == "folder:x"
    assert isinstance(make_agent_for_deck("random", "dream:size=30"), RandomAgent)


class _DeckReader(RandomAgent):
    def __init__(self, *, deck: str, name: str = "deck-reader") -> None:
        super().__init__(name=name)
        self.deck = deck

    def describe(self):
        return {**super().describe(), "deck": self.deck}


def test_play_game_makes_named_agents_for_its_deck():
    from dixit_ai.agents import register_agent

    register_agent("deck-reader-test", "tests.test_play:_DeckReader", overwrite=True,
                   deck="dream")
    record = play_game(["deck-reader-test", "random", "random"], edition="refresh-2021",
                       deck="dream:size=60,seed=2", seed=1, max_rounds=1)
    assert record.header["agents"][0]["deck"] == "dream:size=60,seed=2"


class VariantScript:
    """Answers a Party or team game: a clue, 'pass' where offered, first card, first vote."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt.startswith("Clue"):
            return "a quiet storm"
        if prompt.startswith("Play") and "'pass'" in prompt:
            return "pass"
        if prompt.startswith("Red token"):
            return "2"
        if prompt.startswith("Card"):
            return "1 a quiet storm"
        return "1"


@pytest.mark.parametrize("overrides", [{"mode": "party"}, {"teams": True}])
def test_the_human_agent_plays_party_and_teams(overrides: dict[str, object]) -> None:
    out = io.StringIO()
    script = VariantScript()
    human = HumanAgent(deck="dream", input_fn=script, output=out)
    record = play_game([human, *(RandomAgent() for _ in range(5))], edition="odyssey-2011",
                       seed=2, **overrides)
    assert record.status == "complete" and not record.failures, record.failures
    replay_record(record)
    text = out.getvalue()
    # The reveal prints the rules' itemised parts, worded.
    assert "revealed" in text and re.search(r"you: [+-]\d", text)
    if overrides.get("mode") == "party":
        assert any(p.startswith("Clue") for p in script.prompts)
        assert any(p.startswith("Red token") for p in script.prompts)
        assert "the storyteller's red token" in text
    else:
        assert any("'pass'" in p for p in script.prompts)
        assert any(not cards for r in record.rounds for cards in r.played)
