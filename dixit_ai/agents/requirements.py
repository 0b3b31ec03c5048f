"""What an agent entry needs installed, read as pip reads it, and the check made before an agent
is made or prepared.

An entry's ``extra`` names a pip extra of ``dixit-ai``; its ``requires`` lists further
distributions (PEP 508: a name, with a version specifier or a marker where wanted) that
``requires_install`` installs. Both are parsed with ``packaging``: an extra's requirements are
read from the installed ``dixit-ai``'s metadata (a requirement belongs to the extra when its
marker holds with the extra and not without it), nested extras of any distribution are
followed, and a package installed at a version its requirement does not allow counts as
missing. :func:`check_agent_requirements` refuses agents whose packages are missing, naming
them and the commands that install them; the registry calls it before it makes or prepares an
agent (see :mod:`dixit_ai.agents.registry`).

>>> _needs(["a", "b", "torch==2 (1.0 is installed)"])
'a, b, which are not installed, and torch==2 (1.0 is installed)'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dixit_ai.agents.registry import AgentSpec

DISTRIBUTION = "dixit-ai"
"""The distribution whose extras the entries name."""

_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")


def checked_requirements(name: str, extra: str | None, requires: Iterable[str],
                         requires_install: str | None) -> tuple[str, ...]:
    """The ``requires`` of the entry ``name``, once its ``extra``, ``requires`` and
    ``requires_install`` are checked (see :func:`dixit_ai.agents.registry.register_agent`).

    Raises:
        ValueError: ``extra`` is no extra's name, or ``requires`` is not a list of requirements
            (a distribution's name, with a version specifier or a marker where wanted) given
            with the command that installs them (``requires_install``).
    """
    if extra is not None and not (isinstance(extra, str) and _NAME.fullmatch(extra)):
        raise ValueError(f"agent {name!r}: extra must be the name of one extra of "
                         f"{DISTRIBUTION} (such as models or panel), not {extra!r}")
    if isinstance(requires, str) or not all(isinstance(r, str) for r in requires):
        raise ValueError(f"agent {name!r}: requires must be a list of distribution names, "
                         f"not {requires!r}")
    needed = tuple(requires)
    for item in needed:  # a name, with a version specifier or a marker where wanted
        try:
            url = _requirement(item).url
        except ValueError as error:
            raise ValueError(f"agent {name!r}: requires: {error}") from None
        if url:
            raise ValueError(f"agent {name!r}: requires lists distributions, not the URL in "
                             f"{item!r} (requires_install says where they come from)")
    if bool(needed) != bool(requires_install):
        raise ValueError(f"agent {name!r}: requires and requires_install go together (the "
                         "distributions, and the command that installs them)")
    return needed


def _agent_spec(name: str) -> AgentSpec:
    """The registry entry called ``name`` (``ValueError``: no such agent). The registry imports
    this module (it checks an agent's requirements before making or preparing it), so its
    lookup is imported here when first called."""
    from dixit_ai.agents.registry import agent_spec

    return agent_spec(name)


def _canonical(name: str) -> str:
    """A distribution's or an extra's name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(text: str) -> Any:
    """``text`` as a ``packaging`` requirement (``packaging>=22``, a core dependency);
    ``ValueError`` naming it when it is no PEP 508 requirement."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement as error:
        raise ValueError(f"{text!r} is not a requirement ({error})") from None


def is_installed(distribution: str) -> bool:
    """Whether the distribution ``distribution`` is installed (its metadata is found)."""
    try:
        metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def _installed_metadata(distribution: str) -> Any:
    """The installed ``distribution``'s metadata, or ``None`` when it is not installed."""
    try:
        return metadata.metadata(distribution)
    except metadata.PackageNotFoundError:
        return None


def declared_extras(distribution: str = DISTRIBUTION) -> list[str] | None:
    """The extras the installed ``distribution`` declares (``None``: it is not installed)."""
    found = _installed_metadata(distribution)
    return None if found is None else list(found.get_all("Provides-Extra") or [])


def unmet(requirement: str, *, seen: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """What of ``requirement`` (PEP 508: a distribution, a version specifier, extras, a
    marker) is not installed: ``[]`` when it is met (or its marker excludes this Python);
    the distribution's name when it is absent; ``"torch==2.14.1 (2.13.0 is installed)"``
    when the installed version is not one the specifier allows; and what its extras need.

    Raises:
        ValueError: ``requirement`` is no PEP 508 requirement.
    """
    wanted = _requirement(requirement)
    if wanted.marker is not None and not wanted.marker.evaluate({"extra": ""}):
        return []
    return _unmet(wanted, seen)


def _unmet(wanted: Any, seen: frozenset[tuple[str, str]]) -> list[str]:
    from packaging.version import InvalidVersion

    try:
        version = metadata.version(wanted.name)
    except metadata.PackageNotFoundError:
        return [wanted.name]
    if wanted.specifier:
        try:
            allowed = wanted.specifier.contains(version, prereleases=True)
        except InvalidVersion:
            allowed = False
        if not allowed:
            return [f"{wanted.name}{wanted.specifier} ({version} is installed)"]
    missing: list[str] = []
    for extra in sorted(wanted.extras):
        inner = missing_for_extra(extra, distribution=wanted.name, seen=seen)
        missing += ([f"{wanted.name}[{extra}] (no such extra in {wanted.name} {version})"]
                    if inner is None else inner)
    return missing


def missing_for_extra(extra: str, *, distribution: str = DISTRIBUTION,
                      seen: frozenset[tuple[str, str]] = frozenset()) -> list[str] | None:
    """What ``distribution[extra]`` needs and is not installed (``[]``: nothing), each as
    :func:`unmet` says it (a name, or a name with the version wanted and the one installed);
    ``None`` when the installed distribution declares no such extra (or is not installed).

    A requirement belongs to the extra when its marker holds with that extra and not without
    it, so a marker's other conditions (``python_version < "3.12" and extra == "models"``)
    and alternatives (``extra == "web" or extra == "models"``) count as pip counts them.
    """
    found = _installed_metadata(distribution)
    if found is None or _canonical(extra) not in {
            _canonical(e) for e in found.get_all("Provides-Extra") or []}:
        return None
    key = (_canonical(distribution), _canonical(extra))
    if key in seen:  # an extra that names itself, directly or not
        return []
    missing: list[str] = []
    for text in found.get_all("Requires-Dist") or []:
        wanted = _requirement(text)
        if (wanted.marker is None or not wanted.marker.evaluate({"extra": extra})
                or wanted.marker.evaluate({"extra": ""})):
            continue  # not this extra's, or needed without it (a core dependency)
        missing += _unmet(wanted, seen | {key})
    return list(dict.fromkeys(missing))


def missing_packages(name: str) -> dict[str, list[str]]:
    """What the agent registered as ``name`` needs and is not installed: for each command that
    installs some of it (``pip install 'dixit-ai[panel]'``, the ``requires_install`` of its
    entry), what is missing or installed at a version it does not allow (as :func:`unmet`
    says it); ``{}`` when everything is installed.

    An extra that the installed ``dixit-ai`` does not declare is left out here
    (:func:`check_agent_requirements` refuses it), and so is every extra when ``dixit-ai`` is
    not installed (run from a source tree: nothing says what its extras hold).

    Raises:
        ValueError: no such agent.
    """
    spec = _agent_spec(name)
    missing: dict[str, list[str]] = {}
    if spec.extra:
        of_extra = missing_for_extra(spec.extra)
        if of_extra:
            missing[f"pip install '{DISTRIBUTION}[{spec.extra}]'"] = of_extra
    apart = list(dict.fromkeys(item for r in spec.requires for item in unmet(r)))
    if apart:
        missing[str(spec.requires_install)] = apart
    return missing


def undeclared_extra(name: str) -> str | None:
    """Why the extra of the agent registered as ``name`` cannot be installed, when the
    installed ``dixit-ai`` does not declare it (a misspelt extra, or an install older than the
    entry); ``None`` when it does, the entry names none, or ``dixit-ai`` is not installed."""
    spec = _agent_spec(name)
    extras = declared_extras() if spec.extra else None
    if spec.extra is None or extras is None or _canonical(spec.extra) in {
            _canonical(e) for e in extras}:
        return None
    return (f"agent {name!r} names the extra {spec.extra!r}, which the installed "
            f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)} does not declare (its extras: "
            f"{', '.join(sorted(extras))}): correct the entry's extra, or reinstall "
            f"{DISTRIBUTION} if the entry is newer than the install (pip install -e "
            f"'.[{spec.extra}]' in a checkout)")


def check_agent_requirements(names: Iterable[str]) -> None:
    """Refuse agents whose packages are not installed, or installed at a version their extra
    does not allow (see :func:`missing_packages`), and agents whose entry names an extra that
    the installed ``dixit-ai`` does not declare: a tournament, a benchmark or a server checks
    every agent it will make, panel members included, before it loads a model or embeds a
    card.

    Raises:
        ValueError: an unknown agent name.
        ImportError: a package is missing or at another version, or an extra is undeclared
            (the message names, for each such agent, the packages and the command that
            installs them, or the extra and the extras there are).
    """
    problems = []
    for name in dict.fromkeys(names):
        undeclared = undeclared_extra(name)
        if undeclared:
            problems.append(undeclared)
        missing = missing_packages(name)
        if missing:
            problems.append(f"agent {name!r} needs " + "; and ".join(
                _needs(packages) + f": {command}" for command, packages in missing.items()))
    if problems:
        raise ImportError("; ".join(problems))


def _needs(packages: list[str]) -> str:
    """``"a, b, which are not installed"``, ``"torch==2 (1.0 is installed)"``, or both."""
    absent = [p for p in packages if "(" not in p]
    other = [p for p in packages if "(" in p]
    said = [f"{', '.join(absent)}, {'which is' if len(absent) == 1 else 'which are'} not "
            "installed"] if absent else []
    return ", and ".join([*said, ", ".join(other)] if other else said)

