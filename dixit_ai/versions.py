"""The versions of the packages a run's numbers may depend on, as records and run folders note
them (a game record's ``header.versions``, a tournament's ``config.json``, a benchmark's
``bench.json``).

:func:`package_versions` names dixit-ai and numpy always, and each of :data:`RECORDED_PACKAGES`
that is installed (one that is not is left out, never an error): the model, environment and
reinforcement-learning libraries whose versions change what an agent decides.
"""

from __future__ import annotations

import functools
from importlib import metadata

import numpy as np

RECORDED_PACKAGES: tuple[str, ...] = (
    "torch", "torchvision", "open-clip-torch", "transformers", "timm", "safetensors", "pillow",
    "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib", "supersuit", "tianshou")
"""Packages whose version is recorded when installed (their distribution names)."""


def package_versions() -> dict[str, str]:
    """``{"dixit-ai": ..., "numpy": ..., <each installed package of RECORDED_PACKAGES>: ...}``
    (looked up once per process: the installed packages do not change while it runs; each
    caller gets a dict of its own)."""
    return dict(_found_versions())


@functools.cache
def _found_versions() -> dict[str, str]:
    from dixit_ai import __version__

    versions = {"dixit-ai": __version__, "numpy": np.__version__}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions
