"""An agent the schedule gives no seat (too few games for every agent to sit) stands last with
no figures and is named, at the start and in the report, rather than vanish from the results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.tournament.schedule import games_to_seat_everyone, make_schedule, unseated

AGENTS = ["a", "b", "c", "d", "e"]


@pytest.mark.parametrize(("n_agents", "seats"), [(5, 3), (7, 4), (3, 4), (12, 5), (2, 2)])
def test_the_fewest_games_that_seat_everyone(n_agents: int, seats: int) -> None:
    agents = [f"x{i}" for i in range(n_agents)]
    needed = games_to_seat_everyone(n_agents, seats)
    for seed in range(4):
        assert unseated(make_schedule(agents, seats=seats, n_games=needed, seed=seed),
                        agents) == []
        if needed > 1:
            assert unseated(make_schedule(agents, seats=seats, n_games=needed - 1, seed=seed),
                            agents)


def test_agents_without_a_seat_stand_last_and_are_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = ",".join(f"{label}=random" for label in AGENTS)
    assert main(["tournament", "--agents", spec, "--players", "3", "--games", "1",
                 "--seed", "0", "--workers", "1", "--no-progress", "--resamples", "20",
                 "--rating-resamples", "0", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    (run,) = tmp_path.iterdir()
    results = json.loads((run / "results.json").read_text())
    standings = results["standings"]
    assert sorted(s["agent"] for s in standings) == AGENTS   # every entrant, seated or not
    left = [s["agent"] for s in standings if s["seat_games"] == 0]
    assert len(left) == 2 and [s["agent"] for s in standings[-2:]] == left
    note = (f"2 of the 5 agents had no seat in the 1 game ({', '.join(sorted(left))}): each "
            "deal seats 3 agents, those that played least first; 4 games or more give every "
            "agent a seat")
    assert f"note: {note}; they stand last, with no figures" in err.replace("\n", " ")
    assert note in (run / "report.md").read_text()
    # --analyse says it too, and a run that seats everyone says nothing of the kind
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "again")]) == 0
    assert f"warning: {note}; the report says so" in capsys.readouterr().err.replace("\n", " ")
    assert main(["tournament", "--resume", str(run), "--games", "4", "--no-progress"]) == 0
    assert "had no seat" not in capsys.readouterr().err
    assert "had no seat" not in (run / "report.md").read_text()
    standings = json.loads((run / "results.json").read_text())["standings"]
    assert all(s["seat_games"] > 0 for s in standings)
