"""Fair deals: secret seeds from a secure source, committed to at the start, revealed at the end.

A table's seed decides every shuffle, so whoever knows it knows every hand. The server draws it
with :mod:`secrets` and keeps it to itself; players see only a *commitment*, the SHA-256 of the
seed and a random 128-bit salt, from the moment the table opens. Once the game is over the seed
and the salt are published with the record: anyone can check that they hash to the commitment
and that replaying the seed deals the recorded hands (:func:`verify`). The salt makes the
commitment useless for guessing: without it, trying seeds reveals nothing.

A creator may fix the seed only on a table marked as an experiment (a replay of a known deal,
a study); such a table shows its seed, and says so, to every player from the start.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

SEED_BITS = 62
SALT_BYTES = 16


def draw_seed() -> int:
    """A table's seed from the operating system's secure source."""
    return secrets.randbits(SEED_BITS)


def draw_salt() -> str:
    """The commitment's salt (hex, 128 bits from the secure source)."""
    return secrets.token_hex(SALT_BYTES)


def commitment(seed: int, salt: str) -> str:
    """The hex SHA-256 of ``"dixit-ai deal v1:{seed}:{salt}"``: published while the seed is
    secret."""
    return hashlib.sha256(f"dixit-ai deal v1:{seed}:{salt}".encode()).hexdigest()


def verify(seed: int, salt: str, published: str) -> bool:
    """Whether ``seed`` and ``salt`` are the ones committed to as ``published``."""
    return secrets.compare_digest(commitment(seed, salt), published)


def fairness_payload(seed: int, salt: str | None, *, experiment: bool, over: bool
                     ) -> dict[str, Any]:
    """What every player is told of the deal: the commitment; the seed once it is no secret."""
    public_seed = experiment or over
    return {
        "commitment": None if salt is None else commitment(seed, salt),
        "experiment": experiment,
        "seed": str(seed) if public_seed else None,  # text: exact in JavaScript too
        "salt": salt if over else None,
    }


def check_seed(value: object) -> int:
    """A creator's seed: an integer in ``[0, 2**62)``.

    Raises:
        ValueError: anything else.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**SEED_BITS:
        raise ValueError(f"seed must be an integer in [0, 2**{SEED_BITS}), not {value!r}")
    return value
