"""The guesser: ranks the board against the clue and votes, never for its own card(s)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dixit_ai.rules import RuleSet


def softmax(values: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(values / temperature)`` in float64."""
    logits = np.asarray(values, dtype=np.float64) / temperature
    logits -= logits.max()
    weights = np.exp(logits)
    return weights / weights.sum()


def _check_finite(values: np.ndarray, legal: Sequence[int], what: str) -> None:
    """Raise unless every value (one per legal board position) is finite."""
    bad = ~np.isfinite(values)
    if bad.any():
        positions = ", ".join(str(p) for p, b in zip(legal, bad, strict=True) if b)
        shown = ", ".join(str(float(v)) for v in values[bad][:3])
        raise ValueError(f"the guesser's {what} are not finite ({shown}) for board "
                         f"position(s) {positions}: no vote can be chosen from them")


@dataclass(frozen=True)
class ClipGuesser:
    """Votes for the board card most similar to the clue, or samples by a softmax.

    Attributes:
        temperature: ``0``: vote for the most similar card; ``> 0``: sample from
            ``softmax(similarity / temperature)`` (seeded by the agent's generator).
        belief_temperature: The temperature of the guesser's *beliefs* (the probability that a
            card is the storyteller's), used to decide on a second vote.
        second_vote: Whether to consider a second vote where the edition allows one.
    """

    temperature: float = 0.0
    belief_temperature: float = 0.03
    second_vote: bool = True

    def vote(
        self,
        sims: np.ndarray,
        legal: Sequence[int],
        *,
        rules: RuleSet,
        max_votes: int,
        rng: np.random.Generator,
        clue: str | None = None,
    ) -> tuple[tuple[int, ...], dict[str, Any]]:
        """Choose board positions among ``legal`` given every board card's similarity.

        Args:
            sims: Similarity of every board position to the clue.
            legal: Positions this seat may vote for (never its own card(s)).
            rules: The edition (for the second vote's points).
            max_votes: 1, or 2 where a second vote is allowed.
            rng: The agent's generator.
            clue: The clue, named in the error when a similarity is not finite.

        Returns:
            The positions voted for, and notes for the record (beliefs, the second-vote reason).

        Raises:
            ValueError: no legal position, or a legal position's similarity is NaN or infinite
                (a broken embedding: ``argmax`` would quietly vote for the first position).
        """
        if not legal:
            raise ValueError("no board position to vote for")
        legal_sims = np.asarray([sims[p] for p in legal], dtype=np.float64)
        _check_finite(legal_sims, legal, "similarities to the clue"
                      + (f" {clue!r}" if clue is not None else ""))
        beliefs = softmax(legal_sims, self.belief_temperature)
        if self.temperature > 0:
            first = int(rng.choice(len(legal), p=softmax(legal_sims, self.temperature)))
        else:
            first = int(np.argmax(legal_sims))
        return self._votes(beliefs, first, legal, rules=rules, max_votes=max_votes)

    def vote_beliefs(self, beliefs: np.ndarray, legal: Sequence[int], *, rules: RuleSet,
                     max_votes: int) -> tuple[tuple[int, ...], dict[str, Any]]:
        """Vote for the most probable of ``legal`` under given ``beliefs`` (the probability
        that each legal position holds the storyteller's card: a reading guesser's, see
        :mod:`models.players.teller_reading`), and decide on a second vote by them.

        Raises:
            ValueError: no legal position, ``beliefs`` does not match ``legal``, or a belief is
                NaN or infinite.
        """
        if not legal:
            raise ValueError("no board position to vote for")
        beliefs = np.asarray(beliefs, dtype=np.float64)
        if beliefs.shape != (len(legal),):
            raise ValueError(f"{beliefs.shape} beliefs for {len(legal)} legal positions")
        _check_finite(beliefs, legal, "beliefs")
        return self._votes(beliefs, int(np.argmax(beliefs)), legal, rules=rules,
                           max_votes=max_votes)

    def _votes(self, beliefs: np.ndarray, first: int, legal: Sequence[int], *, rules: RuleSet,
               max_votes: int) -> tuple[tuple[int, ...], dict[str, Any]]:
        """The first vote (index ``first`` of ``legal``) and, by ``beliefs``, a second."""
        votes = [legal[first]]
        info: dict[str, Any] = {
            "beliefs": {str(p): round(float(b), 4) for p, b in zip(legal, beliefs, strict=True)},
        }
        if max_votes > 1 and len(legal) > 1 and self.second_vote:
            rest = [i for i in range(len(legal)) if i != first]
            second = max(rest, key=lambda i: beliefs[i])
            # Under its own beliefs: a second vote adds p2 * finder points and loses the
            # single-vote bonus when the first vote was right (all-or-none cases ignored).
            gain = beliefs[second] * rules.finder_points
            cost = beliefs[first] * rules.single_vote_bonus
            if gain > cost:
                votes.append(legal[second])
                info["second_vote"] = (f"cast: {gain:.2f} expected points from the second card "
                                       f"> {cost:.2f} single-vote bonus at risk")
            else:
                info["second_vote"] = (f"withheld: {gain:.2f} expected points from a second card "
                                       f"<= {cost:.2f} single-vote bonus at risk")
        return tuple(votes), info
