"""PolicyAgent loads a checkpoint of scripts/train_rl.py without unpickling anything.

sb3's ``MaskablePPO.load`` unpickles the zip's ``data`` entry (base64 cloudpickle), so a handed
checkpoint could run code; PolicyAgent rebuilds the policy from the ``.json`` and reads only
``policy.pth``, weights-only. These tests train a tiny checkpoint of each role (random vectors, no
model) and check that the rebuilt policy acts as sb3's own load does, that a pickle payload in the
zip never runs, and that a checkpoint that does not fit is refused by name.
"""

from __future__ import annotations

import base64
import io
import json
import os
import runpy
import shutil
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch

from envs.learned import PolicyAgent, file_sha256
from envs.vectors import VectorTable

ROOT = Path(__file__).resolve().parents[2]
HIDDEN = 16


def random_table() -> VectorTable:
    return VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny checkpoint of each role, written by scripts/train_rl.py's ``train``."""
    script = runpy.run_path(str(ROOT / "scripts" / "train_rl.py"))
    args = script["Args"](total_timesteps=64, n_envs=1, n_steps=64, hidden=HIDDEN,
                          embedding_dim=8, clues_per_card=2)
    folder = tmp_path_factory.mktemp("train_rl")
    table = random_table()
    return {role: script["train"](args, role, table, folder)[0]
            for role in ("guesser", "storyteller")}


def copy(checkpoint: Path, folder: Path) -> Path:
    """The checkpoint's .zip and .json copied into ``folder``."""
    target = folder / checkpoint.name
    shutil.copy(checkpoint, target)
    shutil.copy(checkpoint.with_suffix(".json"), target.with_suffix(".json"))
    return target


def edit_config(checkpoint: Path, **changes: Any) -> None:
    """Change (or, with ``None``, remove) keys of the checkpoint's .json."""
    path = checkpoint.with_suffix(".json")
    config = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    path.write_text(json.dumps(config), encoding="utf-8")


def rewrite_zip(checkpoint: Path, replace: dict[str, bytes], drop: tuple[str, ...] = ()) -> None:
    """Rewrite entries of the zip, and record its new hash in the .json (a consistent pair)."""
    with zipfile.ZipFile(checkpoint) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries.update(replace)
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for name, content in entries.items():
            if name not in drop:
                archive.writestr(name, content)
    edit_config(checkpoint, sha256=file_sha256(checkpoint))


