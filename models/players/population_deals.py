"""Which member of the population each simulated opponent is, deal by deal.

A population storyteller (:mod:`models.players.population`) simulates ``S`` deals of ``G``
opponents drawn from ``P`` members. In deal ``s`` opponent ``g`` is member ``(s + g) mod P``
(a balanced assignment, the same for every candidate clue); with ``table_mix``, the first
deals are tables of one kind of mind instead (every opponent member ``s mod P``). Here are
that assignment (:func:`assignment`), the deals in which an opponent is a given member, as
strided slices (:func:`member_rows`), and sorted deal indices as runs of slices
(:func:`runs`, :func:`contiguous`), so that the simulation indexes with views, not copies.
"""

from __future__ import annotations

import numpy as np


def assignment(n_simulations: int, n_opponents: int, n_members: int,
               table_mix: float = 0.0) -> np.ndarray:
    """``(S, G)``: the member each opponent is in each deal.

    The first ``round(table_mix * S)`` deals are tables of one kind of mind: every opponent is
    member ``s mod P``. In the others opponents differ, ``(s + g) mod P``. Both are balanced
    over members.
    """
    mixed = (np.arange(n_simulations)[:, None] + np.arange(n_opponents)[None, :]) % n_members
    same = one_kind_deals(n_simulations, table_mix)
    mixed[:same] = (np.arange(same) % n_members)[:, None]
    return mixed


def one_kind_deals(n_simulations: int, table_mix: float) -> int:
    """How many of the first deals are tables of one kind of mind.

    Raises:
        ValueError: ``table_mix`` is outside [0, 1].
    """
    if not 0.0 <= table_mix <= 1.0:
        raise ValueError(f"table_mix must be in [0, 1], not {table_mix}")
    return round(table_mix * n_simulations)


def member_rows(n_simulations: int, n_members: int, same: int, opponent: int,
                member: int) -> list[slice]:
    """The deals of :func:`assignment` in which ``opponent`` is ``member``, as strided slices
    (views, never copies): among the ``same`` one-kind tables, ``s mod P == member``; among the
    others, ``(s + opponent) mod P == member``. Empty slices are left out."""
    first_mixed = same + (member - opponent - same) % n_members
    parts = [slice(member, same, n_members), slice(first_mixed, n_simulations, n_members)]
    return [part for part in parts if len(range(*part.indices(n_simulations)))]


def runs(index: np.ndarray) -> list[slice]:
    """Sorted deal indices as slices of consecutive runs (views, never copies, when indexing:
    :meth:`~models.players.table_reading.TableBelief.assignment` lays kinds out in blocks)."""
    if not len(index):
        return []
    breaks = np.flatnonzero(np.diff(index) != 1) + 1
    starts = np.concatenate([[0], breaks])
    ends = np.concatenate([breaks, [len(index)]])
    return [slice(int(index[a]), int(index[b - 1]) + 1) for a, b in zip(starts, ends,
                                                                        strict=True)]


def contiguous(index: np.ndarray) -> slice | np.ndarray:
    """``index`` as a slice when it is one run of consecutive positions (:func:`runs`)."""
    parts = runs(index)
    return parts[0] if len(parts) == 1 else index
