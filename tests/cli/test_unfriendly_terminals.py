"""The command line under terminals that cannot take what it prints.

- An output that cannot encode a character (``PYTHONIOENCODING=ascii``, a Latin-1 or C
  locale) met a deck's licence text (an en dash) or a caption ('é', '☃') as bad input: ``deck info``
  printed "error: 'ascii' codec can't encode character '\\u2013'" and exited 2, having printed
  nothing. Such characters are now replaced; ``--json`` stays lossless (``\\u`` escapes).
- A reader gone away (``| head``) while a table was printed made rich end the command with its
  own ``SystemExit(1)``, the status of a failed run, where the project's convention is 141.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from dixit_ai.cli.common import EXIT_BROKEN_PIPE
from tests.cli.helpers import console_script, dixit

ASCII_OUTPUT = {"PYTHONIOENCODING": "ascii", "LC_ALL": "C", "LANG": "C"}
CAPTION = "la f\u00e9e au bonhomme de neige \u2603 \U0001f600"


def folder_deck_with_a_caption(tmp_path: Path, caption: str) -> Path:
    """A two-card folder deck whose card 0 has ``caption`` as its first caption."""
    folder = tmp_path / "deck"
    done = dixit("deck", "export", "dream:size=2", str(folder), cwd=tmp_path)
    assert done.returncode == 0, done.output
    captions_file = folder / "captions.json"
    captions = json.loads(captions_file.read_text(encoding="utf-8"))
    first = sorted(captions)[0]
    captions[first] = [caption, *captions[first][1:]]
    captions_file.write_text(json.dumps(captions, ensure_ascii=False), encoding="utf-8")
    return folder


def test_a_licence_the_output_cannot_encode_is_printed_degraded(tmp_path):
    done = dixit("deck", "info", cwd=tmp_path, env=ASCII_OUTPUT)
    assert done.returncode == 0, done.output
    assert "Traceback" not in done.stderr and "codec" not in done.stderr, done.stderr
    assert "license:" in done.stdout and "fingerprint:" in done.stdout


def test_a_caption_the_output_cannot_encode_is_replaced_and_json_stays_lossless(tmp_path):
    folder = folder_deck_with_a_caption(tmp_path, CAPTION)
    spec = f"folder:{folder}"
    text = dixit("deck", "info", spec, "--card", "0", cwd=tmp_path, env=ASCII_OUTPUT)
    assert text.returncode == 0, text.output
    assert "caption:    la f?e au bonhomme de neige ? ?" in text.stdout, text.stdout
    as_json = dixit("deck", "info", spec, "--card", "0", "--json", cwd=tmp_path,
                    env=ASCII_OUTPUT)
    assert as_json.returncode == 0, as_json.output
    assert json.loads(as_json.stdout)["cards"][0]["captions"][0] == CAPTION


def test_a_closed_pipe_while_a_table_is_printed_stops_with_141(tmp_path):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        done = subprocess.run(
            [console_script(), "tournament", "--agents", "a=random,b=random", "--players", "3",
             "--games", "6", "--no-progress", "--out", str(tmp_path / "runs")],
            cwd=tmp_path, stdout=write, stderr=subprocess.PIPE, text=True, timeout=240,
            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    finally:
        os.close(write)
    assert done.returncode == EXIT_BROKEN_PIPE, done.stderr
    assert "Broken pipe" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_table_to_a_closed_pipe_raises_broken_pipe_not_system_exit(tmp_path):
    code = ("import os, sys\n"
            "from dixit_ai.reporting import print_table\n"
            "read, write = os.pipe(); os.close(read)\n"
            "out = os.fdopen(write, 'w')\n"
            "try:\n"
            "    print_table('t', ['agent', 'score'], [['a', 1.0]] * 2000, file=out)\n"
            "except BrokenPipeError:\n"
            "    print('broken pipe')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "broken pipe\n", done.stdout + done.stderr


def test_columns_zero_is_an_unknown_width_not_an_error(monkeypatch):
    # COLUMNS=0 (set by some shells and CI runners) reached textwrap as width 0: the report was
    # written, then "error: invalid width 0 (must be > 0)" and exit 2, as for bad input
    from dixit_ai.reporting import print_table

    monkeypatch.setenv("COLUMNS", "0")
    out = io.StringIO()
    print_table("Tournament a+b: 6 games", ["#", "agent", "rating"], [[1, "a", 26.7]], file=out)
    assert "Tournament a+b: 6 games" in out.getvalue() and "26.7" in out.getvalue()


def test_a_very_narrow_width_still_wraps_the_title_by_words(monkeypatch):
    # COLUMNS=5 wrapped the title five characters a line: 'Tourn', 'ament', ...
    from dixit_ai.reporting import print_table

    monkeypatch.setenv("COLUMNS", "5")
    out = io.StringIO()
    print_table("Tournament random+clip-greedy: 6 games", ["#", "agent", "rating"],
                [[1, "a", 26.7]], file=out)
    lines = out.getvalue().splitlines()
    assert lines[:3] == ["Tournament", "random+clip-greedy:", "6 games"], lines
    assert "26.7" in out.getvalue()


def closed(stream: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``dixit-ai ARGV`` with its standard output (``">&-"``) or error (``"2>&-"``) closed."""
    return subprocess.run(["sh", "-c", f'exec "$@" {stream}', "sh", console_script(), *argv],
                          cwd=cwd, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})


def test_a_closed_standard_output_is_refused_before_the_work(tmp_path):
    # it ran the games, wrote the records, then died on sys.stdout.flush() with an
    # AttributeError traceback (exit 1)
    done = closed(">&-", "simulate", "--games", "2", "--out", "games.jsonl", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "standard output is closed" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "games.jsonl").exists()


def test_a_closed_standard_error_does_not_fail_the_run(tmp_path):
    # the progress bar wrote to sys.stderr, None: the run failed (exit 1) with nothing shown
    done = closed("2>&-", "simulate", "--games", "2", "--out", "games.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    assert "games: 2 (2 complete" in done.stdout
    assert len((tmp_path / "games.jsonl").read_text(encoding="utf-8").splitlines()) == 2
