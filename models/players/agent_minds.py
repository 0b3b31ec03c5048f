"""The minds and fitted files a :class:`~models.players.ClipAgent` decides with.

Its ``population`` and ``reading_minds`` options as names (:func:`population_names`,
:func:`names_list`); the simulated minds, each with its vectors and guess model, loaded on first
use (:func:`population_members`); the settings an unseen-minds map must have been fitted under
(:func:`unseen_minds_settings`); and every fitted file its decisions use, with the voters each
records it was fitted on (:func:`fitted_files`).
"""

from __future__ import annotations

from typing import Any

from dixit_ai.decks.cache import file_sha256
from models.players.guess_files import calibration_path, resolve_path
from models.players.guess_model import GuessModel, fitted_file_voters
from models.players.panel_models import load_member_resources
from models.players.resources import PlayerResources
from models.players.storyteller import ClipStoryteller


def names_list(names: Any) -> list[Any]:
    """Embedder names (or ready :class:`PlayerResources`) from a list or a comma-separated
    string."""
    if isinstance(names, str):
        return [n.strip() for n in names.split(",") if n.strip()]
    return [n if isinstance(n, PlayerResources) else str(n) for n in names]


def population_names(population: Any) -> list[Any] | None:
    """The population's embedder names or ready :class:`PlayerResources` (``None``: none),
    refusing ground-truth readers."""
    from models.players.panel_models import refuse_ground_truth

    if population is None or population == "" or population == []:
        return None
    names = names_list(population)
    for name in names:
        refuse_ground_truth(name)
    keys = [n if isinstance(n, str) else n.fingerprint for n in names]
    if len(set(keys)) != len(keys):
        raise ValueError(f"population {keys} names a member twice")
    return names


def population_members(population: list[Any], fit: Any, own: PlayerResources,
                       own_model: GuessModel, *, agent: str, deck: Any, vocabulary: Any,
                       vocabulary_size: int | None, device: str, temperature_scale: float
                       ) -> list[tuple[PlayerResources, GuessModel]]:
    """``(resources, guess model)`` of every simulated mind of ``population``: ``own`` and
    ``own_model`` are the agent's (``agent``: its name) and ``fit`` its population fit
    (``None``: the built-in guess model for members other than itself)."""
    members = []
    for name in population:
        if name == "copy":  # a copy of this agent: its own vectors and calibration
            members.append((own, own_model))
            continue
        if isinstance(name, PlayerResources):
            resources = name
        elif name != "self" and isinstance(deck, PlayerResources):
            raise ValueError(
                f"{agent}: population member {name!r} needs its own vectors of "
                "the cards, and the deck was given as ready vectors (PlayerResources):"
                " pass the members' PlayerResources in population=[...], or a deck "
                "spec")
        else:
            resources = own if name == "self" else load_member_resources(
                name, deck, vocabulary, vocabulary_size, device)
        fallback = own_model if resources.fingerprint == own.fingerprint else \
            GuessModel(correlation=0.0)
        model = fallback if fit is None else fit.model_for(
            resources.fingerprint, fallback, name if isinstance(name, str) else "")
        members.append((resources, model.scaled(temperature_scale)))
    return members


def unseen_minds_settings(population: list[Any] | None, population_calibration: str | None,
                          temperature_scale: float, story: ClipStoryteller) -> dict[str, Any]:
    """The settings an unseen-minds map must have been fitted under to serve a storyteller
    (:data:`models.players.unseen_minds.SETTINGS`)."""
    from models.players.population_fit import population_fit_path
    from models.players.unseen_minds import file_sha256

    fit = population_fit_path(population_calibration) if population else None
    return {"population": ",".join(n if isinstance(n, str) else n.fingerprint
                                   for n in population or []),
            "population_calibration_sha256": (file_sha256(fit) if fit is not None
                                              and fit.is_file() else None),
            "population_temperature_scale": temperature_scale,
            "aim": story.aim, "tolerance": story.tolerance,
            "robustness": story.robustness, "table_mix": story.table_mix}


def fitted_files(calibration: str | None, population: list[Any] | None,
                 population_calibration: str | None, policy: str | None,
                 unseen_minds: str | None) -> list[dict[str, Any]]:
    """Every fitted file a storyteller's decisions use, with the voters it records it was
    fitted on (``voter_models``; ``None``: it does not say) and the SHA-256 of its bytes (what
    the decisions were made with: a file rewritten under the same name gives another hash):
    its calibration, its population fit (with a population) and its policy checkpoint, as
    ``{"kind", "file", "sha256", "voters"}``.

    Raises:
        ValueError: a file's record of voters is malformed; the message names the file.
    """
    from models.players.population_fit import population_fit_path

    files: list[tuple[str, str, Any]] = []
    path = calibration_path(calibration)
    if path is not None:
        shown = path.name if calibration == "default" else str(path)
        files.append(("calibration", shown, path))
    fit = population_fit_path(population_calibration) if population else None
    if fit is not None:
        files.append(("population", str(population_calibration), fit))
    if policy:
        files.append(("policy", str(policy), resolve_path(policy)))
    if unseen_minds:
        files.append(("unseen-minds", str(unseen_minds), resolve_path(unseen_minds)))
    return [{"kind": kind, "file": shown, "sha256": file_sha256(where),
             "voters": fitted_file_voters(where)} for kind, shown, where in files]
