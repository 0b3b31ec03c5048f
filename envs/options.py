"""The learning-facing options every environment takes (observation, actions, reward)."""

from __future__ import annotations

import dataclasses
import difflib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dixit_ai.rules import RuleSet
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


SINGLE_AGENT = "the single-agent environment (dixit_ai/Dixit-v0)"
OPTIONS_ELSEWHERE = {"acting_only": "dixit_v0.parallel_env", "seat": SINGLE_AGENT,
                     "opponents": SINGLE_AGENT, "opponent_options": SINGLE_AGENT,
                     "learner_phases": SINGLE_AGENT, "stand_in": SINGLE_AGENT}
"""Options some environments take and others do not, with the environment that takes each."""
OTHER_NAMES = {"max_cycles": ("max_rounds", "PettingZoo's games limit turns; Dixit's limit is "
                                            "in rounds")}
"""Names other libraries give an option, with this project's name and why it differs."""


def options_of(init: Callable[..., Any]) -> list[str]:
    """The keyword options of an environment's ``__init__`` (its rule overrides aside)."""
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [name for name, parameter in inspect.signature(init).parameters.items()
            if name != "self" and parameter.kind in named]


def check_rule_overrides(rule_overrides: Mapping[str, Any], *, environment: str,
                         options: Iterable[str]) -> None:
    """Refuse a keyword an environment does not know before it is read as a rule parameter:
    a misspelt option (``oponents``), or one of another environment (``acting_only`` given to
    the AEC environment), is neither.

    Raises:
        ValueError: naming the keyword, what it may have meant, the environment's options and
            where the rule parameters are listed.
    """
    rules = {field.name for field in dataclasses.fields(RuleSet)
             if not field.name.startswith("_")} - {"name"}
    own = list(options)
    for key in sorted(set(rule_overrides) - rules):
        if key in OPTIONS_ELSEWHERE:
            raise ValueError(f"{key!r} is an option of {OPTIONS_ELSEWHERE[key]}, not of "
                             f"{environment}")
        close = difflib.get_close_matches(key, [*own, *OPTIONS_ELSEWHERE, *rules], n=1)
        hint = ""
        if key in OTHER_NAMES:
            name, why = OTHER_NAMES[key]
            hint = f" (did you mean {name!r}? {why})"
        elif close:
            where = (f", an option of {OPTIONS_ELSEWHERE[close[0]]}"
                     if close[0] in OPTIONS_ELSEWHERE and close[0] not in own else
                     ", a rule parameter" if close[0] in rules else "")
            hint = f" (did you mean {close[0]!r}{where}?)"
        raise ValueError(f"{key!r} is neither an option of {environment} nor a rule "
                         f"parameter{hint}: its options are {', '.join(own)}, and the rule "
                         f"parameters are {', '.join(sorted(rules))}")
