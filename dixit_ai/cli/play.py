"""``dixit-ai play``: a game in the terminal, people against bots.

Each ``human`` seat is a person at this terminal (:class:`dixit_ai.agents.human.HumanAgent`); the
other seats are registry agents. The cards each person is shown are listed with their captions and
drawn to ``hand.png`` and ``board.png`` in the images folder. The game's record is written at the
end (also when someone quits, with ``quit``, Ctrl-D or Ctrl-C, at a prompt or while a bot decides:
the record then says so; Ctrl-C exits 130), atomically, and ``dixit-ai replay`` checks it.

Several ``human`` seats share the terminal (hot seat): before each person's cards are shown, a
handoff screen asks that seat to take the terminal and press Enter, and on a terminal the
previous person's screen (and its scrollback) is cleared and the pictures of its cards removed.

A person may be named, ``human:Ann``: the name is shown in prompts, handoffs and reveals and
recorded as the agent's name (``human:Ann``), so that the votes of different people can be told
apart in the records (``fit_calibration.py --voters human``).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from pathlib import Path
from typing import Any

from dixit_ai.agents import make_agent_for_deck, prepare_agents
from dixit_ai.agents.base import Agent
from dixit_ai.agents.human import HotSeat, HumanAgent
from dixit_ai.agents.requirements import check_agent_requirements
from dixit_ai.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    check_out_file,
    print_failures,
    progress_line,
    rule_argument,
    running,
)
from dixit_ai.decks import load_deck
from dixit_ai.match import GameInterrupted, needs_party_methods, play_game
from dixit_ai.reporting import write_text
from dixit_ai.rules import EDITIONS, RuleSet
from dixit_ai.rules.text import text_problem

HUMAN = "human"
#: The longest name a person may give (as long as a web table's player names).
MAX_PLAYER_NAME = 40


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play", help="play a game in the terminal against bots",
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seats", required=True,
                        help="comma-separated seats, one name a seat: 'human' or 'human:NAME' "
                             "(a person at this terminal, named in prompts and the record; "
                             "several take turns at it, each asked to take it before seeing "
                             "its cards) or a registry agent (`dixit-ai agents`), e.g. "
                             "human:Ann,human:Bo,clip-greedy,clip-expected")
    parser.add_argument("--edition", default="refresh-2021", choices=EDITIONS,
                        help="edition of the rules (default: %(default)s)")
    parser.add_argument("--deck", default="dream", help="deck spec (default: dream)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the game's seed (default: a fresh one, printed)")
    parser.add_argument("--rule", type=rule_argument, action="append", default=[],
                        metavar="KEY=VALUE", help="override a rule, e.g. --rule score_limit=15")
    parser.add_argument("--images", type=Path, default=Path("dixit-cards"),
                        help="folder for the card pictures shown to you (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write the game record (default: game-SEED.json)")
    parser.set_defaults(func=run)


def is_person(seat: str) -> bool:
    """Whether a seat of ``--seats`` is a person (``human`` or ``human:NAME``)."""
    return seat == HUMAN or seat.startswith(f"{HUMAN}:")


def person_name(seat: str) -> str | None:
    """The name of a named person's seat (``human:Ann``: ``Ann``); ``None`` otherwise."""
    return seat.split(":", 1)[1] if is_person(seat) and ":" in seat else None


def seat_labels(seats: list[str]) -> list[str]:
    """What each seat is called on screen: a person's name, ``human``, or the bot's name."""
    return [person_name(seat) or (HUMAN if is_person(seat) else seat) for seat in seats]


def make_seat_agents(seats: list[str], deck_spec: str, *, images: Path | None,
                     deck: Any = None) -> list[Agent]:
    """One agent per seat: people for ``human`` (or ``human:NAME``), registry agents (on the
    game's deck) otherwise.

    Several people share one :class:`HotSeat`, which hands the terminal from one to the next.
    """
    hot_seat = HotSeat() if sum(map(is_person, seats)) > 1 else None
    labels = seat_labels(seats)
    agents: list[Agent] = []
    for seat in seats:
        if is_person(seat):
            agents.append(HumanAgent(deck=deck if deck is not None else deck_spec,
                                     images_dir=images, seat_names=labels, hot_seat=hot_seat,
                                     player=person_name(seat)))
        else:
            agents.append(make_agent_for_deck(seat, deck_spec))
    return agents


def prepare_images(folder: Path) -> None:
    """Make the ``--images`` folder (and its parents) if need be, and check that it is writable.

    Raises:
        ValueError: the folder cannot be made, is a file, or cannot be written.
    """
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--images {folder} is a file, not a folder; give a folder for the "
                         "card pictures")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        raise ValueError(f"--images {folder}: cannot make the folder ({reason})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--images {folder}: cannot write there (permission denied)")


