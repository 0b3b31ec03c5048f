"""A folder of agent files is registered all or nothing: every file is read and checked before any
is registered, so a bad file raises (naming it) and leaves the registry as it was, and the
configuration folders read at the first lookup are read again at the next while one is bad."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dixit_ai.agents import registry
from dixit_ai.agents.registry import agent_spec, load_agent_configs

RANDOM = "dixit_ai.agents.random_agent:RandomAgent"


@pytest.fixture(autouse=True)
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test registers into a copy of the registry (the shipped entries read), restored
    after it."""
    registry.list_agents()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def agent_file(folder: Path, file: str, name: str, extra_lines: str = "") -> None:
    (folder / file).write_text(f"name: {name}\nentry_point: {RANDOM}\n{extra_lines}")


def own_folders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *names: str) -> list[Path]:
    """A registry holding only the code's ``random``, not yet read from files, and
    ``DIXIT_AI_AGENT_CONFIGS`` naming new folders ``names`` of ``tmp_path``, in order."""
    monkeypatch.setattr(registry, "_REGISTRY", {"random": registry._REGISTRY["random"]})
    monkeypatch.setattr(registry, "_CONFIGS_LOADED", False)
    folders = [tmp_path / name for name in names]
    for folder in folders:
        folder.mkdir()
    monkeypatch.setenv(registry.CONFIG_DIRS_VARIABLE, os.pathsep.join(map(str, folders)))
    return folders


BAD_FILES = {
    "no entry point": ("name: folder-test-b\n", "needs at least 'name' and 'entry_point'"),
    "not YAML": ("name: [folder-test-b\n", "cannot be read as an agent file"),
    "unknown key": (f"name: folder-test-b\nentry_point: {RANDOM}\nkwarg: {{}}\n",
                    "unknown key"),
    "kwargs a list": (f"name: folder-test-b\nentry_point: {RANDOM}\nkwargs: [1, 2]\n",
                      "kwargs must be a mapping"),
    "malformed entry point": ("name: folder-test-b\nentry_point: nocolon\n",
                              "must look like 'package.module:attr'"),
    "requires without its command": (
        f"name: folder-test-b\nentry_point: {RANDOM}\nrequires: [some-package]\n",
        "requires and requires_install go together"),
}


@pytest.mark.parametrize("bad", list(BAD_FILES))
def test_a_bad_file_registers_nothing_of_its_folder(tmp_path, bad):
    text, said = BAD_FILES[bad]
    agent_file(tmp_path, "a.yaml", "folder-test-a")  # read before the bad file
    (tmp_path / "b.yaml").write_text(text)
    agent_file(tmp_path, "c.yaml", "folder-test-c")  # read after it
    before = dict(registry._REGISTRY)
    with pytest.raises(ValueError, match=rf"b\.yaml: .*{said}"):
        load_agent_configs(tmp_path)
    assert registry._REGISTRY == before
    for name in ("folder-test-a", "folder-test-b", "folder-test-c"):
        with pytest.raises(ValueError, match="no agent named"):
            agent_spec(name)


def test_the_folder_once_mended_registers_every_file(tmp_path):
    agent_file(tmp_path, "a.yaml", "folder-test-a")
    (tmp_path / "b.yaml").write_text("name: folder-test-b\n")
    with pytest.raises(ValueError, match=r"b\.yaml"):
        load_agent_configs(tmp_path)
    agent_file(tmp_path, "b.yaml", "folder-test-b", "kwargs: {second_vote_rate: 0.0}\n")
    added = load_agent_configs(tmp_path)
    assert [spec.name for spec in added] == ["folder-test-a", "folder-test-b"]
    assert agent_spec("folder-test-b").kwargs == {"second_vote_rate": 0.0}


@pytest.mark.parametrize("overwrite", [False, True])
def test_two_files_of_one_name_in_a_folder_are_refused_naming_both(tmp_path, overwrite):
    agent_file(tmp_path, "a.yaml", "folder-test-a")
    agent_file(tmp_path, "b.yaml", "folder-test-twice", "description: first\n")
    agent_file(tmp_path, "c.yaml", "folder-test-twice", "description: second\n")
    before = dict(registry._REGISTRY)
    with pytest.raises(ValueError, match=r"c\.yaml: agent name 'folder-test-twice' is also "
                                         r"defined by b\.yaml in the same folder .*nothing of "
                                         r"the folder is registered"):
        load_agent_configs(tmp_path, overwrite=overwrite)
    assert registry._REGISTRY == before


