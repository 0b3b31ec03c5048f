"""The guesser panel: guessers on models other than the default, to test storytellers against.

A *member* is a ``panel-...`` registry agent (``configs/agents/panel-*.yaml``): a ``clip-*``
player on another embedder (:mod:`models.players.panel_models`, :mod:`models.family`) that plays
its most similar card as decoy and votes for the most similar board card (deterministic, as such
bots actually vote). How its votes look from a storyteller's embedding (temperature and bias of
the guess model) is fitted from cross-play records
(:func:`models.players.calibration.fit_population`).

A *panel spec* names members: ``"panel"`` (every shipped member whose model is available),
another name of :data:`PANELS`, or member names separated by commas
(``"panel-sibling,panel-lite2-mpnet"``; the ``panel-`` prefix may be left out). ``bench``
(``--panel``), the tournament (a member is an agent name like any other) and the scripts
accept them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PANELS: dict[str, tuple[str, ...]] = {
    "panel": ("panel-lite2-mpnet", "panel-lite1-minilm", "panel-lite1-mpnet",
              "panel-imagenet-zeroshot", "panel-caption-reader", "panel-sibling",
              "panel-default-zeroshot"),
    "panel-family": ("panel-lite2-mpnet", "panel-lite1-minilm", "panel-lite1-mpnet",
                     "panel-imagenet-zeroshot", "panel-caption-reader"),
    "panel-derived": ("panel-sibling", "panel-default-zeroshot", "panel-caption-reader"),
    "panel-heldout": ("panel-lite2-mpnet", "panel-imagenet-zeroshot", "panel-caption-reader",
                      "panel-sibling", "panel-default-zeroshot"),
}
"""Named panels (``panel-heldout``: every member the shipped population storytellers do not
simulate, i.e. all but lite1-minilm and lite1-mpnet). A named panel keeps only members whose
registry entry exists and whose model loads here (the family commits its members one by one); a
member named explicitly must load."""


@dataclass(frozen=True)
class PanelMember:
    """One panel guesser.

    Attributes:
        name: Its registry name (``panel-...``).
        embedder: Its embedder name.
        reads_ground_truth: Whether its model reads the cards' captions.
    """

    name: str
    embedder: str
    reads_ground_truth: bool

    def resources(self, deck: Any, *, vocabulary: bool = True) -> Any:
        """Its card and clue vectors over ``deck`` (:class:`PlayerResources`).

        ``vocabulary=False`` is for a member that only guesses (plays a decoy and votes for
        clues it is told): it needs no vectors of the clue vocabulary, which a model not
        shipped or cached would embed one clue at a time (minutes for an mpnet member). Its
        resources then hold the vocabulary's first clue only, and every clue it is told is
        embedded through the cache when first seen."""
        from models.players.panel_models import load_member_resources

        return load_member_resources(self.embedder, deck,
                                     vocabulary_size=None if vocabulary else 1)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "embedder": self.embedder,
                "reads_ground_truth": self.reads_ground_truth}


def member(name: str) -> PanelMember:
    """The member of a registry name (``panel-`` may be left out).

    Raises:
        ValueError: no such registry agent, or it names no embedder.
    """
    from dixit_ai.agents import agent_spec, list_agents
    from models.players.panel_models import reads_ground_truth

    full = name if name.startswith("panel-") else f"panel-{name}"
    members = sorted(a.name for a in list_agents() if a.name.startswith("panel-"))
    if full not in members:
        raise ValueError(f"no panel member named {name!r}: the members are "
                         f"{', '.join(members) or 'none'} (the 'panel-' may be left out); "
                         f"the named panels are {', '.join(PANELS)}")
    spec = agent_spec(full)
    embedder = spec.kwargs.get("embedder")
    if not isinstance(embedder, str):
        raise ValueError(f"{full}: a panel member's registry entry names its embedder")
    return PanelMember(full, embedder, reads_ground_truth(embedder))


def _available(candidate: PanelMember) -> bool:
    """Whether the member's model can be made here (its head file is committed)."""
    from models.players.panel_models import is_panel_name

    if is_panel_name(candidate.embedder):
        return True
    try:
        from models.family import MEMBERS, weights_dir

        spec = MEMBERS.get(candidate.embedder)
    except ImportError:
        return False
    if spec is None:
        return True
    return spec.head_file is None or (weights_dir() / spec.head_file).is_file()


def resolve_panel(spec: str | Sequence[str]) -> list[PanelMember]:
    """The members of a panel spec (see the module docstring).

    Raises:
        ValueError: an unknown member, a member named twice, or an empty panel.
    """
    from dixit_ai.agents import list_agents

    if isinstance(spec, str) and spec.strip() in PANELS:
        known = {a.name for a in list_agents()}
        members = [member(n) for n in PANELS[spec.strip()] if n in known]
        members = [m for m in members if _available(m)]
    else:
        names = ([s.strip() for s in spec.split(",") if s.strip()] if isinstance(spec, str)
                 else [str(s) for s in spec])
        members = [member(n) for n in names]
    if not members:
        raise ValueError(f"panel {spec!r} has no member available here; named panels: "
                         + ", ".join(PANELS))
    names = [m.name for m in members]
    if len(set(names)) != len(names):
        raise ValueError(f"panel {spec!r} names a member twice: {names}")
    return members


def panel_agents(spec: str | Sequence[str]) -> list[str]:
    """The registry names of a panel's members: agent names for a tournament or a table
    (``dixit-ai tournament --agents clip-expected,$(...)``)."""
    return [m.name for m in resolve_panel(spec)]