class Payload:
    """Unpickling it creates the marker file (what a hostile checkpoint would do)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def pickled_data(marker: Path) -> bytes:
    """A zip ``data`` entry whose serialised values are a cloudpickle payload (as sb3 writes)."""
    import cloudpickle

    payload = {":type:": "<class 'x'>",
               ":serialized:": base64.b64encode(cloudpickle.dumps(Payload(marker))).decode()}
    return json.dumps({"policy_class": payload, "observation_space": payload,
                       "action_space": payload, "policy_kwargs": {"net_arch": [HIDDEN]}}).encode()


# ------------------------------------------------------------------ the same actions as sb3's load


@pytest.mark.parametrize("role", ["guesser", "storyteller"])
def test_the_rebuilt_policy_acts_as_sb3s_load(trained: dict[str, Path], role: str) -> None:
    from sb3_contrib import MaskablePPO

    agent = PolicyAgent(trained[role], table=random_table())
    reference = MaskablePPO.load(str(trained[role]), device="cpu")
    assert agent.policy.observation_space == reference.observation_space
    assert agent.policy.action_space == reference.action_space
    assert agent.policy.state_dict().keys() == reference.policy.state_dict().keys()
    rng = np.random.default_rng(0)
    n = agent.encoding.n_actions
    agent.policy.observation_space.seed(0)
    for _ in range(200):
        observation = agent.policy.observation_space.sample()
        mask = rng.random(n) < 0.5
        mask[rng.integers(n)] = True
        ours, _ = agent.policy.predict(observation, action_masks=mask, deterministic=True)
        theirs, _ = reference.predict(observation, action_masks=mask, deterministic=True)
        assert int(ours) == int(theirs)
        tensor = torch.as_tensor(observation[None])
        with torch.no_grad():
            ours_p = agent.policy.get_distribution(tensor, mask[None]).distribution.probs
            theirs_p = reference.policy.get_distribution(tensor, mask[None]).distribution.probs
        assert torch.equal(ours_p, theirs_p)


@pytest.mark.parametrize("role", ["guesser", "storyteller"])
def test_in_a_game_every_decision_is_sb3s(trained: dict[str, Path], role: str) -> None:
    from sb3_contrib import MaskablePPO

    from dixit_ai import play_game
    from envs.policies import EmbeddingAgent

    table = random_table()
    agent = PolicyAgent(trained[role], table=table)
    reference = MaskablePPO.load(str(trained[role]), device="cpu")
    decisions: list[tuple[np.ndarray, np.ndarray, int]] = []
    predict = agent.policy.predict

    def recording(observation: np.ndarray, **kwargs: Any) -> Any:
        action, state = predict(observation, **kwargs)
        decisions.append((observation, kwargs["action_masks"], int(action)))
        return action, state

    agent.policy.predict = recording
    play_game([agent, *(EmbeddingAgent(table) for _ in range(3))], edition="refresh-2021",
              deck="dream", seed=7)
    assert decisions
    for observation, mask, action in decisions:
        theirs, _ = reference.predict(observation, action_masks=mask, deterministic=True)
        assert action == int(theirs)


def test_a_sampling_policy_is_seeded_by_the_game_not_by_torch(
        trained: dict[str, Path]) -> None:
    """With deterministic=False the action was drawn from torch's global generator, so the
    same game seed gave other games. It is drawn from the agent's own generator now."""
    from dixit_ai import play_game
    from envs.policies import EmbeddingAgent

    table = random_table()

    def game(torch_seed: int) -> list[Any]:
        torch.manual_seed(torch_seed)
        agent = PolicyAgent(trained["storyteller"], table=table, deterministic=False)
        record = play_game([agent, *(EmbeddingAgent(table) for _ in range(3))],
                           edition="refresh-2021", deck="dream", seed=7)
        return [(r.storyteller_card, r.clue) for r in record.rounds]

    assert game(0) == game(1)


def test_the_json_records_the_policy_and_the_zips_hash(trained: dict[str, Path]) -> None:
    config = json.loads(trained["guesser"].with_suffix(".json").read_text(encoding="utf-8"))
    assert config["policy"] == {"class": "MaskableActorCriticPolicy",
                                "policy_kwargs": {"net_arch": [HIDDEN, HIDDEN]}}
    assert config["sha256"] == file_sha256(trained["guesser"])


# ------------------------------------------------------------------ nothing is unpickled


