"""A told clue that cannot be embedded is refused by the tell itself, and the game is unchanged.

With ``observation="embedding"`` a clue outside the vector table's vocabulary is embedded on
first sight. Where that cannot be done (no ``models`` extra, so no text tower; or a table with
no embedder) the tell must fail with that clear error *before* it is applied: the storyteller's
seat is still to act, the state is the one before the call, and a clue that can be embedded is
then accepted. (Before, the tell was applied and the error came only on the next observation.)
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from envs import dixit_v0
from envs.vectors import VectorTable
from tests.cli.test_bench_without_torch import SITECUSTOMIZE

DECK = list(range(84))
WORDS = [f"word{i}" for i in range(40)]
MESSAGE = "the text tower needs the models extra: pip install 'dixit-ai[models]'"


def _no_text_tower(texts: list[str]) -> list[list[float]]:
    raise ImportError(MESSAGE)


def tables() -> list[VectorTable]:
    random = VectorTable.random(DECK, WORDS, dim=8, seed=3)
    failing = VectorTable(random.card_ids, random.card_vectors, random.clues, random.clue_vectors,
                          embed_texts=_no_text_tower, fingerprint="no-text-tower")
    without = VectorTable(random.card_ids, random.card_vectors, random.clues, random.clue_vectors)
    return [failing, without]


@pytest.mark.parametrize("table", tables(), ids=["tower-missing", "no-embedder"])
@pytest.mark.parametrize("config", [{}, {"embedding_dim": 4}, {"illegal_action": "raise"}],
                         ids=["full", "projected", "raise"])
def test_aec_tell_refuses_before_it_changes_the_game(table: VectorTable, config: dict) -> None:
    env = dixit_v0.env(deck=DECK, n_players=4, observation="embedding", embeddings=table,
                       **config)
    env.reset(seed=0)
    before = env.last()[0]
    core = env.unwrapped.core
    state, storyteller = core.state, env.agent_selection
    with pytest.raises((ImportError, ValueError), match=r"models extra|no embedder"):
        env.step({"card": 0, "clue": "zxqv flibbertigibbet"})
    assert core.state is state and env.agent_selection == storyteller
    assert env.agents == env.possible_agents and core.ended_by is None
    after = env.last()[0]  # the observation still works, and is the one before the call
    assert after.keys() == before.keys()
    assert all((after[key] == before[key]).all() for key in before)
    env.step({"card": 0, "clue": WORDS[5]})  # a clue of the vocabulary is accepted
    assert core.state is not state and env.agent_selection != storyteller


@pytest.mark.parametrize("table", tables(), ids=["tower-missing", "no-embedder"])
def test_parallel_tell_refuses_before_it_changes_the_game(table: VectorTable) -> None:
    env = dixit_v0.parallel_env(deck=DECK, n_players=4, observation="embedding",
                                embeddings=table)
    observations, _ = env.reset(seed=0)
    core = env.core
    state = core.state
    (seat,) = state.pending
    storyteller = env.possible_agents[seat]
    assert observations[storyteller]["action_mask"].any()
    with pytest.raises((ImportError, ValueError), match=r"models extra|no embedder"):
        env.step({storyteller: {"card": 0, "clue": "zxqv flibbertigibbet"}})
    assert core.state is state and env.agents == env.possible_agents
    assert core.ended_by is None
    env.step({storyteller: {"card": 0, "clue": WORDS[5]}})
    assert core.state is not state


PROGRAM = textwrap.dedent("""\
    from envs import dixit_v0
    from models import EmbedderLoadError

    env = dixit_v0.env(n_players=4, observation="embedding")
    env.reset(seed=0)
    env.last()
    core, storyteller = env.unwrapped.core, env.agent_selection
    state = core.state
    try:
        env.step({"card": 0, "clue": "zxqv flibbertigibbet"})
    except EmbedderLoadError as error:
        print("refused:", error)
    assert core.state is state and env.agent_selection == storyteller
    env.last()
    env.step({"card": 0, "clue": env.unwrapped.encoding.vocabulary[0]})
    assert core.state is not state
    print("vocabulary clue accepted")
    """)


def test_without_torch_the_shipped_vectors_refuse_an_unknown_clue(tmp_path: Path) -> None:
    """The real case: only the ``[envs]`` extra (torch hidden), the default model's shipped
    vectors; the tell of a clue they do not hold names the extra and changes nothing."""
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {"PYTHONPATH": f"{tmp_path / 'hide'}", "DIXIT_AI_CACHE_DIR": str(tmp_path / "cache"),
           "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                            env=env, cwd=Path(__file__).resolve().parents[2], timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "refused:" in result.stdout and "pip install 'dixit-ai[models]'" in result.stdout
    assert "vocabulary clue accepted" in result.stdout


def test_an_illegal_tell_is_refused_as_illegal_before_its_clue_is_embedded() -> None:
    """The rules judge a tell first: an over-long clue ends the game as an illegal action (-1),
    as it does without embeddings, and is never sent to the embedder."""
    embedded: list[str] = []
    random = VectorTable.random(DECK, WORDS, dim=8, seed=3)

    def embed(texts: list[str]) -> list[list[float]]:
        embedded.extend(texts)
        return [[1.0] * 8 for _ in texts]

    table = VectorTable(random.card_ids, random.card_vectors, random.clues, random.clue_vectors,
                        embed_texts=embed)
    env = dixit_v0.env(deck=DECK, n_players=4, observation="embedding", embeddings=table)
    env.reset(seed=0)
    storyteller = env.agent_selection
    too_long = "x" * (env.unwrapped.core.rules.max_clue_length + 1)
    env.step({"card": 0, "clue": too_long})
    assert env.rewards[storyteller] == -1.0 and all(env.terminations.values())
    assert embedded == []