def parse_seats(text: str) -> list[str]:
    """The seats of ``--seats``, one name a seat; a named person's as ``human:NAME`` (the name
    stripped of the blanks around it).

    Raises:
        ValueError: a seat is empty (``human,,random``: a seat would silently be dropped), or is
            ``human`` in other letters (``Human``); a person's name is empty, is not one line of
            visible text (:func:`~dixit_ai.rules.text.text_problem`), is longer than
            :data:`MAX_PLAYER_NAME`, or is another seat's name (in any letter case).
    """
    seats = [name.strip() for name in text.split(",")]
    for seat, name in enumerate(seats):
        if not name and any(seats):
            raise ValueError(f"--seats {text!r}: seat {seat} is empty; give one name a seat, "
                             "comma-separated")
        kind, colon, player = name.partition(":")
        if kind.strip().lower() != HUMAN:
            continue
        if kind.strip() != HUMAN:
            raise ValueError(f"--seats {text!r}: seat {seat} is {name!r}; a person's seat is "
                             f"spelled {HUMAN!r}")
        if not colon:
            continue
        player = player.strip()
        if not player:
            raise ValueError(f"--seats {text!r}: seat {seat}'s name is empty; give a name after "
                             f"'{HUMAN}:', or write '{HUMAN}' alone")
        problem = text_problem(player)
        if problem is not None:
            raise ValueError(f"--seats {text!r}: seat {seat}'s name {problem}")
        if len(player) > MAX_PLAYER_NAME:
            raise ValueError(f"--seats {text!r}: seat {seat}'s name has {len(player)} "
                             f"characters; the limit is {MAX_PLAYER_NAME}")
        seats[seat] = f"{HUMAN}:{player}"
    seats = [name for name in seats if name]
    labels = seat_labels(seats)
    for seat, name in enumerate(seats):
        named = person_name(name)
        if named is None:
            continue
        for other, label in enumerate(labels):
            if other == seat or label.casefold() != named.casefold():
                continue
            if person_name(seats[other]) is not None:
                first, second = sorted((seat, other))
                raise ValueError(f"--seats {text!r}: seats {first} and {second} are both named "
                                 f"{labels[first]!r}; give each person a different name")
            raise ValueError(f"--seats {text!r}: seat {seat}'s name {named!r} is also seat "
                             f"{other}'s; give the person a name no other seat has")
    return seats


def run(args: argparse.Namespace) -> int:
    seats = parse_seats(args.seats)
    labels = seat_labels(seats)
    if not any(map(is_person, seats)):
        raise ValueError("--seats needs at least one 'human' seat "
                         "(use `dixit-ai simulate` for games among bots)")
    # Every bot's entry exists and its packages are installed, before anything is loaded, made,
    # embedded, drawn or asked: unknown names and missing packages are named here (exit 2).
    check_agent_requirements(name for name in seats if not is_person(name))
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be non-negative, not {args.seed}")
    overrides = dict(args.rule)
    rules = RuleSet.edition(args.edition, **overrides)
    rules.check_players(len(seats))
    deck = load_deck(args.deck)
    rules.check_deck(len(seats), len(deck.card_ids))
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    out = args.out or Path(f"game-{seed}.json")
    # Both paths are checked before the game (--out here, --images made below): a record that
    # cannot be written at the end, or pictures that cannot be drawn at round 0, lose the game.
    check_out_file(out)
    print(f"Dixit ({args.edition}), {len(seats)} seats: {', '.join(seats)}; seed {seed}")
    named = any(person_name(name) for name in seats)
    people_seats = [f"{labels[seat]} (seat {seat})" if named else str(seat)
                    for seat, name in enumerate(seats) if is_person(name)]
    if len(people_seats) > 1:
        print(f"{'' if named else 'Seats '}{', '.join(people_seats[:-1])} and "
              f"{people_seats[-1]} share this terminal: "
              "each is asked to take it before its cards are shown, and its pictures are "
              "removed once it has answered.")
    agents = make_seat_agents(seats, args.deck, images=args.images, deck=deck)
    needs_party_methods(agents, rules)  # a bot that cannot play Party is bad input (exit 2)
    # One-time steps of the bots (loading a model, embedding a new deck's cards) say what they
    # do, rather than a silence before the first question.
    prepare_agents(sorted({name for name in seats if not is_person(name)}), deck=args.deck,
                   progress=progress_line)
    prepare_images(args.images)  # made once the agents are: a failure before leaves no folder
    print(f"Card pictures go to {args.images}/ (hand.png, board.png). Type 'quit' to leave.")
    # The game begins: from here on an error (pictures or the record that cannot be written)
    # is a failure of the run (exit 1), not bad input.
    with running(f"playing the game and writing its record to {out}"):
        try:
            record = play_game(agents, edition=args.edition, deck=deck, seed=seed,
                               writable=True, **overrides)
            interrupted = False
        except GameInterrupted as stop:  # Ctrl-C while a bot decided: the game so far is kept
            record, interrupted = stop.record, True

        people = [agent for agent in agents if isinstance(agent, HumanAgent)]
        if record.rounds and people and people[0].shown_round < record.rounds[-1].round:
            # Under the game's own rules, as the rounds before were shown (a Party round has a
            # red token and no storyteller's card to find; a team round its own reasons).
            people[0].show_result(record.rounds[-1].to_result(), party=rules.mode == "party",
                                  teams=rules.teams)
        print()
        if record.status == "complete":
            names = [f"{labels[s]} (seat {s})" for s in record.winners]
            print("Final scores: " + ", ".join(
                f"{labels[s]} (seat {s}) {score}" for s, score in enumerate(record.final_scores)))
            print(("Winners: " if len(names) > 1 else "Winner: ") + ", ".join(names))
        else:
            reasons = "; ".join(f.reason for f in record.failures)
            print(f"The game stopped ({record.status}): {reasons}")
        print_failures([record])
        write_text(out, record.to_json() + "\n")  # atomically: a failure leaves no partial file
    print(f"Record: {out} (check it with `dixit-ai replay {out}`)")
    if interrupted or any(person.interrupted for person in people):
        print("dixit-ai play: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK if record.status == "complete" else EXIT_FAILED
