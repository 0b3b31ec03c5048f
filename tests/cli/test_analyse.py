"""Issue 16, items 3-4: analyses refuse record files they cannot trust, and write where told.

Every test runs the console script in a folder of its own and checks the exit status, the
message and the files left behind.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import dixit, files_in

QUICK = ["--resamples", "50", "--rating-resamples", "0"]


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    """A finished 6-game tournament of random agents (its run folder)."""
    root = tmp_path_factory.mktemp("tournament")
    result = dixit("tournament", "--agents", "random,b=random", "--players", "3", "--games",
                   "6", "--workers", "1", "--no-progress", "--out", "runs", *QUICK, cwd=root)
    assert result.returncode == 0, result.output
    (folder,) = (root / "runs").iterdir()
    return folder


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    """A small benchmark of the random agent (its run folder)."""
    pytest.importorskip("models.bench")
    root = tmp_path_factory.mktemp("bench")
    result = dixit("bench", "--models", "random", "--tasks", "guess", "--items", "3",
                   "--no-progress", "--bootstrap", "50", cwd=root)
    assert result.returncode == 0, result.output
    (folder,) = (root / "runs").iterdir()
    return folder


def copy(folder: Path, target: Path) -> Path:
    shutil.copytree(folder, target)
    return target


def test_a_torn_last_record_is_refused(tournament, tmp_path):
    run = copy(tournament, tmp_path / "run")
    games = run / "games.jsonl"
    data = games.read_bytes()
    games.write_bytes(data[:-200])  # the last line lost its end
    before = files_in(tmp_path)
    result = dixit("tournament", "--analyse", str(run), *QUICK, cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert f"{games}, line 6: incomplete last line" in result.stderr
    assert "--allow-partial" in result.stderr and "Traceback" not in result.output
    assert files_in(tmp_path) == before  # no report, no new run folder


def test_allow_partial_drops_and_says_so(tournament, tmp_path):
    run = copy(tournament, tmp_path / "run")
    games = run / "games.jsonl"
    games.write_bytes(games.read_bytes()[:-200])
    result = dixit("tournament", "--analyse", str(run), "--allow-partial", "--out", "report",
                   *QUICK, cwd=tmp_path)
    assert result.returncode == 0, result.output
    assert "1 unreadable record(s)" in result.stderr
    results = json.loads((tmp_path / "report" / "results.json").read_text())
    assert results["games"] == 5 and results["dropped_records"] == 1
    assert "1 unreadable record dropped" in (tmp_path / "report" / "report.md").read_text()


@pytest.mark.parametrize(("damage", "message"), [
    (lambda lines: [], "no game record to analyse (the file is empty)"),
    (lambda lines: [lines[0], lines[1][:50], *lines[2:]], "games.jsonl, line 2: not valid JSON"),
    (lambda lines: [*lines, lines[0]], "games.jsonl, line 7: game 0 is recorded twice"),
])
def test_empty_or_corrupt_records_are_refused(tournament, tmp_path, damage, message):
    run = copy(tournament, tmp_path / "run")
    games = run / "games.jsonl"
    lines = games.read_text().splitlines()
    games.write_text("".join(line + "\n" for line in damage(lines)))
    before = files_in(tmp_path)
    result = dixit("tournament", "--analyse", str(run), "--out", "elsewhere", *QUICK,
                   cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert files_in(tmp_path) == before


def test_a_records_file_given_as_a_path_is_read_as_strictly(tournament, tmp_path):
    records = tmp_path / "some.jsonl"
    records.write_bytes((tournament / "games.jsonl").read_bytes()[:-10])
    result = dixit("tournament", "--analyse", str(records), *QUICK, cwd=tmp_path)
    assert result.returncode == 2
    assert f"{records}, line 6: incomplete last line" in result.stderr
    assert files_in(tmp_path) == {"some.jsonl"}


def test_analyse_writes_where_out_says_and_never_over_a_report(tournament, tmp_path):
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_bytes((tournament / "games.jsonl").read_bytes())
    first = dixit("tournament", "--analyse", "a.jsonl", "--out", "report", *QUICK,
                  cwd=tmp_path)
    assert first.returncode == 0, first.output
    report = (tmp_path / "report" / "report.md").read_bytes()
    assert b"a.jsonl" in report
    second = dixit("tournament", "--analyse", "b.jsonl", "--out", "report", *QUICK,
                   cwd=tmp_path)
    assert second.returncode == 2
    assert "report already holds a report" in second.stderr and "--overwrite" in second.stderr
    assert (tmp_path / "report" / "report.md").read_bytes() == report  # not replaced
    third = dixit("tournament", "--analyse", "b.jsonl", "--out", "report", "--overwrite",
                  *QUICK, cwd=tmp_path)
    assert third.returncode == 0 and b"b.jsonl" in (tmp_path / "report" / "report.md").read_bytes()
    # Without --out: a new run folder each time, never next to the records.
    for _ in range(2):
        assert dixit("tournament", "--analyse", "a.jsonl", *QUICK, cwd=tmp_path).returncode == 0
    folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert len(folders) == 2 and all(f.startswith("tournament-analysis__a__0__") for f in folders)
    assert not (tmp_path / "results.json").exists()


def test_analysing_a_run_folder_leaves_it_alone(tournament, tmp_path):
    run = copy(tournament, tmp_path / "run")
    before = {name: (run / name).read_bytes() for name in files_in(run)}
    refused = dixit("tournament", "--analyse", str(run), "--out", str(run), *QUICK,
                    cwd=tmp_path)
    assert refused.returncode == 2 and "already holds a report" in refused.stderr
    assert dixit("tournament", "--analyse", str(run), *QUICK, cwd=tmp_path).returncode == 0
    assert {name: (run / name).read_bytes() for name in files_in(run)} == before
    (new,) = (tmp_path / "runs").iterdir()
    assert json.loads((new / "results.json").read_text())["source"] == str(run / "games.jsonl")


# ---------------------------------------------------------------------- bench


def test_bench_refuses_an_empty_records_file(bench, tmp_path):
    run = copy(bench, tmp_path / "run")
    (run / "records.jsonl").write_text("")
    before = {name: (run / name).read_bytes() for name in files_in(run)}
    result = dixit("bench", "--analyse", str(run), cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert f"{run / 'records.jsonl'}: no benchmark record to analyse" in result.stderr
    assert {name: (run / name).read_bytes() for name in files_in(run)} == before
    assert not (tmp_path / "runs").exists()


def test_bench_names_the_file_and_line_of_a_corrupt_record(bench, tmp_path):
    run = copy(bench, tmp_path / "run")
    records = run / "records.jsonl"
    lines = records.read_text().splitlines()
    lines[2] = lines[2][:40]
    records.write_text("\n".join(lines) + "\n")
    result = dixit("bench", "--analyse", str(run), cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert f"{records}, line 3: not valid JSON" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "runs").exists()
    partial = dixit("bench", "--analyse", str(run), "--allow-partial", "--out", "report",
                    cwd=tmp_path)
    assert partial.returncode == 0, partial.output
    assert "1 unreadable record(s)" in partial.stderr
    assert "1 unreadable record(s) of `records.jsonl` were dropped" in (
        tmp_path / "report" / "report.md").read_text()


def test_bench_analyse_writes_where_out_says(bench, tmp_path):
    run = copy(bench, tmp_path / "run")
    report = (run / "report.md").read_bytes()
    refused = dixit("bench", "--analyse", str(run), "--out", str(run), cwd=tmp_path)
    assert refused.returncode == 2 and "already holds a report" in refused.stderr
    assert (run / "report.md").read_bytes() == report
    done = dixit("bench", "--analyse", str(run), cwd=tmp_path)
    assert done.returncode == 0, done.output
    (new,) = (tmp_path / "runs").iterdir()
    assert new.name.startswith("bench-analysis__random__0__")
    assert json.loads((new / "results.json").read_text())["run"]["source"] == str(run)


def test_the_bench_run_folder_is_named_after_its_models(bench):
    assert bench.name.startswith("bench__random__0__")


@pytest.mark.parametrize(("change", "message"), [
    ({"bootstrap": 0}, "bootstrap must be an integer of at least 1, not 0"),
    ({"board_size": "six"}, "board_size must be between 3 and 7, not 'six'"),
])
def test_bench_analyse_refuses_a_bad_header_before_making_a_folder(bench, tmp_path, change,
                                                                   message):
    """bootstrap 0 in bench.json left an empty runs/bench-analysis__... folder behind, with a
    message that did not name the file."""
    run = copy(bench, tmp_path / "run")
    header = json.loads((run / "bench.json").read_text())
    header["config"].update(change)
    (run / "bench.json").write_text(json.dumps(header))
    before = {name: (run / name).read_bytes() for name in files_in(run)}
    for out in ([], ["--out", "report"]):
        result = dixit("bench", "--analyse", str(run), *out, cwd=tmp_path)
        assert result.returncode == 2, result.output
        assert f"{run / 'bench.json'}: {message}" in result.stderr
        assert "Traceback" not in result.output
    assert {name: (run / name).read_bytes() for name in files_in(run)} == before
    assert not (tmp_path / "runs").exists() and not (tmp_path / "report").exists()


@pytest.mark.parametrize(("command", "options", "named"), [
    ("tournament", ["--games", "500", "--seed", "3"], "--games, --seed apply"),
    ("tournament", ["--agents", "clip-greedy,random"], "--agents applies"),
    ("tournament", ["--backend", "ray"], "--backend applies"),
    ("bench", ["--items", "500"], "--items applies"),
    ("bench", ["--models", "default", "--tasks", "tell"], "--models, --tasks apply"),
])
def test_analyse_refuses_the_options_of_a_new_run(tournament, bench, tmp_path, command, options,
                                                  named):
    """They were ignored without a word: `--analyse RUN --items 500` printed the old run's
    figures as if they were of 500 items."""
    run = copy(tournament if command == "tournament" else bench, tmp_path / "run")
    before = files_in(tmp_path)
    result = dixit(command, "--analyse", str(run), *options, cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert named in result.stderr and "--analyse recomputes" in result.stderr
    assert "Traceback" not in result.output and files_in(tmp_path) == before
