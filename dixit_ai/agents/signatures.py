"""What an agent's factory takes: its signature as its keyword arguments must fit it (read through
a class that only passes ``**kwargs`` on), a wrong keyword named before the call, whether it takes
a given parameter (``deck``)."""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dixit_ai.agents.registry import AgentSpec


def check_arguments(spec: AgentSpec, factory: Any, kwargs: Mapping[str, Any]) -> None:
    """Bind ``kwargs`` to ``factory``'s signature before the call, so that a wrong keyword is
    named as such (a ``TypeError`` raised inside the constructor is left as it is)."""
    signature = signature_of(factory)
    if signature is None:
        return
    try:
        signature.bind(**kwargs)
    except TypeError as error:
        takes = [p.name for p in signature.parameters.values()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        unknown = [key for key in kwargs if key not in takes]
        what = (f"takes no keyword argument {', '.join(map(repr, unknown))}" if unknown
                else str(error))
        raise ValueError(f"agent {spec.name!r} ({spec.entry_point}) {what}; it takes: "
                         f"{', '.join(takes) or 'no keyword arguments'}") from None


def signature_of(factory: Any) -> inspect.Signature | None:
    """The signature that ``factory``'s keyword arguments must fit (``None``: unreadable).

    A class whose ``__init__`` only passes ``**kwargs`` on (``def __init__(self, **kwargs):
    super().__init__(**kwargs)``, as the baseline tellers do) is read from the nearest base
    whose ``__init__`` names its arguments; one whose bases name none takes any keyword.
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    if not isinstance(factory, type) or not passes_on(signature.parameters.values()):
        return signature
    for base in factory.__mro__[1:]:
        if base is object:
            break
        init = vars(base).get("__init__")
        if init is None:
            continue
        try:
            parameters = list(inspect.signature(init).parameters.values())[1:]
        except (TypeError, ValueError):
            return None
        if not passes_on(parameters):
            return signature.replace(parameters=parameters)
    return signature


def passes_on(parameters: Iterable[inspect.Parameter]) -> bool:
    """Whether a signature takes only ``*args`` and ``**kwargs`` (and takes keywords)."""
    kinds = {p.kind for p in parameters}
    return inspect.Parameter.VAR_KEYWORD in kinds and kinds <= {
        inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}


def has_parameter(factory: Any, parameter: str) -> bool:
    """Whether ``factory`` takes ``parameter`` by keyword (read as :func:`signature_of` reads a
    class that passes ``**kwargs`` on)."""
    signature = signature_of(factory)
    found = None if signature is None else signature.parameters.get(parameter)
    return found is not None and found.kind in (found.POSITIONAL_OR_KEYWORD, found.KEYWORD_ONLY)
