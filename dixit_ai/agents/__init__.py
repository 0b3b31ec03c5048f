"""Agents: the protocol every player implements, the registry, and the random agent."""

from __future__ import annotations

from dixit_ai.agents.base import (
    Agent,
    Announcement,
    Choice,
    PartyAgent,
    Story,
    as_choice,
    missing_party_decisions,
)
from dixit_ai.agents.random_agent import RandomAgent
from dixit_ai.agents.registry import (
    AgentSpec,
    agent_config_dirs,
    agent_spec,
    check_agent_arguments,
    import_agent_code,
    list_agents,
    load_agent_configs,
    make_agent,
    make_agent_for_deck,
    party_agents,
    party_problem,
    prepare_agents,
    register_agent,
)

__all__ = [
    "Agent",
    "AgentSpec",
    "Announcement",
    "Choice",
    "PartyAgent",
    "RandomAgent",
    "Story",
    "agent_config_dirs",
    "agent_spec",
    "as_choice",
    "check_agent_arguments",
    "import_agent_code",
    "list_agents",
    "load_agent_configs",
    "make_agent",
    "make_agent_for_deck",
    "missing_party_decisions",
    "party_agents",
    "party_problem",
    "prepare_agents",
    "register_agent",
]
