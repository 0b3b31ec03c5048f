"""A person at the terminal, playing through the same :class:`Agent` protocol as the bots.

The agent prints what its seat's view holds (the hand as numbered cards with their captions or
object names, the clue, the numbered board with the person's own cards marked), writes the cards
it shows as one PNG sheet to a folder the person can open, and reads the answer from a line of
input. A line that does not make a legal move is refused with the reason, and the question is
asked again; nothing is played until the answer is legal. ``quit``, the end of input (Ctrl-D) or
Ctrl-C at a prompt raises :class:`HumanQuit`, which the match runner records as that seat's
failure; after Ctrl-C the agent's :attr:`~HumanAgent.interrupted` is set, so that a caller can
write the record and then stop as interrupted.

Everything the agent shows comes from the seat's view and the deck, so a person sees exactly what a
bot in that seat would see.

Several people at one terminal (hot seat) share one :class:`HotSeat`: before a seat's private view
(its hand, the card it tells, its own cards on the board) is shown, a handoff screen asks that seat
to take the terminal and press Enter. On a terminal the screen and its scrollback are cleared after
each answer and again at each handoff, so what the previous person saw cannot be scrolled back to;
the pictures of the previous person's cards are removed. Output that is not a terminal cannot be
cleared, and the first handoff says so. Public information (the clue, the revealed round, the
scores) is shown on the handoff screen, to everyone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from dixit_ai.agents.base import Announcement, Choice, Story
from dixit_ai.rules import IllegalAction, RoundResult, View
from dixit_ai.rules.explain import explain_round
from dixit_ai.rules.game import check_clue
from dixit_ai.rules.text import printable

QUIT_WORDS = frozenset({"q", "quit", "exit"})
#: Cursor home, clear the screen, clear the scrollback (``3J``, where the terminal keeps one).
CLEAR_SCREEN = "\x1b[H\x1b[2J\x1b[3J"


class HumanQuit(RuntimeError):
    """The person left the game (``quit``, or the input ended)."""


class HotSeat:
    """The terminal that several human seats share, passed from person to person.

    Give the same instance to every :class:`HumanAgent` at the terminal.

    Attributes:
        holder: The seat whose person has the terminal now (``None``: nobody yet).
        said_uncleared: The first handoff has said that the output cannot be cleared.
    """

    def __init__(self) -> None:
        self.holder: int | None = None
        self.said_uncleared = False


class HumanAgent:
    """A person playing one seat from a terminal (or any line-based input and output).

    Args:
        deck: The game's deck (a spec such as ``"dream"`` or a loaded ``Deck``); used to show
            captions and to draw the cards. ``None`` shows card ids only.
        images_dir: Where to write ``hand.png`` and ``board.png`` for the person to open;
            ``None`` writes nothing.
        seat_names: A display name per seat (``"you"`` is used for this seat where one
            person plays): a person's name, or ``"human"``, or the bot's agent name.
        input_fn: Reads one line given a prompt (default :func:`input`); tests pass a script.
        output: Where to print (default standard output).
        name: The agent's name in records (default ``"human"``, or ``"human:NAME"`` for a
            named ``player``).
        player: The person's name, where given (recorded beside ``name`` as ``"player"``, as
            web tables record theirs).
        hot_seat: Shared by every person at this terminal when there are several (hot seat);
            ``None`` for one person, who is asked nothing more.

    Attributes:
        interrupted: The person pressed Ctrl-C at a prompt (the game was left, as with
            ``quit``); every later question is answered with :class:`HumanQuit` without asking.
    """

    def __init__(self, *, deck: Any = None, images_dir: str | Path | None = None,
                 seat_names: Sequence[str] | None = None,
                 input_fn: Callable[[str], str] | None = None, output: TextIO | None = None,
                 name: str | None = None, hot_seat: HotSeat | None = None,
                 player: str | None = None) -> None:
        if isinstance(deck, str):
            from dixit_ai.decks import load_deck

            deck = load_deck(deck)
        self.deck = deck
        self.images_dir = Path(images_dir) if images_dir is not None else None
        self.seat_names = list(seat_names) if seat_names is not None else None
        self.input_fn = input_fn if input_fn is not None else input
        self.output = output
        self.player = player
        self.name = name if name is not None else (
            "human" if player is None else f"human:{player}")
        self.hot_seat = hot_seat
        self.sheets: list[Path] = []  # the pictures written for the decision on screen
        self.seat = -1
        self.shown_round = -1
        self.interrupted = False

    # -------------------------------------------------------------------- protocol

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.shown_round = -1
        self.interrupted = False
        if self.hot_seat is not None:
            self.hot_seat.holder = None

    def tell(self, view: View) -> Story:
        return self._privately(self._tell, view)

    def announce(self, view: View) -> Announcement:
        """Dixit Party: say a clue before looking at the hand."""
        return self._privately(self._announce, view)

    def red_token(self, view: View) -> Choice:
        """Dixit Party: the storyteller's red token (its voters score nothing)."""
        return self._privately(self._red_token, view)

    def play(self, view: View) -> Choice:
        return self._privately(self._play, view)

    def vote(self, view: View) -> Choice:
        return self._privately(self._vote, view)

    def _tell(self, view: View) -> Story:
        self._say(f"\n== Round {view.round + 1}: {self._addressed()}you are the storyteller ==")
        self._show_scores(view)
        self._show_cards("Your hand", view.hand, sheet="hand")
        while True:
            line = self._ask(f"Card (1-{len(view.hand)}) and clue, e.g. '2 a quiet storm': ")
            number, clue = [*line.split(None, 1), "", ""][:2]  # any blank parts them (a tab)
            if not number:
                self._say("  not played: give a card number and a clue")
                continue
            try:
                index = self._number(number, len(view.hand))
                clue = clue.strip()
                check_clue(view.rules, clue, None, view.seat)
            except IllegalAction as error:
                self._say(f"  not played: {error}")
                continue
            return Story(card=view.hand[index], clue=clue)

    def _announce(self, view: View) -> Announcement:
        self._say(f"\n== Round {view.round + 1}: {self._addressed()}you are the storyteller "
                  "(Dixit Party) ==")
        self._show_scores(view)
        self._say("Say a clue before looking at your hand; everyone then plays the card that "
                  "fits it best.")
        while True:
            clue = self._ask("Clue: ")
            try:
                check_clue(view.rules, clue, None, view.seat)
            except IllegalAction as error:
                self._say(f"  not said: {error}")
                continue
            return Announcement(clue=clue)

    def _red_token(self, view: View) -> Choice:
        self._show_cards("The board", view.board, sheet="board")
        while True:
            line = self._ask(f"Red token on card (1-{len(view.board)}): ")
            try:
                (position,) = self._numbers(line, len(view.board), exactly=1)
            except IllegalAction as error:
                self._say(f"  not placed: {error}")
                continue
            return Choice((position,))

    def _play(self, view: View) -> Choice:
        k = view.cards_to_play
        verb = "said" if view.is_party else "tells"
        self._say(f"\n== Round {view.round + 1}: {self._seat_name(view.storyteller)} {verb} "
                  f"{view.clue!r} ==")
        self._show_cards("Your hand", view.hand, sheet="hand")
        what = "a card" if k == 1 else f"{k} different cards"
        if view.can_pass:
            what += f" (or 'pass': your partner, {self._seat_name(view.partner or 0)}, gives "
            what += "the team's card and you vote)"
        while True:
            line = self._ask(f"Play {what} for the clue {view.clue!r} (1-{len(view.hand)}): ")
            if view.can_pass and line.lower() == "pass":
                return Choice(())
            try:
                indexes = self._numbers(line, len(view.hand), exactly=k)
            except IllegalAction as error:
                self._say(f"  not played: {error}")
                continue
            return Choice(tuple(view.hand[i] for i in indexes))

    def _vote(self, view: View) -> Choice:
        goal = ("the image most players will choose (your own is allowed)" if view.is_party
                else "the storyteller's card")
        self._say(f"\n== Round {view.round + 1}: {self._addressed()}vote for {goal}; "
                  f"the clue is {view.clue!r} ==")
        marks = {p: "yours" if p in view.my_positions else "your partner's"
                 for p in view.team_positions}
        self._show_cards("The board", view.board, sheet="board", marks=marks)
        legal = view.legal_vote_positions()
        extra = (" (or two numbers for a second vote)" if view.max_votes > 1 else "")
        while True:
            line = self._ask(f"Your vote{extra}: ")
            try:
                picks = self._numbers(line, len(view.board), at_most=view.max_votes)
                for position in picks:
                    if position not in legal:
                        raise IllegalAction(f"{position + 1} (card {view.board[position]}) is "
                                            f"{marks.get(position, 'not allowed')}; "
                                            f"you may not vote for it")
            except IllegalAction as error:
                self._say(f"  not voted: {error}")
                continue
            return Choice(picks)

    def describe(self) -> dict[str, Any]:
        about: dict[str, Any] = {"name": self.name, "class": "HumanAgent"}
        if self.player is not None:
            about["player"] = self.player
        return about

    # -------------------------------------------------------------------- hot seat

    def _privately(self, decide: Callable[[View], Any], view: View) -> Any:
        """Show the public news, hand the terminal over where several people share it, then
        ask the seat's question; afterwards wipe what only this seat may see."""
        if self.hot_seat is None:
            self._show_last_round(view)
            return decide(view)
        try:
            if self.hot_seat.holder != self.seat:
                self._hand_over(view)
            else:
                self._show_last_round(view)
            return decide(view)
        finally:
            self._wipe()

    def _hand_over(self, view: View) -> None:
        assert self.hot_seat is not None
        if self.hot_seat.holder is not None:  # the first handoff leaves the game's opening lines
            self._clear_screen()
        name = self._seat_name(self.seat)
        self._say(f"\n== Pass the terminal to {name} ==")
        if not self.hot_seat.said_uncleared and not self._clears():
            self.hot_seat.said_uncleared = True
            self._say(f"  (the screen is not cleared between seats: {self._uncleared_reason()}; "
                      "whoever reads this output sees every seat's cards)")
        self._show_last_round(view)  # public: everyone may read it
        self._ask(f"{name}: press Enter when only you can see the screen ('quit' leaves): ")
        self.hot_seat.holder = self.seat

    def _wipe(self) -> None:
        """Clear the screen (on a terminal) and remove the pictures of this decision's cards."""
        self._clear_screen()
        for path in self.sheets:
            path.unlink(missing_ok=True)
        self.sheets.clear()

    def _stream(self) -> TextIO:
        return self.output if self.output is not None else sys.stdout

    def _uncleared_reason(self) -> str:
        """Why the screen cannot be cleared (``""``: it can)."""
        isatty = getattr(self._stream(), "isatty", None)
        if not (callable(isatty) and isatty()):
            return "the output is not a terminal"
        if os.environ.get("TERM", "") in ("", "dumb"):
            return "TERM is unset or 'dumb'"
        return ""

    def _clears(self) -> bool:
        return not self._uncleared_reason()

    def _clear_screen(self) -> None:
        if self._clears():
            stream = self._stream()
            stream.write(CLEAR_SCREEN)
            stream.flush()

    def _addressed(self) -> str:
        """Nothing for one person; ``"human (seat 1), "`` where several share the terminal."""
        return "" if self.hot_seat is None else f"{self._seat_name(self.seat)}, "

    # -------------------------------------------------------------------- showing

    def show_result(self, result: RoundResult, *, party: bool = False,
                    teams: bool = False) -> None:
        """Print a revealed round: whose card was whose, the votes, the points and why.

        The reasons are the rules' named parts of each seat's points, worded
        (:func:`dixit_ai.rules.explain.explain_round`), never recomputed here; where several
        people read them (hot seat) they name the seat ("found Ann's card"), not "your card".
        """
        owner_of = dict(enumerate(result.board_owner))
        voters: dict[int, list[str]] = {}
        for seat, positions in enumerate(result.votes):
            for position in positions:
                voters.setdefault(position, []).append(self._seat_name(seat))
        self._say(f"\n-- Round {result.round + 1} revealed: {self._seat_name(result.storyteller)}"
                  f" told {result.clue!r} --")
        for position, card in enumerate(result.board):
            owner = owner_of[position]
            tag = " (storyteller)" if owner == result.storyteller else ""
            votes = ", ".join(voters.get(position, [])) or "no votes"
            self._say(f"  {position + 1}. {self._label(card)}: {self._seat_name(owner)}{tag}"
                      f" <- {votes}")
        if party:
            if result.red_token is not None:
                self._say(f"  the storyteller's red token: card {result.red_token + 1}")
        else:
            found, guessers = len(result.finders), len(result.voters)
            reason = {"none": "nobody found the storyteller's card",
                      "all": "everybody found the storyteller's card",
                      "some": f"{found} of {guessers} guessers found the storyteller's card",
                      }[result.outcome]
            self._say(f"  {reason}")
        self._say("  points: " + ", ".join(
            f"{self._seat_name(s)} +{p}" for s, p in enumerate(result.points)))
        if result.parts:
            for seat in range(len(result.points)):
                why = "; ".join(f"{points:+d} {reason}" for points, reason in
                                explain_round(result, seat, party=party, teams=teams,
                                              name=self._reason_name(seat)))
                self._say(f"    {self._seat_name(seat)}: {why}")
        self._say("  scores: " + ", ".join(
            f"{self._seat_name(s)} {p}" for s, p in enumerate(result.scores)))

    def _show_last_round(self, view: View) -> None:
        last = view.last_round
        if last is not None and last.round > self.shown_round:
            self.shown_round = last.round
            self.show_result(last, party=view.is_party, teams=view.rules.teams)

    def _show_scores(self, view: View) -> None:
        self._say("  scores: " + ", ".join(
            f"{self._seat_name(s)} {p}" for s, p in enumerate(view.scores)))

    def _show_cards(self, title: str, cards: Sequence[int], *, sheet: str,
                    marks: dict[int, str] | None = None) -> None:
        marks = marks or {}
        self._say(f"{title}:")
        for i, card in enumerate(cards):
            mark = f"  [{marks[i]}]" if i in marks else ""
            self._say(f"  {i + 1}. {self._label(card)}{mark}")
        if self.images_dir is not None and self.deck is not None:
            path = self._write_sheet(cards, sheet)
            self._say(f"  (pictures: {path})")

    def _write_sheet(self, cards: Sequence[int], sheet: str) -> Path:
        from PIL import Image, ImageDraw

        assert self.images_dir is not None
        self.images_dir.mkdir(parents=True, exist_ok=True)
        width, height, gap = 200, 300, 12
        canvas = Image.new("RGB", (gap + len(cards) * (width + gap), height + 2 * gap + 24),
                           (24, 24, 30))
        draw = ImageDraw.Draw(canvas)
        for i, card in enumerate(cards):
            x = gap + i * (width + gap)
            canvas.paste(self.deck.image(card, (width, height)), (x, gap))
            draw.text((x + width // 2 - 4, height + gap + 6), str(i + 1), fill=(236, 236, 240))
        path = self.images_dir / f"{sheet}.png"
        canvas.save(path)
        if self.hot_seat is not None:
            self.sheets.append(path)
        return path

    def _label(self, card: int) -> str:
        if self.deck is None:
            return f"card {card}"
        captions = self.deck.captions(card)
        if captions:
            return f"card {card}: {printable(captions[0])}"
        description = self.deck.description(card)
        if description and description.get("objects"):
            return f"card {card}: " + printable(", ".join(map(str, description["objects"])))
        return f"card {card}"

    def _reason_name(self, seat: int) -> str | None:
        """Who a seat's reasons are about: ``None`` ("your card") for one person; in hot seat
        the seat's name where no other seat has it ("Ann"), else ``"seat 2"``."""
        if self.hot_seat is None:
            return None
        names = self.seat_names or []
        if seat < len(names) and names.count(names[seat]) == 1:
            return names[seat]
        return f"seat {seat}"

    def _seat_name(self, seat: int) -> str:
        if seat == self.seat and self.hot_seat is None:
            return "you"
        if self.seat_names is not None and seat < len(self.seat_names):
            return f"{self.seat_names[seat]} (seat {seat})"
        return f"seat {seat}"

    # -------------------------------------------------------------------- reading

    def _say(self, text: str) -> None:
        print(text, file=self.output if self.output is not None else sys.stdout)

    def _ask(self, prompt: str) -> str:
        if self.interrupted:
            raise HumanQuit(f"seat {self.seat}: interrupted (Ctrl-C)")
        try:
            line = self.input_fn(prompt)
        except EOFError as error:
            raise HumanQuit(f"seat {self.seat}: the input ended") from error
        except KeyboardInterrupt as error:
            # Ctrl-C at a prompt leaves the game as ``quit`` does: the runner records it.
            self.interrupted = True
            raise HumanQuit(f"seat {self.seat}: interrupted (Ctrl-C)") from error
        if line.strip().lower() in QUIT_WORDS:
            raise HumanQuit(f"seat {self.seat} left the game")
        return line.strip()

    @staticmethod
    def _number(text: str, n: int) -> int:
        try:
            value = int(text)
        except ValueError:
            raise IllegalAction(f"{text!r} is not a card number (1-{n})") from None
        if not 1 <= value <= n:
            raise IllegalAction(f"{value} is not between 1 and {n}")
        return value - 1

    def _numbers(self, line: str, n: int, *, exactly: int | None = None,
                 at_most: int | None = None) -> tuple[int, ...]:
        parts = line.replace(",", " ").split()
        if not parts:
            raise IllegalAction("give a card number")
        picks = tuple(self._number(p, n) for p in parts)
        if len(set(picks)) != len(picks):
            raise IllegalAction("the same card twice")
        if exactly is not None and len(picks) != exactly:
            raise IllegalAction(f"give exactly {exactly} card number(s), not {len(picks)}")
        if at_most is not None and len(picks) > at_most:
            raise IllegalAction(f"at most {at_most} vote(s), not {len(picks)}")
        return picks
