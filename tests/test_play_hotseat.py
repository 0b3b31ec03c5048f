"""Hot seat: several people at one terminal see only their own seat's private view.

Before a person's hand (or the card it told, or its own board positions) is shown while another
person shares the terminal, a handoff screen asks that seat to take the terminal; what the
previous person saw is cleared (on a terminal) and the pictures of its hand are removed.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.agents.human import CLEAR_SCREEN, HotSeat, HumanAgent
from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from tests.test_play import Script

HANDOFF = "== Pass the terminal to "


class HandoffScript(Script):
    """test_play's careless person, who also presses Enter at every handoff."""

    def __init__(self, at_handoff: Any = None) -> None:
        super().__init__()
        self.at_handoff = at_handoff

    def __call__(self, prompt: str) -> str:
        if "press Enter" in prompt:
            self.prompts.append(prompt)
            if self.at_handoff is not None:
                self.at_handoff(prompt)
            return ""
        return super().__call__(prompt)


class Watched(HumanAgent):
    """A person whose every decision notes where in the output it began and what the seat may
    read there: its own hand, the board it is shown, the last revealed round's board."""

    def __init__(self, log: list[tuple[int, int, set[int]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.log = log

    def _note(self, view: Any) -> None:
        """Noted once the decision is answered: its screen lies before this point."""
        assert isinstance(self.output, io.StringIO)
        public = set(view.last_round.board) if view.last_round is not None else set()
        self.log.append((len(self.output.getvalue()), self.seat,
                         {*view.hand, *view.board, *public}))

    def tell(self, view: Any) -> Any:
        story = super().tell(view)
        self._note(view)
        return story

    def play(self, view: Any) -> Any:
        choice = super().play(view)
        self._note(view)
        return choice

    def vote(self, view: Any) -> Any:
        choice = super().vote(view)
        self._note(view)
        return choice


def _hot_seat_game(output: io.StringIO, images: Path | None = None,
                   at_handoff: Any = None) -> tuple[Any, list[tuple[int, int, set[int]]], Any]:
    log: list[tuple[int, int, set[int]]] = []
    table = HotSeat()
    script = HandoffScript(at_handoff)
    seats = ["human", "human", "random"]
    people = [Watched(log, deck="dream", images_dir=images, seat_names=seats, input_fn=script,
                      output=output, hot_seat=table) for _ in range(2)]
    record = play_game([*people, RandomAgent()], edition="refresh-2021", seed=3, score_limit=10)
    return record, log, script


def test_a_second_person_reads_nothing_of_the_other_persons_hand() -> None:
    output = io.StringIO()
    record, log, script = _hot_seat_game(output)
    assert record.status == "complete", record.failures
    replay_record(record)
    text = output.getvalue()
    starts = [m.start() for m in re.finditer(re.escape(HANDOFF), text)]
    assert len(starts) >= 2 * len(record.rounds) - 1  # the seats take turns every round
    assert sum("press Enter" in p for p in script.prompts) == len(starts)
    assert "not a terminal" in text[:starts[0] + 400]  # said once, at the first handoff
    assert text[:starts[0]].count("card ") == 0
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        screen = text[start:end]
        seat = int(re.match(r"== Pass the terminal to human \(seat (\d)\)", screen).group(1))
        decisions = [entry for entry in log if start < entry[0] <= end]
        assert decisions and {s for _, s, _ in decisions} == {seat}
        readable = set().union(*(allowed for _, _, allowed in decisions))
        shown = {int(n) for n in re.findall(r"card (\d+):", screen)}
        assert shown <= readable, (seat, sorted(shown - readable))
        assert "you" not in re.findall(r"\b(you) [+\d]", screen)  # scores name seats


def test_the_storytellers_card_is_not_on_the_next_persons_screen() -> None:
    output = io.StringIO()
    record, _, _ = _hot_seat_game(output)
    first = record.rounds[0]
    told = first.board[first.board_owner.index(first.storyteller)]
    text = output.getvalue()
    guesser = 1 - first.storyteller
    screen = text[text.index(f"{HANDOFF}human (seat {guesser})"):]
    play_view = screen[:screen.index("vote for the storyteller's card")]
    assert "Your hand" in play_view and f"card {told}:" not in play_view


def test_a_terminal_is_cleared_with_its_scrollback_before_each_handoff(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("TERM", "xterm-256color")
    output = Terminal()
    record, _, _ = _hot_seat_game(output)
    text = output.getvalue()
    assert record.status == "complete" and "not a terminal" not in text
    assert CLEAR_SCREEN == "\x1b[H\x1b[2J\x1b[3J"
    for screen in text.split(HANDOFF)[1:]:
        # What the previous person saw is gone before the next seat's handoff is shown.
        before_next = screen.split(HANDOFF)[0]
        assert CLEAR_SCREEN in before_next
        assert "Your hand" not in before_next.rsplit(CLEAR_SCREEN, 1)[1]
    assert text.count(HANDOFF) >= 2


def test_the_pictures_of_a_hand_are_gone_before_the_next_person_takes_the_terminal(
        tmp_path: Path) -> None:
    seen: list[bool] = []

    def check(prompt: str) -> None:
        seen.append((tmp_path / "hand.png").exists() or (tmp_path / "board.png").exists())

    record, _, _ = _hot_seat_game(io.StringIO(), images=tmp_path, at_handoff=check)
    assert record.status == "complete" and len(seen) > 2
    assert not any(seen)


def test_one_person_at_the_terminal_is_asked_nothing_more(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str],
                                                         ) -> None:
    script = Script()
    monkeypatch.setattr("builtins.input", script)
    out = tmp_path / "game.json"
    assert main(["play", "--seats", "human,random,random", "--seed", "5", "--rule",
                 "score_limit=10", "--images", str(tmp_path / "cards"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert all(p.startswith(("Card (", "Play", "Your vote")) for p in script.prompts)
    assert HANDOFF not in printed and "\x1b" not in printed and "share" not in printed
    assert "you are the storyteller" in printed and "points: you +" in printed
    assert (tmp_path / "cards" / "hand.png").is_file()  # kept for the one person


@pytest.mark.parametrize("stop, status", [(EOFError, 1), (KeyboardInterrupt, 130)])
def test_leaving_at_a_handoff_is_recorded_as_at_any_prompt(
        stop: type[BaseException], status: int, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    script = Script()

    def answer(prompt: str = "") -> str:
        if "press Enter" in prompt and "seat 1" in prompt:
            raise stop
        if "press Enter" in prompt:
            return ""
        return script(prompt)

    monkeypatch.setattr("builtins.input", answer)
    out = tmp_path / "game.json"
    assert main(["play", "--seats", "human,human,random", "--seed", "5", "--images",
                 str(tmp_path / "cards"), "--out", str(out)]) == status
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    record = GameRecord.from_json(out.read_text())
    assert record.status == "aborted"
    assert record.failures[0].seat == 1 and record.failures[0].error == "HumanQuit"
    reason = "input ended" if stop is EOFError else "interrupted (Ctrl-C)"
    assert reason in record.failures[0].reason
    assert "Seats 0 and 1 share this terminal" in captured.out


@pytest.mark.parametrize("seats, message", [
    ("human,,random,random", "--seats 'human,,random,random': seat 1 is empty"),
    ("human,random,random,", "seat 3 is empty"),
    ("Human,random,random", "seat 0 is 'Human'; a person's seat is spelled 'human'"),
])
def test_seats_that_are_mistyped_are_refused_not_dropped(
        seats: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert message in refused_before_the_game(seats, tmp_path, monkeypatch, capsys)


def refused_before_the_game(seats: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> str:
    """``play --seats SEATS`` exits 2 before asking anything; its stderr."""
    def no_game(_prompt: str = "") -> str:
        raise AssertionError("the game started")

    monkeypatch.setattr("builtins.input", no_game)
    assert main(["play", "--seats", seats, "--seed", "1", "--images", str(tmp_path / "cards"),
                 "--out", str(tmp_path / "game.json")]) == 2
    return capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_refused_vote_names_the_board_number_not_a_card_id() -> None:
    """'card 3 is yours' named board position 3 where the board lists 'card 58' ids."""
    from tests.test_play import _vote_view

    view = _vote_view()
    own = view.my_positions[0]
    other = next(p for p in view.legal_vote_positions())
    feed = iter([str(own + 1), str(other + 1)])
    out = io.StringIO()
    HumanAgent(input_fn=lambda _: next(feed), output=out).vote(view)
    assert (f"not voted: {own + 1} (card {view.board[own]}) is yours; you may not vote for it"
            in out.getvalue())


class _NoPartyAgent(RandomAgent):
    """A bot without Dixit Party's two decisions."""

    announce = None
    red_token = None


def test_a_bot_that_cannot_play_party_is_refused_before_the_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """It was found once the game had begun: 'failed', exit 1, as if the game had broken."""
    from dixit_ai.agents import register_agent

    register_agent("no-party-test", "tests.test_play_hotseat:_NoPartyAgent", overwrite=True)

    def no_game(_prompt: str = "") -> str:
        raise AssertionError("the game started")

    monkeypatch.setattr("builtins.input", no_game)
    seats = "human,no-party-test,random,random,random,random"
    assert main(["play", "--seats", seats, "--edition", "odyssey-2011", "--rule", "mode=party",
                 "--seed", "1", "--images", str(tmp_path / "cards"),
                 "--out", str(tmp_path / "game.json")]) == 2
    assert "seat 1: agent 'no-party-test' cannot play Dixit Party" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
