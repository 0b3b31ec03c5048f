"""Who reads whom: guessers' top-1 on the clues other minds tell.

A *teller* is a registry agent (a clip player on some embedder, a ``panel-*`` member, a baseline
storyteller): it tells on every tell item's hand, on its first reference deal, as it would at a
table. Each told (card, clue) is put on a board of the told card and the five distractors of its
caption board (:meth:`ItemSets.story_items`: chance 1/6), and every *guesser* (an embedder's
card and clue vectors: :class:`PlayerResources`) picks its most similar card. The matrix
teller x guesser of top-1 rates, with 95% bootstrap intervals over items, says which minds can
read which: a guesser that reads the cards' captions (ground truth) is the reference of what a
clue says about the picture itself; a guesser far above it reads a quirk it shares with the
teller, not the card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dixit_ai.reporting import (
    Interval,
    draw_rate_matrix,
    mean_interval,
    save_figure,
    side_colorbar,
)

CHANCE = 1 / 6
"""Top-1 by chance on the boards of told cards (the card and five distractors)."""

Story = tuple[int, int, str] | None
"""``(item index, card, clue)`` of one told story, or ``None`` where the teller told nothing."""


def tell_stories(teller: str, sets: Any, seed: int, *, deck: Any = "dream",
                 **kwargs: Any) -> list[Story]:
    """``teller`` (a registry agent name) tells on every tell item of ``sets`` (an
    :class:`~models.bench.items.ItemSets`), on the item's first deal, seeded per item; an agent
    that reads a deck reads ``deck`` (the deck ``sets`` was dealt from).

    Raises:
        Whatever the agent raises: a teller that cannot decide is not skipped.
    """
    from dixit_ai.agents import make_agent_for_deck
    from dixit_ai.rules import RuleSet, observe
    from models.bench.tables import round_start

    rules = RuleSet.edition("refresh-2021")
    ids = [int(c) for c in sets.facts.card_ids]
    agent = make_agent_for_deck(teller, deck, **kwargs)
    stories: list[Story] = []
    for item in sets.tell_items():
        state = round_start(rules, [item.hand, *item.deals[0]], ids)
        agent.reset(seat=0, rng=np.random.default_rng([seed, 5, item.index]))
        story = agent.tell(observe(state, 0))
        stories.append((item.index, int(story.card), story.clue))
    return stories


def top1_hits(sets: Any, label: str, stories: Sequence[Story], guesser: Any) -> list[float]:
    """1.0 where ``guesser`` (:class:`PlayerResources`) ranks the told card first on its board,
    else 0.0, for each of ``stories`` that has a board."""
    hits = []
    for item in sets.story_items(f"story:{label}", stories):
        sims = guesser.clue_similarities(item.clue, list(item.cards))
        hits.append(float(int(np.argmax(sims)) == 0))
    return hits


def reading_matrix(sets: Any, stories: Mapping[str, Sequence[Story]],
                   guessers: Mapping[str, Any], *, seed: int = 0,
                   resamples: int = 2000) -> dict[str, dict[str, Interval]]:
    """``{teller: {guesser: top-1 Interval}}`` over every teller's stories (see the module
    docstring); the same boards for every guesser."""
    return {teller: {name: mean_interval(top1_hits(sets, teller, told, guesser), seed=seed,
                                         n_resamples=resamples)
                     for name, guesser in guessers.items()}
            for teller, told in stories.items()}


def plot_reading_matrix(path: Any, matrix: Mapping[str, Mapping[str, Interval]],
                        title: str) -> None:
    """A heat map of :func:`reading_matrix` (top-1 per teller and guesser), written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tellers = list(matrix)
    guessers = list(next(iter(matrix.values())))
    values = np.array([[matrix[t][g].estimate for g in guessers] for t in tellers])
    fig, ax = plt.subplots(figsize=(1.0 * len(guessers) + 3.5, 0.5 * len(tellers) + 2.2))
    image = draw_rate_matrix(ax, values, tellers, guessers)
    ax.set_xlabel("guesser (embedder)")
    ax.set_ylabel("teller (agent, telling on its own model)")
    ax.set_title(title, fontsize=9)
    side_colorbar(fig, ax, image, f"top-1 (chance {CHANCE:.3f})")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def reading_hits(sets: Any, label: str, stories: Sequence[Story], members: Sequence[Any], *,
                 sequence: int, seed: int, own_prior: float | None = None) -> list[float]:
    """Top-1 of a guesser that reads the teller (:mod:`models.players.teller_reading`) over
    games of ``sequence`` stories: the teller's stories, in a seeded order, are cut into runs of
    ``sequence``; in each, the guesser picks a card on each story's board by its belief about
    the teller from the run's earlier stories, then sees the told card. Returns each run's share
    of hits (a leftover shorter run is dropped).

    Args:
        members: The guesser's minds, ``(resources, guess model)`` each, its own first (one
            member alone, with ``own_prior=1``: the guesser's own mind, which ranks the board
            by its similarities as the plain guesser does).
        own_prior: See :data:`~models.players.teller_reading.OWN_PRIOR` (``None``: that).

    Raises:
        ValueError: ``sequence`` is below 1.
    """
    from models.players.teller_reading import (
        OWN_PRIOR,
        StorytellerBelief,
        log_prior,
        story_log_likelihood,
    )

    if sequence < 1:
        raise ValueError(f"a run of stories needs at least 1, not {sequence}")
    items = sets.story_items(f"story:{label}", stories)
    models = [model for _, model in members]
    order = np.random.default_rng([seed, 7]).permutation(len(items))
    runs = []
    for start in range(0, len(order) - sequence + 1, sequence):
        total = log_prior(len(members), OWN_PRIOR if own_prior is None else own_prior)
        hits = []
        for index in order[start:start + sequence]:
            item = items[int(index)]
            sims = [resources.clue_similarities(item.clue, list(item.cards))
                    for resources, _ in members]
            legal = list(range(len(item.cards)))
            belief = StorytellerBelief.of(total)
            hits.append(float(int(np.argmax(belief.beliefs(sims, models, legal))) == 0))
            total = total + story_log_likelihood(sims, models, legal, 0)
        runs.append(float(np.mean(hits)))
    return runs


