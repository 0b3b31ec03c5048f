"""Issue 16, items 1-2: ``--rule KEY=VALUE`` is typed by the RuleSet field, in every command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Literal

import pytest

from dixit_ai.rules import RuleSet
from dixit_ai.rules.overrides import check_rules, parse_rule, rule_types
from dixit_ai.tournament import TournamentConfig, load_config
from tests.cli.helpers import dixit, files_in


@pytest.mark.parametrize(("rule", "message"), [
    ("score_limit=abc", "rule score_limit takes an integer or none, not 'abc'"),
    ("score_limit=30.5", "rule score_limit takes an integer or none, not '30.5'"),
    ("hand_size=abc", "rule hand_size takes an integer, not 'abc'"),
    ("bonus_cap=abc", "rule bonus_cap takes an integer or none, not 'abc'"),
    ("second_vote_from=abc", "rule second_vote_from takes an integer or none, not 'abc'"),
    ("teams=maybe", "rule teams takes true or false, not 'maybe'"),
    ("on_deck_exhausted=never", "rule on_deck_exhausted takes one of 'end', 'reshuffle'"),
    ("no_such_rule=1", "unknown rule parameter 'no_such_rule': valid parameters are"),
    ("score_limit", "a rule override is KEY=VALUE"),
])
@pytest.mark.parametrize("command", [
    ["simulate", "--games", "1"],
    ["tournament", "--agents", "random,b=random", "--players", "3", "--games", "2"],
])
def test_a_bad_rule_value_is_refused_by_name(command, rule, message, tmp_path):
    result = dixit(*command, "--rule", rule, cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert files_in(tmp_path) == set()  # no run folder, no records


def test_teams_no_means_no_team_variant(tmp_path):
    result = dixit("simulate", "--edition", "odyssey-2011", "--players", "6", "--rule",
                   "teams=no", "--games", "2", "--out", "games.jsonl", "--no-progress",
                   cwd=tmp_path)
    assert result.returncode == 0, result.output
    header = json.loads((tmp_path / "games.jsonl").read_text().splitlines()[0])["header"]
    assert header["rules"]["teams"] is False
    yes = dixit("simulate", "--edition", "odyssey-2011", "--players", "6", "--rule",
                "teams=yes", "--games", "1", "--out", "teams.jsonl", "--no-progress",
                cwd=tmp_path)
    assert yes.returncode == 0, yes.output
    header = json.loads((tmp_path / "teams.jsonl").read_text())["header"]
    assert header["rules"]["teams"] is True


def test_negative_points_are_refused(tmp_path):
    result = dixit("simulate", "--rule", "storyteller_points=-3", "--games", "1", cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert "storyteller_points" in result.stderr and "Traceback" not in result.output
    assert files_in(tmp_path) == set()


@pytest.mark.parametrize(("text", "expected"), [
    ("score_limit=20", ("score_limit", 20)),
    ("score-limit=none", ("score_limit", None)),
    ("bonus_cap=NULL", ("bonus_cap", None)),
    ("teams=no", ("teams", False)),
    ("teams=off", ("teams", False)),
    ("teams=0", ("teams", False)),
    ("teams=True", ("teams", True)),
    ("end_on_last_card=yes", ("end_on_last_card", True)),
    ("on_deck_exhausted=END", ("on_deck_exhausted", "end")),
    ("first_storyteller=random", ("first_storyteller", "random")),
    (" hand_size = 7 ", ("hand_size", 7)),
])
def test_values_are_typed_by_the_field(text, expected):
    assert parse_rule(text) == expected


def test_every_ruleset_field_but_the_name_can_be_overridden():
    names = {f.name for f in dataclasses.fields(RuleSet)} - {"name"}
    assert set(rule_types()) == {n for n in names if not n.startswith("_")}
    for name, rule in rule_types().items():  # each type is understood (no TypeError)
        assert rule.kinds or rule.choices, name


def test_a_new_ruleset_field_is_parsed_by_its_annotation(monkeypatch):
    """The parser reads RuleSet's annotations: no list of fields to keep in step."""
    from dixit_ai.rules import overrides

    @dataclasses.dataclass(frozen=True)
    class Extended(RuleSet):
        rounds_per_player: int | None = None
        mode: Literal["classic", "party"] = "classic"
        lenient: bool = False

    monkeypatch.setattr(overrides, "RuleSet", Extended)
    assert overrides.parse_rule("rounds_per_player=2") == ("rounds_per_player", 2)
    assert overrides.parse_rule("rounds_per_player=none") == ("rounds_per_player", None)
    assert overrides.parse_rule("mode=party") == ("mode", "party")
    assert overrides.parse_rule("lenient=no") == ("lenient", False)
    with pytest.raises(ValueError, match="rule mode takes one of 'classic', 'party'"):
        overrides.parse_rule("mode=duel")


def test_config_files_use_the_same_types(tmp_path):
    assert check_rules({"teams": "no", "score_limit": 20, "bonus_cap": None}) == {
        "teams": False, "score_limit": 20, "bonus_cap": None}
    with pytest.raises(ValueError, match="rule teams takes true or false, not 1"):
        check_rules({"teams": 1})
    with pytest.raises(ValueError, match="rule score_limit takes an integer or none"):
        check_rules({"score_limit": 30.5})
    path = tmp_path / "t.yaml"
    path.write_text("agents: [random, b=random]\nplayers: 6\nedition: odyssey-2011\n"
                    "rules: {teams: 'no', score_limit: 20}\n")
    assert load_config(path).rules == {"teams": False, "score_limit": 20}
    path.write_text("agents: [random, b=random]\nrules: {score_limit: abc}\n")
    with pytest.raises(ValueError, match=r"t.yaml: rules: rule score_limit takes an integer"):
        load_config(path)
    with pytest.raises(ValueError, match="rule teams takes true or false"):
        TournamentConfig(agents=("random", "b=random"), rules={"teams": 3}).validate()


def test_a_tournament_file_with_a_bad_rule_is_refused(tmp_path):
    (tmp_path / "t.yaml").write_text("agents: [random, b=random]\nplayers: 3\ngames: 2\n"
                                     "rules: {hand_size: lots}\n")
    result = dixit("tournament", "--config", "t.yaml", cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert "t.yaml: rules: rule hand_size takes an integer, not 'lots'" in result.stderr
    assert files_in(tmp_path) == {"t.yaml"}


def test_play_takes_the_same_rules(tmp_path: Path):
    result = dixit("play", "--seats", "human,random,random", "--rule", "score_limit=x",
                   cwd=tmp_path)
    assert result.returncode == 2
    assert "rule score_limit takes an integer or none, not 'x'" in result.stderr
