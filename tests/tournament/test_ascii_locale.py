"""``dixit-ai tournament`` and ``dixit-ai bench`` in a true ASCII locale (``LC_ALL=C`` with
Python's UTF-8 mode and locale coercion off).

There Python's standard output uses the ``surrogateescape`` error handler, not ``strict``, so
the command line's tolerant output (characters it cannot encode printed as ``?``) was never set
up: a label ``Zoë`` from a tournament file played every game, then the leaderboard failed with
"'ascii' codec can't encode character '\\xeb'" (exit 1). And an argument with non-ASCII
characters arrives as undecodable bytes (``Zo\\udcc3\\udcab``): the games or items were played,
then writing the records failed with "surrogates not allowed" (exit 1, a partial run folder).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.helpers import dixit

ASCII_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
QUICK = ["--resamples", "10", "--rating-resamples", "0", "--workers", "1", "--no-progress",
         "--out", "runs"]


def _run(*args: str, cwd: Path):
    saved = os.environ.pop("PYTHONIOENCODING", None)  # the locale alone decides the encoding
    try:
        return dixit(*args, cwd=cwd, env=ASCII_LOCALE)
    finally:
        if saved is not None:
            os.environ["PYTHONIOENCODING"] = saved


def test_a_tournament_label_the_locale_cannot_encode_is_printed_with_replacements(tmp_path):
    (tmp_path / "t.yaml").write_text(
        'agents: [random, {label: "Zo\u00eb", agent: random}, b=random]\nplayers: 3\n'
        "games: 2\nmax_rounds: 1\non_failure: forfeit\n", encoding="utf-8")
    done = _run("tournament", "--config", "t.yaml", *QUICK, cwd=tmp_path)
    assert done.returncode == 0, done.output
    assert "codec" not in done.output and "Traceback" not in done.output
    assert "Zo?" in done.stdout
    (folder,) = (tmp_path / "runs").iterdir()
    records = (folder / "games.jsonl").read_text(encoding="utf-8").splitlines()
    assert "Zo\u00eb" in json.loads(records[0])["header"]["tournament"]["seats"]


def test_a_tournament_argument_the_locale_cannot_decode_is_refused_up_front(tmp_path):
    done = _run("tournament", "--agents", "random,Zo\u00eb=random,b=random", "--players", "3",
                "--games", "2", "--max-rounds", "1", *QUICK, cwd=tmp_path)
    assert done.returncode == 2, done.output
    assert "--agents" in done.stderr and "cannot decode" in done.stderr, done.stderr
    assert "PYTHONUTF8=1" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "runs").exists()


def test_a_bench_name_the_locale_cannot_decode_is_refused_up_front(tmp_path):
    done = _run("bench", "--models", "random", "--tasks", "guess", "--items", "2", "--name",
                "Zo\u00eb", "--bootstrap", "10", "--no-progress", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 2, done.output
    assert "--name" in done.stderr and "cannot decode" in done.stderr, done.stderr
    assert not (tmp_path / "runs").exists()


def test_a_label_or_name_that_is_not_valid_text_is_refused_by_the_config(tmp_path):
    # from Python, the same label played every game, then the records could not be written
    import pytest

    from dixit_ai.tournament import run_tournament
    from tests.tournament.helpers import random_config

    for config in (random_config(agents=("random", "Zo\udcc3\udcab=random", "b=random")),
                   random_config(name="Zo\udcc3\udcab")):
        with pytest.raises(ValueError, match=r"is not valid Unicode text \(a lone surrogate "
                                             r"U\+DCC3 at position 2;"):
            run_tournament(config, out=tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()


def test_file_and_folder_arguments_the_locale_cannot_decode_are_opened_as_they_are(
        tmp_path, capsys):
    # the system opens a file by its bytes: replay's records, an --out folder, a deck spec
    from dixit_ai.cli import main

    missing = str(tmp_path / "partie-\udcc3\udca9.jsonl")
    assert main(["replay", missing]) == 2
    err = capsys.readouterr().err
    assert "cannot decode" not in err and "partie-" in err, err
