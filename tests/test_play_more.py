"""`dixit-ai play` in the variants: the final screen shows the last round as the earlier ones."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dixit_ai.agents.human import HumanAgent
from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from tests.test_play import VariantScript


class Voter(VariantScript):
    """Answers every prompt as test_play's VariantScript does, but votes for each board card
    in turn until one is legal."""

    def __init__(self) -> None:
        super().__init__()
        self.tries = 0

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("Your vote"):
            self.tries += 1
            return str(self.tries % 6 + 1)
        return super().__call__(prompt)


@pytest.mark.parametrize("rule", ["mode=party", "teams=true"])
def test_the_last_round_is_revealed_under_the_games_own_rules(
        rule: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("builtins.input", Voter())
    out = tmp_path / "game.json"
    seats = ["human"] + ["random"] * 5
    status = main(["play", "--seats", ",".join(seats), "--edition", "odyssey-2024", "--rule",
                   rule, "--seed", "2", "--deck", "dream:size=120,seed=1", "--images",
                   str(tmp_path / "cards"), "--out", str(out)])
    printed = capsys.readouterr().out
    record = GameRecord.from_json(out.read_text())
    assert status == 0 and record.status == "complete", record.failures
    replay_record(record)
    # The last round as the human agent reveals every round of this game during it.
    shown = io.StringIO()
    person = HumanAgent(deck="dream:size=120,seed=1", seat_names=seats, output=shown)
    person.seat = 0
    person.show_result(record.rounds[-1].to_result(), party=rule == "mode=party",
                       teams=rule == "teams=true")
    last = printed.split(f"\n-- Round {len(record.rounds)} revealed")[-1]
    expected = shown.getvalue().split(f"\n-- Round {len(record.rounds)} revealed")[-1]
    assert last.startswith(expected)
    if rule == "mode=party":
        assert "the storyteller's red token" in last


@pytest.mark.parametrize("line", ["2\ta quiet storm", "2  a quiet storm", " 2 a quiet storm"])
def test_the_card_and_the_clue_may_be_parted_by_any_blank(line: str) -> None:
    import numpy as np

    from dixit_ai.rules import RuleSet, new_game, observe

    state = new_game(RuleSet.edition("refresh-2021"), 4, range(84), np.random.default_rng(0))
    view = observe(state, state.storyteller)
    out = io.StringIO()
    feed = iter([line])  # asked again: StopIteration fails the test

    story = HumanAgent(input_fn=lambda _: next(feed), output=out).tell(view)
    assert story.card == view.hand[1] and story.clue == "a quiet storm"
    assert "not played" not in out.getvalue()


def test_images_that_name_a_file_are_refused_as_a_file(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "cards.png"
    afile.write_text("not a folder")
    assert main(["play", "--seats", "human,random,random", "--seed", "1", "--images",
                 str(afile), "--out", str(tmp_path / "game.json")]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert f"--images {afile} is a file, not a folder" in err
    assert "Card pictures go to" not in captured.out  # not said of a folder that is refused
    assert not (tmp_path / "game.json").exists()


class _Deck:
    """A deck whose captions and objects hold terminal control sequences."""

    def captions(self, card: int) -> list[str]:
        return ["\x1b[2J\x1b[31mred\nnew line"] if card % 2 else []

    def description(self, card: int) -> dict[str, object]:
        return {"objects": ["a\x1b]0;title\x07b", "\u202eevil"]}


def test_card_captions_cannot_drive_the_terminal() -> None:
    out = io.StringIO()
    person = HumanAgent(deck=_Deck(), output=out)
    person.seat = 0
    person._show_cards("Your hand", [1, 2], sheet="hand")
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "red\\nnew line" in text and "\\x1b[31m" in text  # shown, escaped
    assert len(text.splitlines()) == 3  # one line a card


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_an_empty_answer_to_the_storyteller_is_asked_again(blank: str) -> None:
    """Before, Enter at the storyteller's prompt stopped the game: not enough values to
    unpack."""
    import numpy as np

    from dixit_ai.rules import RuleSet, new_game, observe

    state = new_game(RuleSet.edition("refresh-2021"), 4, range(84), np.random.default_rng(0))
    view = observe(state, state.storyteller)
    out = io.StringIO()
    feed = iter([blank, "3 a long road"])
    story = HumanAgent(input_fn=lambda _: next(feed), output=out).tell(view)
    assert story.card == view.hand[2] and story.clue == "a long road"
    assert "not played: give a card number and a clue" in out.getvalue()
