"""A resume on a deck whose content changed since the run started is refused."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from dixit_ai.decks import load_deck
from dixit_ai.tournament import ResumeError, run_tournament
from dixit_ai.tournament.deck_check import deck_identity
from tests.decks.helpers import picture, write_folder
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}
NAMES = [f"card{i:02d}.png" for i in range(40)]


def started(tmp_path: Path, played: int = 3) -> tuple[Path, Path, str]:
    """A folder deck and a run on it interrupted after ``played`` games."""
    cards = tmp_path / "cards"
    write_folder(cards, NAMES)
    config = random_config(deck=f"folder:{cards}")
    run = run_tournament(config, out=tmp_path / "runs", stop_after=played, **QUICK)
    return cards, run.folder, config.deck


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_the_run_keeps_its_decks_content(tmp_path):
    cards, folder, _ = started(tmp_path)
    kept = json.loads((folder / "config.json").read_text())["deck"]
    deck = load_deck(f"folder:{cards}")
    assert kept == deck_identity(deck)
    assert kept["fingerprint"] == deck.fingerprint and kept["size"] == 40
    assert list(kept["cards"]) == NAMES


@pytest.mark.parametrize(("change", "said"), [
    (lambda cards: picture(99).save(cards / "card05.png"),
     r"1 card with another image \(card05.png\)"),
    (lambda cards: picture(98).save(cards / "extra.png"),
     r"40 cards then, 41 now; 1 card added \(extra.png\)"),
    (lambda cards: (cards / "card07.png").unlink(),
     r"40 cards then, 39 now; 1 card removed \(card07.png\)"),
    (lambda cards: (cards / "captions.json").write_text('{"card01.png": "a lamp"}'),
     r"1 card with other captions or description \(card01.png\)"),
])
def test_a_resume_on_changed_deck_files_is_refused_and_changes_nothing(tmp_path, change, said):
    cards, folder, spec = started(tmp_path)
    before = snapshot(folder)
    change(cards)
    with pytest.raises(ResumeError, match=rf"the deck 'folder:.*cards' is not the deck this run "
                                          rf"was started on: .*{said}.*start a new run"):
        run_tournament(random_config(deck=spec), resume=folder, **QUICK)
    assert snapshot(folder) == before


def test_a_resume_on_the_same_deck_goes_on(tmp_path):
    cards, folder, spec = started(tmp_path)
    (cards / "notes.txt").write_text("not a card")  # not part of the deck
    run = run_tournament(random_config(deck=spec), resume=folder, **QUICK)
    assert run.already == 3 and run.played == 9


def old_run(tmp_path: Path, played: int) -> tuple[Path, Path, str]:
    """A run whose config.json was written before it kept the deck's content."""
    cards, folder, spec = started(tmp_path, played)
    data = json.loads((folder / "config.json").read_text())
    del data["deck"]
    (folder / "config.json").write_text(json.dumps(data))
    return cards, folder, spec


def test_an_older_run_is_checked_against_its_records(tmp_path):
    cards, folder, spec = old_run(tmp_path, 3)
    before = snapshot(folder)
    picture(99).save(cards / "card05.png")
    with pytest.raises(ResumeError, match=r"is not the deck this run's games were played on: "
                                          r"its images have fingerprint \w+ now, and of the "
                                          r"recorded games 3 on \w+"):
        run_tournament(random_config(deck=spec), resume=folder, **QUICK)
    assert snapshot(folder) == before


def test_an_older_run_whose_records_match_goes_on_silently(tmp_path):
    _, folder, spec = old_run(tmp_path, 3)
    lines: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = run_tournament(random_config(deck=spec), resume=folder, log=lines.append,
                             stop_after=1, **QUICK)
    assert run.played == 1 and not [line for line in lines if "warning" in line]


def test_an_older_run_that_cannot_be_checked_goes_on_with_a_warning(tmp_path):
    _, folder, spec = old_run(tmp_path, 2)
    path = folder / "games.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        del record["header"]["deck"]["fingerprint"]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    lines: list[str] = []
    run = run_tournament(random_config(deck=spec), resume=folder, log=lines.append,
                         stop_after=1, **QUICK)
    assert run.played == 1
    assert any(line.startswith("warning:") and "2 of its game records carry no deck "
               "fingerprint" in line and "could not be checked" in line for line in lines)
    with pytest.warns(UserWarning, match="could not be checked"):
        run_tournament(random_config(deck=spec), resume=folder, stop_after=0, **QUICK)


def test_an_extended_older_run_keeps_the_deck_from_then_on(tmp_path):
    cards, folder, spec = old_run(tmp_path, 12)
    run_tournament(random_config(deck=spec, games=13), resume=folder, stop_after=0, **QUICK)
    assert "deck" in json.loads((folder / "config.json").read_text())
    (cards / "card00.png").unlink()
    with pytest.raises(ResumeError, match=r"1 card removed \(card00.png\)"):
        run_tournament(random_config(deck=spec, games=13), resume=folder, **QUICK)


def test_a_malformed_deck_entry_is_refused(tmp_path):
    _, folder, spec = started(tmp_path)
    data = json.loads((folder / "config.json").read_text())
    data["deck"]["cards"] = ["card00.png"]
    (folder / "config.json").write_text(json.dumps(data))
    with pytest.raises(ResumeError, match=r"config.json: its 'deck' entry is not a deck's"):
        run_tournament(random_config(deck=spec), resume=folder, **QUICK)
