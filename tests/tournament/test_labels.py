"""Agents' labels and a run's name are shown in the terminal's leaderboard, report.md, the
records and the run folder's name: a label or name with a control character (a newline that
breaks the Markdown table, an escape sequence that recolours the terminal) or past the length
limit is refused before anything, naming it; other characters (spaces, accents, '|') are shown
as they are."""

from __future__ import annotations

import pytest

from dixit_ai.cli import main
from dixit_ai.tournament import TournamentConfig
from dixit_ai.tournament.config import MAX_LABEL_LENGTH

RUN = ["--players", "3", "--games", "2", "--workers", "1", "--no-progress", "--resamples",
       "10", "--rating-resamples", "0"]


@pytest.mark.parametrize("label", ["a\nb", "\x1b[31mred", "tab\there", "x\u2028y"])
def test_a_label_with_a_control_character_is_refused(label, tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", f"random,{label}=random", *RUN,
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"agent label {label!r} holds a control character" in err
    assert not out.exists()


def test_a_name_with_a_control_character_or_too_long_is_refused(tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", "random,b=random", "--name", "x\ny", *RUN,
                 "--out", str(out)]) == 2
    assert "name 'x\\ny' holds a control character" in capsys.readouterr().err
    long = "n" * (MAX_LABEL_LENGTH + 1)
    with pytest.raises(ValueError, match=f"at most {MAX_LABEL_LENGTH} characters"):
        TournamentConfig(agents=("random", f"{long}=random"), players=3, games=2).validate()
    assert not out.exists()


def test_other_characters_are_kept_as_they_are(tmp_path, capsys):
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", "random,a b|é✓=random", *RUN, "--out", str(out)]) == 0
    (folder,) = out.iterdir()
    assert "| a b\\|é✓ |" in (folder / "report.md").read_text(encoding="utf-8")
    assert "a b|é✓" in capsys.readouterr().out


def test_a_name_that_looks_like_terminal_markup_is_printed_as_it_is(tmp_path, capsys):
    # the leaderboard's title holds the run's name (by default its labels): rich's markup
    # ('[/x]', '[bold]') in it is text, as it is in the table's cells
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", "random,[/x]=random", *RUN, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Tournament random+[/x]:" in printed and " [/x] │" in printed
    (folder,) = out.iterdir()
    assert main(["tournament", "--analyse", str(folder), "--out", str(tmp_path / "r"),
                 "--name", "x"]) == 2  # --name is refused with --analyse, nothing else
    capsys.readouterr()
    assert main(["tournament", "--agents", "random,b=random", "--name", "[bold]x", *RUN,
                 "--out", str(tmp_path / "runs2")]) == 0
    assert "Tournament [bold]x:" in capsys.readouterr().out