def test_a_name_already_registered_is_skipped_unless_overwrite(tmp_path):
    agent_file(tmp_path, "a.yaml", "random", "description: not the code's\n")
    agent_file(tmp_path, "b.yaml", "folder-test-b")
    added = load_agent_configs(tmp_path)
    assert [spec.name for spec in added] == ["folder-test-b"]
    assert agent_spec("random").description != "not the code's"
    added = load_agent_configs(tmp_path, overwrite=True)
    assert [spec.name for spec in added] == ["random", "folder-test-b"]
    assert agent_spec("random").description == "not the code's"


def test_across_configured_folders_the_first_entry_of_a_name_wins(tmp_path, monkeypatch):
    """A name's entry in the first ``DIXIT_AI_AGENT_CONFIGS`` folder that has one wins over the
    later folders, the shipped one and the code: a folder of one's own redefines a shipped
    ``clip-*`` agent and ``random`` (which a file could not redefine before)."""
    first, second = own_folders(monkeypatch, tmp_path, "first", "second")
    agent_file(first, "x.yaml", "folder-test-both", "description: first\n")
    agent_file(first, "clip.yaml", "clip-greedy", "description: my own\n")
    agent_file(second, "y.yaml", "folder-test-both", "description: second\n")
    agent_file(second, "random.yaml", "random", "description: a file's\n")
    assert agent_spec("folder-test-both").description == "first"
    assert agent_spec("clip-greedy").description == "my own"
    assert agent_spec("clip-greedy").entry_point == RANDOM
    assert agent_spec("random").description == "a file's"
    assert agent_spec("clip-expected").entry_point == "models.players:ClipAgent"  # shipped


def test_the_shipped_files_do_not_redefine_an_agent_registered_in_code(tmp_path, monkeypatch):
    """Without a folder of one's own, ``random`` is the code's entry, whatever the shipped
    folder holds (here a stand-in shipped folder with a ``random.yaml``)."""
    code_random = registry._REGISTRY["random"]
    monkeypatch.setattr(registry, "_REGISTRY", {"random": code_random})
    monkeypatch.setattr(registry, "_CONFIGS_LOADED", False)
    monkeypatch.delenv(registry.CONFIG_DIRS_VARIABLE, raising=False)
    monkeypatch.setattr(registry, "REPOSITORY_CONFIGS", tmp_path)
    agent_file(tmp_path, "random.yaml", "random", "description: a shipped file's\n")
    agent_file(tmp_path, "other.yaml", "folder-test-shipped")
    assert agent_spec("random") is code_random
    assert agent_spec("folder-test-shipped").entry_point == RANDOM


def test_a_bad_folder_after_a_good_one_leaves_the_registry_as_it_was(tmp_path, monkeypatch):
    """Two folders of one's own, the second bad: the lookup names the bad file and registers
    nothing of either folder (nor of the shipped one), lookup after lookup."""
    good, bad = own_folders(monkeypatch, tmp_path, "good", "bad")
    agent_file(good, "random.yaml", "random", "description: mine\n")
    agent_file(good, "good.yaml", "folder-test-good")
    (bad / "b.yaml").write_text("name: folder-test-b\n")
    for _ in range(2):
        with pytest.raises(ValueError, match=r"b\.yaml: an agent file needs"):
            agent_spec("random")
        assert set(registry._REGISTRY) == {"random"}
        assert registry._REGISTRY["random"].description != "mine"


def test_a_bad_configured_folder_is_named_at_every_lookup(tmp_path, monkeypatch):
    """A bad file in a ``DIXIT_AI_AGENT_CONFIGS`` folder is named at the first lookup and at
    every later one (not a registry without the shipped agents), until it is mended."""
    (folder,) = own_folders(monkeypatch, tmp_path, "own")
    agent_file(folder, "a.yaml", "folder-test-a")
    (folder / "b.yaml").write_text("name: folder-test-b\n")
    for _ in range(2):
        with pytest.raises(ValueError, match=r"b\.yaml: an agent file needs"):
            agent_spec("clip-greedy")
    assert "folder-test-a" not in registry._REGISTRY
    agent_file(folder, "b.yaml", "folder-test-b")
    assert agent_spec("clip-greedy").entry_point == "models.players:ClipAgent"
    assert agent_spec("folder-test-a").name == "folder-test-a"
    assert agent_spec("folder-test-b").name == "folder-test-b"
