"""Rule overrides from text (``--rule KEY=VALUE``) and from config files, typed by RuleSet.

Every overridable parameter is a field of :class:`~dixit_ai.rules.RuleSet`; its annotation says
what a value may be (``int``, ``bool``, ``int | None``, a ``Literal`` of choices, an ``Enum``,
``float``, ``str``), so a field added to ``RuleSet`` is parsed correctly with no change here.
Ranges and combinations are checked by :meth:`RuleSet.edition` itself.

>>> parse_rule("score_limit=20")
('score_limit', 20)
>>> parse_rule("teams=no")
('teams', False)
>>> parse_rule("score_limit=none")
('score_limit', None)
>>> parse_rule("score_limit=abc")
Traceback (most recent call last):
...
ValueError: rule score_limit takes an integer or none, not 'abc'
"""

from __future__ import annotations

import dataclasses
import enum
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from dixit_ai.rules.ruleset import RuleSet

NOT_OVERRIDABLE = frozenset({"name"})
"""RuleSet fields chosen by the edition, never by an override."""

TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})
NONE_WORDS = frozenset({"none", "null"})

_INT = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class RuleType:
    """What one RuleSet field accepts.

    Attributes:
        name: The field's name.
        kinds: The value types it takes (``int``, ``bool``, ``float``, ``str``), in order.
        choices: The allowed values of a ``Literal`` or ``Enum`` field (empty: any value of
            ``kinds``).
        optional: Whether ``None`` is allowed.
        enum_type: The ``Enum`` class of an enum field, else ``None``.
    """

    name: str
    kinds: tuple[type, ...]
    choices: tuple[Any, ...] = ()
    optional: bool = False
    enum_type: type[enum.Enum] | None = None

    def describe(self) -> str:
        """In words, e.g. ``"an integer or none"`` or ``"one of 'end', 'reshuffle'"``."""
        if self.choices:
            words = "one of " + ", ".join(repr(_plain(c)) for c in self.choices)
        else:
            words = " or ".join(_KIND_WORDS.get(kind, kind.__name__) for kind in self.kinds)
        return words + (" or none" if self.optional else "")

    def parse(self, raw: str) -> Any:
        """The value that text ``raw`` stands for.

        Raises:
            ValueError: ``raw`` is not a value of this field (the message says what is).
        """
        text = raw.strip()
        lowered = text.lower()
        if self.optional and lowered in NONE_WORDS:
            return None
        if self.choices:
            for choice in self.choices:
                if text == str(_plain(choice)) or lowered == str(_plain(choice)).lower():
                    return choice
            raise self._error(raw)
        for kind in self.kinds:
            value = _parse_kind(kind, text)
            if value is not _NO_VALUE:
                return value
        raise self._error(raw)

    def check(self, value: Any) -> Any:
        """``value`` (from a config file) if this field accepts it; text is parsed as by
        :meth:`parse`.

        Raises:
            ValueError: a value of the wrong type or outside the choices.
        """
        if value is None:
            if self.optional:
                return None
            raise self._error(value)
        if isinstance(value, str) and not (str in self.kinds and not self.choices):
            return self.parse(value)
        if self.choices:
            if self.enum_type is not None and isinstance(value, self.enum_type):
                return value
            for choice in self.choices:
                if type(value) is type(_plain(choice)) and value == _plain(choice):
                    return choice
            raise self._error(value)
        for kind in self.kinds:
            if kind is bool and isinstance(value, bool):
                return value
            if kind is int and isinstance(value, int) and not isinstance(value, bool):
                return value
            if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            if kind is str and isinstance(value, str):
                return value
        raise self._error(value)

    def _error(self, value: Any) -> ValueError:
        return ValueError(f"rule {self.name} takes {self.describe()}, not {value!r}")


_KIND_WORDS: dict[type, str] = {int: "an integer", bool: "true or false", float: "a number",
                                str: "text"}
_NO_VALUE = object()


def _plain(choice: Any) -> Any:
    return choice.value if isinstance(choice, enum.Enum) else choice


def _parse_kind(kind: type, text: str) -> Any:
    lowered = text.lower()
    if kind is bool:
        if lowered in TRUE_WORDS:
            return True
        if lowered in FALSE_WORDS:
            return False
        return _NO_VALUE
    if kind is int:
        return int(text) if _INT.fullmatch(text) else _NO_VALUE
    if kind is float:
        try:
            return float(text)
        except ValueError:
            return _NO_VALUE
    if kind is str:
        return text
    return _NO_VALUE


def _rule_type(name: str, annotation: Any) -> RuleType:
    members: tuple[Any, ...] = (annotation,)
    if typing.get_origin(annotation) in (Union, types.UnionType):
        members = typing.get_args(annotation)
    optional = type(None) in members
    kinds: list[type] = []
    choices: list[Any] = []
    enum_type: type[enum.Enum] | None = None
    for member in members:
        if member is type(None):
            continue
        if typing.get_origin(member) is Literal:
            choices.extend(typing.get_args(member))
        elif isinstance(member, type) and issubclass(member, enum.Enum):
            enum_type = member
            choices.extend(member)
        elif member in (bool, int, float, str):
            kinds.append(member)
        else:
            raise TypeError(f"RuleSet field {name}: cannot parse values of type {member!r}")
    return RuleType(name, tuple(kinds), tuple(choices), optional, enum_type)


def rule_types() -> dict[str, RuleType]:
    """Every overridable RuleSet field and what it accepts, in field order."""
    hints = typing.get_type_hints(RuleSet)
    return {field.name: _rule_type(field.name, hints[field.name])
            for field in dataclasses.fields(RuleSet)
            if field.name not in NOT_OVERRIDABLE and not field.name.startswith("_")}


def _lookup(key: str) -> RuleType:
    name = key.strip().replace("-", "_")
    types_ = rule_types()
    if name not in types_:
        raise ValueError(f"unknown rule parameter {key!r}: valid parameters are "
                         f"{', '.join(sorted(types_))}")
    return types_[name]


def parse_rule(text: str) -> tuple[str, Any]:
    """``"KEY=VALUE"`` as ``(key, typed value)``, typed by the RuleSet field ``KEY``.

    Booleans take ``true/false``, ``yes/no``, ``on/off``, ``1/0``; optional fields take
    ``none``; choice fields take one of their choices.

    Raises:
        ValueError: no ``=``, an unknown key, or a value the field does not take.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"a rule override is KEY=VALUE, not {text!r}")
    rule = _lookup(key)
    return rule.name, rule.parse(raw)


def check_rules(overrides: Mapping[str, Any], *, source: str = "rules") -> dict[str, Any]:
    """Rule overrides from a config file (YAML or JSON values), checked by field type.

    Text values are parsed as :func:`parse_rule` parses them.

    Raises:
        ValueError: not a mapping, an unknown key, or a value of the wrong type (the message
            starts with ``source``).
    """
    if not isinstance(overrides, Mapping):
        raise ValueError(f"{source}: rule overrides are a mapping, not {overrides!r}")
    checked: dict[str, Any] = {}
    for key, value in overrides.items():
        try:
            rule = _lookup(str(key))
            checked[rule.name] = rule.check(value)
        except ValueError as error:
            raise ValueError(f"{source}: {error}") from None
    return checked
