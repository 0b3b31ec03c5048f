"""The tell task against a panel of guessers the storyteller does not share.

The reference population (:mod:`models.bench.reference`) is built on one embedder, the default
model: a storyteller on that model plays on home ground there. Here the storyteller's (card,
clue) goes on **real boards** at a table of four panel guessers (:mod:`models.players.panel`),
each on its own model: every panel guesser plays, from its hand of the item's deal, the card
most similar to the clue *in its own space* (the decoy picker with ``bluff = 0``), the board is
shuffled (seeded), and every panel guesser votes for the board card most similar to the clue in
its own space, never its own (the ``clip-*`` guesser with ``vote_temperature = 0``). Points are
the rules' own (:func:`dixit_ai.rules.score_round`, ``refresh-2021``).

In deal ``d`` of item ``i`` the four seats are members ``(i + d + j) mod M`` (``j = 0..3``), so
with four members or more every table has four different minds, and every member sits at every
seat. The same boards are played again with the last seat taken by a **random player** (a random
hand card, a random legal vote; seeded).

**Held out.** A storyteller must not simulate with a panel member's model, nor with parameters
fitted on a member's votes, when it is evaluated against that member. Its ``describe()`` says
both: ``simulation_embedders``, the embedder fingerprints its simulation uses (``[]``: none), and
``simulation_fits``, every fitted file its decisions use (a guess model, a population fit, a
policy checkpoint: ``{"kind", "file", "voters"}``, ``voters`` as the file records them under
``voter_models``, :data:`models.players.simulation.VOTERS_KEY`; ``[]``: none).
:func:`check_held_out` refuses the run when either names a member's fingerprint, when a file
does not record its voters (it cannot be told held out), or when the storyteller does not say
(a description without either key). The records and the report list, per storyteller, the
members it was checked against (all of them: held out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dixit_ai.rules import RuleSet, score_round

TABLE_GUESSERS = 4
EDITION = "refresh-2021"
"""The rules the panel's rounds are scored by."""


_DECLARE = {"simulation_embedders": "which models its simulation uses",
            "simulation_fits": "which fitted files (guess models, population fits, policies) "
                               "its decisions use"}
"""What a storyteller's ``describe()`` must say for the held-out check."""


def check_held_out(label: str, description: dict[str, Any],
                   members: Sequence[tuple[str, str]]) -> list[str]:
    """The names of ``members`` (``(name, embedder fingerprint)``) a storyteller is held out
    from: every one of them, or an error (see the module docstring).

    Raises:
        ValueError: the description has no ``simulation_embedders`` or no ``simulation_fits``
            list, the storyteller simulates with a member's model, a fitted file it uses was
            fitted on a member's votes, or a fitted file does not record its voters; the
            message names the storyteller, the members and the file.
    """
    for key, what in _DECLARE.items():
        if not isinstance(description.get(key), list):
            raise ValueError(
                f"storyteller {label!r} does not say {what} (its describe() has no {key!r} "
                f"list: {description.get(key)!r}): it cannot be checked held out from the "
                f"panel. An agent declares {key}=[] when it uses none")
    used: list[Any] = description["simulation_embedders"]
    fits: list[Any] = description["simulation_fits"]
    by_fingerprint: dict[str, list[str]] = {}
    for name, fingerprint in members:
        by_fingerprint.setdefault(str(fingerprint), []).append(str(name))
    shared = [n for f in used for n in by_fingerprint.get(str(f), [])]
    if shared:
        raise ValueError(
            f"storyteller {label!r} simulates with the model of panel member(s) "
            f"{', '.join(dict.fromkeys(shared))}: it may not be evaluated against them. Take "
            "them out of the panel or out of its population")
    for fit in fits:
        what = (f"its {fit.get('kind', 'fitted')} file {fit.get('file')}"
                if isinstance(fit, dict) else repr(fit))
        voters = fit.get("voters") if isinstance(fit, dict) else None
        if not isinstance(voters, list):
            raise ValueError(
                f"storyteller {label!r} uses {what}, which does not record which voters it was "
                "fitted on ('voter_models'): it cannot be checked held out from the panel. Refit "
                "it (scripts/fit_calibration.py records them), or add to it the voters whose "
                'votes fitted it: "voter_models": [{"fingerprint": EMBEDDER FINGERPRINT, '
                '"name": AGENT NAME}, ...]')
        learned = [n for v in voters if isinstance(v, dict)
                   for n in by_fingerprint.get(str(v.get("fingerprint")), [])]
        if learned:
            raise ValueError(
                f"storyteller {label!r} uses {what}, fitted on votes of panel member(s) "
                f"{', '.join(dict.fromkeys(learned))}: it may not be evaluated against them. "
                "Take them out of the panel, or use a fit without their votes")
    return [str(name) for name, _ in members]


