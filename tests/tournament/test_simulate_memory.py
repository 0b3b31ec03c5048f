"""``dixit-ai simulate`` keeps no game's record once it is counted and written: a long run
(up to 10,000,000 games, ~50 KB a record) would otherwise grow until memory runs out. Its
summary and failure lines are the same as when it kept them."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import dixit_ai.cli.simulate as simulate
from dixit_ai.cli import main


def test_played_records_are_not_kept(tmp_path, monkeypatch, capsys):
    alive: list[weakref.ref[Any]] = []
    most = [0]
    real = simulate.play_game

    def play(*args: Any, **kwargs: Any) -> Any:
        gc.collect()
        most[0] = max(most[0], sum(ref() is not None for ref in alive))
        record = real(*args, **kwargs)
        alive.append(weakref.ref(record))
        return record

    monkeypatch.setattr(simulate, "play_game", play)
    out = tmp_path / "games.jsonl"
    assert main(["simulate", "--games", "6", "--players", "3", "--no-progress",
                 "--out", str(out)]) == 0
    assert most[0] <= 1  # at most the game just played, while the next one starts
    assert len(out.read_text().splitlines()) == 6
    printed = capsys.readouterr().out
    assert "games: 6 (6 complete, 0 aborted, 0 truncated); agent failures: 0" in printed


def test_the_summary_is_the_records_summary(tmp_path, capsys):
    from dixit_ai.records import GameRecord

    out = tmp_path / "games.jsonl"
    assert main(["simulate", "--games", "5", "--players", "4", "--seed", "3",
                 "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    records = [GameRecord.from_json(line) for line in out.read_text().splitlines()]
    rounds = sum(len(r.rounds) for r in records)
    assert f"rounds: {rounds} (mean {rounds / 5:.1f} per game)" in printed
    for seat in range(4):
        mean = sum(r.final_scores[seat] for r in records) / 5
        wins = sum(1 / len(r.winners) for r in records if seat in r.winners) / 5
        assert f"{seat:>4}  random  {mean:>10.2f}  {wins:>9.3f}" in printed


def test_the_failure_lines_are_those_of_every_record():
    from dataclasses import replace

    from dixit_ai.cli.common import FAILURES_SHOWN, failure_lines
    from dixit_ai.records import Failure

    from .helpers import game

    def failing(count: int, seat: int) -> Any:
        return replace(game(["a", "b", "c"], [3, 2, 1], seed=seat),
                       failures=[Failure(seat=seat, round=r, phase="vote", reason=f"r{r}",
                                         error="ValueError", action=None, penalty="forfeit")
                                 for r in range(count)])

    plain = game(["a", "b", "c"], [3, 2, 1])
    records = [plain, failing(2, 1), plain, plain, failing(3, 2), failing(4, 0), plain]
    tally = simulate.Tally(3)
    for record in records:
        tally.add(record)
    assert tally.failures == 9 and len(tally.shown) == 2 < FAILURES_SHOWN + 1
    assert tally.failure_lines() == failure_lines(records)
