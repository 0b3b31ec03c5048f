"""Helpers the players' scripts share: seeded tables of agents, and per-round statistics."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from dixit_ai import GameRecord, play_game
from dixit_ai.agents import make_agent
from dixit_ai.match import game_seeds
from models.players.calibration import observed_guess_rate


def play_table(
    agent_names: Sequence[str],
    *,
    n_games: int | None = None,
    min_rounds: int | None = None,
    seed: int = 0,
    edition: str = "refresh-2021",
    deck: str = "dream",
    rotate: bool = True,
    overrides: dict[str, Any] | None = None,
    progress: Callable[[int, GameRecord], None] | None = None,
    max_games: int = 10_000,
) -> list[GameRecord]:
    """Play seeded games of the named agents (one per seat), rotating seats game by game.

    Args:
        agent_names: Registry names, one per seat.
        n_games: Games to play; or
        min_rounds: play until at least this many rounds have been played.
        seed: The run's seed (each game's seed derives from it).
        edition: The edition.
        deck: The deck spec (given to the agents too).
        rotate: Shift the seating by one each game, so every agent sits everywhere.
        overrides: Keyword arguments for every ``make_agent`` call (``clip-*`` agents).
        progress: Called after each game with its index and record.
        max_games: A safety bound when playing by ``min_rounds``.
    """
    if (n_games is None) == (min_rounds is None):
        raise ValueError("give exactly one of n_games and min_rounds")
    overrides = dict(overrides or {})
    agents = [make_agent(name, **({"deck": deck, **overrides} if name != "random" else {}))
              for name in agent_names]
    limit = n_games if n_games is not None else max_games
    records: list[GameRecord] = []
    rounds = 0
    for index, game_seed in enumerate(game_seeds(seed, limit)):
        shift = index % len(agents) if rotate else 0
        seated = agents[shift:] + agents[:shift]
        record = play_game(seated, edition=edition, deck=deck, seed=game_seed, writable=True)
        records.append(record)
        rounds += len(record.rounds)
        if progress is not None:
            progress(index, record)
        if min_rounds is not None and rounds >= min_rounds:
            break
    return records


def run_games(play: Callable[[Any], dict[str, Any]], tasks: Sequence[Any], *, workers: int,
              records: str | Path) -> list[dict[str, Any]]:
    """Play a study's games: ``play(task)`` for every task, on ``workers`` processes (1: in
    this process), each result's ``"record"`` (a game record's JSON) written as a line of
    ``records``; a progress line every 20 games and at the last.

    Returns:
        The results without their records, in task order.
    """
    results: list[dict[str, Any]] = []
    start = time.perf_counter()
    with Path(records).open("w", encoding="utf-8") as out:
        pool = ProcessPoolExecutor(workers) if workers > 1 else None
        try:
            done = map(play, tasks) if pool is None else pool.map(play, tasks, chunksize=4)
            for n, result in enumerate(done, 1):
                out.write(result.pop("record") + "\n")
                results.append(result)
                if n % 20 == 0 or n == len(tasks):
                    print(f"  {n}/{len(tasks)} games, {time.perf_counter() - start:.0f} s",
                          flush=True)
        finally:
            if pool is not None:
                pool.shutdown()
    return results


def round_rows(records: Sequence[GameRecord]) -> list[dict[str, Any]]:
    """One row per round: storyteller's agent name, predicted and observed guess rate, success,
    storyteller points, and guesser votes on the storyteller's card (found / cast)."""
    rows = []
    for record in records:
        names = [str(a.get("name", "?")) for a in record.header["agents"]]
        for rnd in record.rounds:
            rate = observed_guess_rate(rnd)
            if rate is None:
                continue
            position = rnd.board.index(rnd.storyteller_card)
            cast = sum(len(v) for v in rnd.votes.values())
            on_card = sum(position in v for v in rnd.votes.values())
            rows.append({
                "seed": record.seed, "round": rnd.round, "storyteller": names[rnd.storyteller],
                "clue": rnd.clue, "predicted": rnd.predicted_guess_rate, "observed": rate,
                "success": 0.0 < rate < 1.0, "storyteller_points": rnd.points[rnd.storyteller],
                "votes_on_card": on_card, "votes_cast": cast, "voters": len(rnd.votes),
                "board_size": len(rnd.board),
            })
    return rows


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return (centre - half, centre + half)


def readable_game(record: GameRecord) -> str:
    """A Markdown account of one game: clues, predicted and observed guess rates, votes, scores."""
    names = [str(a.get("name", "?")) for a in record.header["agents"]]
    lines = [
        f"# A game of {', '.join(names)}",
        "",
        f"Edition `{record.header['edition']}`, {record.n_players} players, seed "
        f"{record.seed}, deck `{record.header['deck'].get('spec')}`. Seats: "
        + ", ".join(f"{i} = `{n}`" for i, n in enumerate(names)) + ".",
        "",
        "Each round: the storyteller's card and clue, its predicted guess rate (the probability "
        "that a guesser finds its card, by simulation) and the observed one, then who voted for "
        "which card and the scores.",
        "",
    ]
    for rnd in record.rounds:
        rate = observed_guess_rate(rnd)
        position = rnd.board.index(rnd.storyteller_card)
        notes = rnd.notes.get(str(rnd.storyteller), {}).get("tell", {})
        predicted = "-" if rnd.predicted_guess_rate is None else f"{rnd.predicted_guess_rate:.2f}"
        lines += [
            f"## Round {rnd.round + 1}: seat {rnd.storyteller} (`{names[rnd.storyteller]}`) "
            f"tells \"{rnd.clue}\"",
            "",
            f"- card {rnd.storyteller_card}; predicted guess rate {predicted}, observed "
            f"{rate:.2f} ({sum(position in v for v in rnd.votes.values())} of "
            f"{len(rnd.votes)} voters found it)",
        ]
        if notes.get("runner_ups"):
            lines.append("- runner-up clues: " + "; ".join(
                f"\"{r['clue']}\" (card {r['card']}, {r['guess_rate']:.2f})"
                for r in notes["runner_ups"]))
        lines.append("- board: " + ", ".join(
            f"{card}{'*' if owner == rnd.storyteller else ''} (seat {owner})"
            for card, owner in zip(rnd.board, rnd.board_owner, strict=True))
            + "  (* the storyteller's)")
        lines.append("- votes: " + ", ".join(
            f"seat {seat} -> {'/'.join(str(rnd.board[p]) for p in v)}"
            f"{' (found)' if position in v else ''}" for seat, v in sorted(rnd.votes.items())))
        lines.append("- points: " + " ".join(f"{p:+d}" for p in rnd.points)
                     + "; scores: " + " ".join(map(str, rnd.scores)))
        lines.append("")
    lines.append(f"**Final scores** {record.final_scores}; winner(s): seat(s) "
                 + ", ".join(map(str, record.winners)) + ".")
    return "\n".join(lines) + "\n"