class PanelTable:
    """The panel's members, loaded over the benchmark's deck.

    Args:
        spec: A panel spec for :func:`models.players.panel.resolve_panel`, or ready members:
            ``(name, PlayerResources)`` pairs.
        deck: The benchmark's deck.
        seed: Seeds the board shuffles and the random player.
    """

    def __init__(self, spec: Any, deck: Any, *, seed: int = 0) -> None:
        from models.players.panel import PanelMember, resolve_panel

        self._deck = deck
        self._with_vocabulary: list[Any] | None = None
        if isinstance(spec, list | tuple) and spec and all(isinstance(s, tuple) for s in spec):
            self.members = [PanelMember(str(n), str(getattr(r, "fingerprint", n)), False)
                            for n, r in spec]
            self.resources = [r for _, r in spec]
            self._with_vocabulary = self.resources
        else:
            self.members = resolve_panel(spec)
            # The members only guess here: no vocabulary vectors (found_rates loads them).
            self.resources = [m.resources(deck, vocabulary=False) for m in self.members]
        self.names = [m.name for m in self.members]
        self.fingerprints = [r.fingerprint for r in self.resources]
        self.seed = seed
        self.rules = RuleSet.edition(EDITION)

    def describe(self) -> dict[str, Any]:
        return {"members": [m.describe() | {"fingerprint": f}
                            for m, f in zip(self.members, self.fingerprints, strict=True)]}

    def check_held_out(self, label: str, description: dict[str, Any]) -> list[str]:
        """The members a storyteller is evaluated against (every member: held out), by
        :func:`check_held_out`.

        Raises:
            ValueError: the storyteller's simulation uses a member's model or a file fitted on
                a member's votes, a fitted file it uses does not record its voters, or it does
                not say which models and fitted files its simulation uses.
        """
        return check_held_out(label, description,
                              list(zip(self.names, self.fingerprints, strict=True)))

    def _similarities(self, member: int, clue: str, cards: Sequence[int]) -> np.ndarray:
        return np.asarray(self.resources[member].clue_similarities(clue, list(cards)),
                          dtype=np.float64)

    def story_outcome(self, clue: str, card: int, deals: Sequence[Sequence[Sequence[int]]],
                      item: int) -> dict[str, Any]:
        """Play ``(card, clue)`` on every deal, with four panel guessers and with three and a
        random player.

        Returns:
            Plain data: ``found`` and ``seen`` per member (votes that found the card, votes
            cast), ``success`` and ``points`` (the storyteller's, per deal mean), and the same
            with a random player (``random_success``, ``random_points``, ``random_found``,
            ``random_seen``), and ``finders`` (per deal).
        """
        m = len(self.members)
        found = {n: 0 for n in self.names}
        seen = {n: 0 for n in self.names}
        r_found = {n: 0 for n in self.names}
        r_seen = {n: 0 for n in self.names}
        success, points, r_success, r_points, finders = [], [], [], [], []
        for d, hands in enumerate(deals):
            rng = np.random.default_rng([self.seed, 77, item, d])
            seats = [(item + d + j) % m for j in range(TABLE_GUESSERS)]
            for with_random in (False, True):
                decoys = []
                for j, (member, hand) in enumerate(zip(seats, hands, strict=True)):
                    if with_random and j == TABLE_GUESSERS - 1:
                        decoys.append(int(hand[int(rng.integers(len(hand)))]))
                    else:
                        sims = self._similarities(member, clue, hand)
                        decoys.append(int(hand[int(np.argmax(sims))]))
                cards = [int(card), *decoys]
                order = rng.permutation(len(cards))
                board = [cards[k] for k in order]
                owner = [int(k) for k in order]          # seat k owns cards[k]
                target = board.index(int(card))
                votes: dict[int, list[int]] = {}
                for j, member in enumerate(seats):
                    seat = j + 1
                    legal = [p for p in range(len(board)) if owner[p] != seat]
                    if with_random and j == TABLE_GUESSERS - 1:
                        votes[seat] = [legal[int(rng.integers(len(legal)))]]
                        continue
                    sims = self._similarities(member, clue, [board[p] for p in legal])
                    votes[seat] = [legal[int(np.argmax(sims))]]
                    hit = int(votes[seat][0] == target)
                    name = self.names[member]
                    if with_random:
                        r_found[name] += hit
                        r_seen[name] += 1
                    else:
                        found[name] += hit
                        seen[name] += 1
                gained = score_round(self.rules, n_players=TABLE_GUESSERS + 1, storyteller=0,
                                     board_owner=owner, votes=votes)
                count = sum(target in v for v in votes.values())
                ok = 0 < count < TABLE_GUESSERS
                if with_random:
                    r_success.append(ok)
                    r_points.append(gained[0])
                else:
                    success.append(ok)
                    points.append(gained[0])
                    finders.append(count)
        return {"found": found, "seen": seen, "success": float(np.mean(success)),
                "points": float(np.mean(points)), "finders": finders,
                "random_found": r_found, "random_seen": r_seen,
                "random_success": float(np.mean(r_success)),
                "random_points": float(np.mean(r_points))}

    def found_rates(self, hand: Sequence[int], deals: Sequence[Sequence[Sequence[int]]],
                    item: int) -> dict[str, np.ndarray]:
        """Every (hand card, vocabulary clue) of an item at once: per member, ``(len(hand),
        len(vocabulary))`` the share of its votes that find the card over the item's deals, as
        :meth:`story_outcome` plays them with four panel guessers (the same seats, decoys and
        votes; a tie with a decoy counts as not found). For studies over every candidate clue;
        every member must share one vocabulary.

        Raises:
            ValueError: the members' vocabularies differ.
        """
        if self._with_vocabulary is None:  # the members' vectors of the whole vocabulary
            self._with_vocabulary = [m.resources(self._deck) for m in self.members]
        resources = self._with_vocabulary
        texts = resources[0].vocabulary.texts
        if any(r.vocabulary.texts != texts for r in resources):
            raise ValueError("found_rates needs every panel member on the same vocabulary")
        m = len(self.members)
        tables = [np.asarray(r.card_vocabulary_sims) for r in resources]
        columns = np.arange(len(texts))
        found = {n: np.zeros((len(hand), len(texts))) for n in self.names}
        seen = {n: 0 for n in self.names}
        for d, hands in enumerate(deals):
            seats = [(item + d + j) % m for j in range(TABLE_GUESSERS)]
            decoys = []
            for member, cards in zip(seats, hands, strict=True):
                rows = resources[member].rows(list(cards))
                decoys.append(rows[tables[member][rows].argmax(axis=0)])   # (K,) card rows
            for j, member in enumerate(seats):
                table = tables[member]
                others = np.stack([table[decoys[k], columns] for k in range(len(seats))
                                   if k != j])
                mine = table[resources[member].rows(list(hand))]           # (h, K)
                found[self.names[member]] += mine > others.max(axis=0)[None, :]
                seen[self.names[member]] += 1
        return {n: found[n] / seen[n] for n in self.names if seen[n]}