def told_in_records(records: Sequence[Mapping[str, Any]]) -> dict[str, list[Story]]:
    """The stories each storyteller of a bench run's tell records told, by model label
    (``None`` where it told nothing)."""
    told: dict[str, list[Story]] = {}
    for r in records:
        if r["task"] == "tell":
            told.setdefault(r["model"], []).append(
                None if r["clue"] is None else (r["item"], r["card"], r["clue"]))
    return told


def panel_reading_hits(records: Sequence[Mapping[str, Any]], deck: Any, *, items: int,
                       seed: int, panel: str, tell_cards: str = "all", **kwargs: Any
                       ) -> dict[str, dict[str, list[float]]]:
    """Can the default clip guesser read other minds? Its top-1 hits, and those of
    ``caption-reader`` (it reads the cards' captions: what a clue says about the picture
    itself), on boards of the cards told in a panel bench run's tell ``records`` (dealt from
    ``deck`` with ``items``, ``seed`` and ``tell_cards``), and of the cards the ``panel``'s
    members tell themselves (``panel-*`` agents on their own models, labelled ``NAME
    (telling)``; ``kwargs`` go to them). ``{teller: {"default": hits, "caption-reader":
    hits}}``, one 0/1 per story with a board."""
    from models.bench.items import DeckFacts, ItemSets
    from models.players.panel import resolve_panel
    from models.players.panel_models import load_member_resources
    from models.players.resources import load_resources

    sets = ItemSets(DeckFacts.of(deck), seed=seed, items=items, board_size=6,
                    reference_deals=1, tell_cards=tell_cards)
    told = told_in_records(records)
    for member in resolve_panel(panel):
        told[f"{member.name} (telling)"] = tell_stories(member.name, sets, seed, deck=deck,
                                                        **kwargs)
    guessers = {"default": load_resources("default", deck),
                "caption-reader": load_member_resources("caption-reader", deck)}
    return {teller: {name: top1_hits(sets, teller, stories, guesser)
                     for name, guesser in guessers.items()}
            for teller, stories in told.items()}
