"""A run folder's config.json with a setting of the wrong type (edited by hand, or corrupted)
is refused naming the file and the setting, for --resume and --analyse (exit 2) and replay (the
rules' check made, the schedule's not: exit 1), no traceback, nothing changed (a text game count
was a TypeError traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import dixit, files_in


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    result = dixit("tournament", "--agents", "random,random-teller", "--players", "3",
                   "--games", "2", "--deck", "dream:size=40", "--workers", "1",
                   "--resamples", "5", "--rating-resamples", "0", "--no-progress",
                   "--out", str(root), cwd=root)
    assert result.returncode == 0, result.output
    (folder,) = root.glob("tournament__*")
    return folder


@pytest.mark.parametrize(("key", "value", "named"), [
    ("games", "many", "games must be an integer of at least 1, not 'many'"),
    ("players", 2.5, "players must be an integer of at least 1, not 2.5"),
    ("seed", "x", "seed must be an integer of at least 0, not 'x'"),
])
@pytest.mark.parametrize("command", ["--resume", "--analyse", "replay"])
def test_a_config_with_a_setting_of_the_wrong_type_is_refused(
        run_folder: Path, tmp_path: Path, key: str, value: object, named: str,
        command: str) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    for path in run_folder.iterdir():
        (folder / path.name).write_bytes(path.read_bytes())
    data = json.loads((folder / "config.json").read_text())
    data["config"][key] = value
    (folder / "config.json").write_text(json.dumps(data))
    before = {path: path.read_bytes() for path in folder.iterdir()}
    args = {"--resume": ("tournament", "--resume", "run", "--no-progress"),
            "--analyse": ("tournament", "--analyse", "run", "--out", "report"),
            "replay": ("replay", "run/games.jsonl")}[command]
    result = dixit(*args, cwd=tmp_path)
    assert "Traceback" not in result.output
    if command == "replay":  # the records are checked; the schedule could not be: a failure
        assert result.returncode == 1, result.output
        assert "every record matches the rules" in result.stdout, result.stdout
        assert f"NOT CHECKED: {Path('run') / 'games.jsonl'}" in result.stderr, result.stderr
        assert f"{named}" in result.stderr, result.stderr
    else:
        assert result.returncode == 2, result.output
        assert f"{Path('run') / 'config.json'}: {named}" in result.stderr, result.stderr
    assert {path: path.read_bytes() for path in folder.iterdir()} == before
    assert files_in(tmp_path) == {f"run/{name}" for name in files_in(folder)}
