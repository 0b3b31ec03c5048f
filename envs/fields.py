"""The encodings' shared fields: phases in observation order, bounds, the clue charset, masks.

Used by the per-seat observations (:mod:`envs.core`), the full state for centralised training
(:mod:`envs.full_state`) and the observation modes (:mod:`envs.encoding`).
"""

from __future__ import annotations

import string

import numpy as np
import numpy.typing as npt

from dixit_ai.rules import Phase

Mask = npt.NDArray[np.int8]
"""An action mask: ``int8``, 1 for a legal ``card`` index."""
CLUE_CHARSET: str = string.ascii_letters + string.digits + string.punctuation + " "
"""Characters of the ``Text`` clue space: letters, digits, punctuation and space (ASCII)."""

PHASES: tuple[Phase, ...] = (Phase.TELL, Phase.PLAY, Phase.VOTE, Phase.OVER)
"""Phases in the order of the observation's ``"phase"`` value (0 tell ... 3 over)."""

BIG = 2**31 - 1
"""Upper bound of the unbounded integer fields (scores, round numbers)."""

PHASE_INDEX: dict[Phase, int] = {phase: i for i, phase in enumerate(PHASES)}
"""Each phase's value in observations. Dixit Party's red-token turn reads as the vote phase
(the storyteller's own vote is already in its ``my_votes``), so the observation spaces stay those
of every other mode."""
PHASE_INDEX[Phase.RED] = PHASE_INDEX[Phase.VOTE]
MAX_CODEPOINT = 0x10FFFF
"""The largest Unicode code point: the bound of a text clue's characters in the full state."""
