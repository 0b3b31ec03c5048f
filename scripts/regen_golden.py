"""Regenerate the golden playthroughs in tests/golden/ (one seeded game per edition).

Run it after a deliberate change of the rules or the record format, read the diff, and commit
the new files with the change that explains them:

    python scripts/regen_golden.py
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dixit_ai import play_game, transcript
from dixit_ai.agents import RandomAgent
from dixit_ai.reporting import check_folder_path

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"

# (edition, players, seed, rule overrides): one game per edition, plus the rules' corners.
GAMES: list[tuple[str, int, int, dict[str, object]]] = [
    ("original-2008", 3, 2008, {}),
    ("refresh-2021", 5, 2021, {}),
    ("odyssey-2011", 7, 2011, {}),
    ("odyssey-2011", 6, 2012, {"teams": True}),
    ("odyssey-2024", 4, 2024, {}),
    ("odyssey-2011", 7, 2013, {"mode": "party"}),
]


def golden_name(edition: str, n_players: int, overrides: dict[str, Any]) -> str:
    suffix = "-teams" if overrides.get("teams") else (
        "-party" if overrides.get("mode") == "party" else "")
    return f"{edition}-{n_players}p{suffix}.txt"


def golden_transcript(edition: str, n_players: int, seed: int,
                      overrides: dict[str, Any]) -> str:
    record = play_game([RandomAgent() for _ in range(n_players)], edition=edition,
                       deck=range(84), seed=seed, **overrides)
    return transcript(record)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Regenerate the golden playthroughs.")
    parser.add_argument("--out", type=Path, default=GOLDEN, help="folder (default tests/golden)")
    out = parser.parse_args(argv).out
    try:
        check_folder_path(out, "--out")  # a file there: exit 2, nothing written
        out.mkdir(parents=True, exist_ok=True)
    except (ValueError, OSError) as error:
        parser.error(str(error))
    for edition, n, seed, overrides in GAMES:
        path = out / golden_name(edition, n, overrides)
        path.write_text(golden_transcript(edition, n, seed, overrides), encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