def test_a_pickle_payload_in_the_zips_data_never_runs(trained: dict[str, Path],
                                                      tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    checkpoint = copy(trained["guesser"], tmp_path)
    rewrite_zip(checkpoint, {"data": pickled_data(marker)})
    agent = PolicyAgent(checkpoint, table=random_table())
    assert not marker.exists()
    original = PolicyAgent(trained["guesser"], table=random_table())
    observation = agent.policy.observation_space.sample()
    mask = np.ones(agent.encoding.n_actions, dtype=bool)
    assert int(agent.policy.predict(observation, action_masks=mask, deterministic=True)[0]) == int(
        original.policy.predict(observation, action_masks=mask, deterministic=True)[0])


def test_the_audits_checkpoint_is_refused_without_running(tmp_path: Path) -> None:
    """The audit's reproduction: a zip of a pickled ``data`` alone, its .json ``{"env": {}}``."""
    marker = tmp_path / "PWNED"
    checkpoint = tmp_path / "vote.zip"
    with zipfile.ZipFile(checkpoint, "w") as archive:
        archive.writestr("data", pickled_data(marker))
    checkpoint.with_suffix(".json").write_text(json.dumps({"env": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"vote.json does not describe"):
        PolicyAgent(checkpoint, table=random_table())
    assert not marker.exists()


def test_a_pickle_payload_in_policy_pth_is_refused(trained: dict[str, Path],
                                                  tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    checkpoint = copy(trained["guesser"], tmp_path)
    buffer = io.BytesIO()
    torch.save({"weights": Payload(marker)}, buffer)
    rewrite_zip(checkpoint, {"policy.pth": buffer.getvalue()})
    with pytest.raises(ValueError, match=r"guesser.zip: policy.pth is not a weights-only"):
        PolicyAgent(checkpoint, table=random_table())
    assert not marker.exists()


# ------------------------------------------------------------------ refusals


def test_a_zip_without_policy_pth_is_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    rewrite_zip(checkpoint, {}, drop=("policy.pth",))
    with pytest.raises(ValueError, match=r"guesser.zip has no policy.pth"):
        PolicyAgent(checkpoint, table=random_table())


def test_a_file_that_is_not_a_zip_is_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    checkpoint.write_bytes(b"not a zip")
    edit_config(checkpoint, sha256=file_sha256(checkpoint))
    with pytest.raises(ValueError, match=r"guesser.zip is not a zip file"):
        PolicyAgent(checkpoint, table=random_table())


def test_weights_that_do_not_fit_are_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    edit_config(checkpoint, policy={"class": "MaskableActorCriticPolicy",
                                    "policy_kwargs": {"net_arch": [HIDDEN + 1, HIDDEN]}})
    with pytest.raises(ValueError, match=r"guesser.zip: policy.pth does not fit"):
        PolicyAgent(checkpoint, table=random_table())
    # An extra tensor is refused too (the load is strict).
    checkpoint = copy(trained["storyteller"], tmp_path)
    with zipfile.ZipFile(checkpoint) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    state["extra.weight"] = torch.zeros(2)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    rewrite_zip(checkpoint, {"policy.pth": buffer.getvalue()})
    with pytest.raises(ValueError, match=r"storyteller.zip: policy.pth does not fit"):
        PolicyAgent(checkpoint, table=random_table())


@pytest.mark.parametrize("policy", [
    {"class": "ActorCriticPolicy", "policy_kwargs": {"net_arch": [HIDDEN, HIDDEN]}},
    {"class": "MaskableActorCriticPolicy",
     "policy_kwargs": {"net_arch": [HIDDEN, HIDDEN], "activation_fn": "os.system"}},
    {"class": "MaskableActorCriticPolicy", "policy_kwargs": {"net_arch": ["16"]}},
    "MlpPolicy",
])
def test_a_policy_the_project_cannot_build_is_refused(trained: dict[str, Path], tmp_path: Path,
                                                      policy: Any) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    edit_config(checkpoint, policy=policy)
    with pytest.raises(ValueError, match=r"guesser.json"):
        PolicyAgent(checkpoint, table=random_table())


def test_unknown_observation_fields_are_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    edit_config(checkpoint, fields=["scalars", "no_such_field"])
    with pytest.raises(ValueError, match=r"guesser.json: unknown observation fields"):
        PolicyAgent(checkpoint, table=random_table())


# ------------------------------------------------------------------ the zip's hash


def test_a_zip_that_is_not_the_one_trained_is_refused(trained: dict[str, Path],
                                                      tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    shutil.copy(trained["storyteller"], checkpoint)
    with pytest.raises(ValueError, match=r"guesser.zip's SHA-256 is not the one"):
        PolicyAgent(checkpoint, table=random_table())


def test_an_older_checkpoint_without_hash_or_policy_loads_with_a_warning(
        trained: dict[str, Path], tmp_path: Path) -> None:
    checkpoint = copy(trained["guesser"], tmp_path)
    edit_config(checkpoint, sha256=None, policy=None)  # the policy from args.hidden
    with pytest.warns(UserWarning, match="records no sha256"):
        agent = PolicyAgent(checkpoint, table=random_table())
    original = PolicyAgent(trained["guesser"], table=random_table())
    for ours, theirs in zip(agent.policy.state_dict().values(),
                            original.policy.state_dict().values(), strict=True):
        assert torch.equal(ours, theirs)
