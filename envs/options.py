"""The learning-facing options every environment takes (observation, actions, reward)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.core import DixitCore
from envs.encoding import Encoding
from envs.rewards import RewardMode, check_reward_mode
from envs.vectors import VectorTable, resolve_vector_table


@dataclass(frozen=True)
class EnvOptions:
    """Observation, action and reward options (see :mod:`envs.encoding`, :mod:`envs.rewards`).

    Attributes:
        observation: ``"ids"``, ``"onehot"`` or ``"embedding"``.
        flatten: One flat ``float32`` ``Box`` (PettingZoo classic ``{"observation",
            "action_mask"}``).
        classic: PettingZoo classic form, fields kept as a ``Dict``.
        actions: ``"dict"`` or ``"discrete"``.
        reward: ``"points"``, ``"difference"``, ``"win"`` or ``"rank"``.
        embeddings: A :class:`~envs.vectors.VectorTable` (or the players' resources); ``None``:
            loaded for ``embedder`` and the deck when needed.
        embedder: A ``models.load_embedder`` name (``None``: ``"default"``).
        embedding_dim: Show vectors in this many principal directions (``None``: all);
            similarities and the clue proposer use the full vectors.
        clues_per_card: Clue candidates per hand card of the flat tell action (``None``: 8).
        clue_proposer: ``card id -> clues``, ``"specific"`` or ``"spread"``; default: the table's
            most specific clues, or the clue vocabulary.

    An option that would change nothing is refused (``ValueError``), see
    :class:`~envs.encoding.Encoding`; here, ``embedder`` beside ``embeddings`` (nothing is
    loaded then).
    """

    observation: str = "ids"
    flatten: bool = False
    classic: bool = False
    actions: str = "dict"
    reward: str = "points"
    embeddings: Any = None
    embedder: str | None = None
    embedding_dim: int | None = None
    clues_per_card: int | None = None
    clue_proposer: Any = None

    @property
    def reward_mode(self) -> RewardMode:
        """The checked reward option."""
        return check_reward_mode(self.reward)

    def table(self, deck: Any) -> VectorTable | None:
        """The vector table these options need (``None`` when they need none)."""
        wants = (self.observation == "embedding" or self.embeddings is not None
                 or self.embedder is not None)
        if self.embeddings is not None and self.embedder is not None:
            raise ValueError(f"embedder names the model to load vectors with; embeddings= gives "
                             f"the vectors, so embedder={self.embedder!r} would change nothing: "
                             f"give one of them")
        if not wants:
            if self.embedding_dim is not None:
                raise ValueError("embedding_dim is for observation='embedding' (or embeddings)")
            return None
        return resolve_vector_table(self.embeddings, deck, self.embedder, None)

    def encoding(self, core: DixitCore, deck: Any) -> Encoding:
        """The environment's :class:`~envs.encoding.Encoding`.

        Raises:
            ValueError: a bad option.
        """
        self.reward_mode  # noqa: B018 (checked before anything is loaded)
        if self.observation not in ("ids", "onehot", "embedding"):
            raise ValueError(f"observation must be 'ids', 'onehot' or 'embedding', not "
                             f"{self.observation!r}")
        return Encoding(core, observation=self.observation, flatten=self.flatten,
                        classic=self.classic, actions=self.actions, table=self.table(deck),
                        clues_per_card=self.clues_per_card, clue_proposer=self.clue_proposer,
                        embedding_dim=self.embedding_dim)
