"""A random game of Dixit through the PettingZoo AEC API: the canonical loop.

Every agent samples a legal action from its action space with its observation's action mask
(``agent_iter``, ``last``, masked ``sample``, ``step``), then the script prints a summary: rounds,
steps, each agent's total reward (the points it scored) and the final table.

    python scripts/random_rollout.py
    python scripts/random_rollout.py --edition odyssey-2024 --players 8 --seed 3 --clue-mode vocab
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from dixit_ai.decks.dream import MAX_DREAM_SIZE
from envs import dixit_v0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edition", default="refresh-2021", help="the rules' edition")
    parser.add_argument("--players", type=int, default=4, help="number of players")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed")
    parser.add_argument("--deck", default="ids:84",
                        help="'ids:N' for card ids 0..N-1, or a deck spec such as 'dream'")
    parser.add_argument("--clue-mode", choices=["text", "vocab"], default="text",
                        help="clues as text, or as indices into a vocabulary")
    parser.add_argument("--max-rounds", type=int, default=None, help="truncate after N rounds")
    args = parser.parse_args()
    if args.max_rounds is not None and args.max_rounds < 1:
        parser.error(f"--max-rounds must be at least 1, not {args.max_rounds}")
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, not {args.seed}")
    deck: str | list[int] = args.deck
    if args.deck.startswith("ids:"):
        count = args.deck.removeprefix("ids:")
        if not count.isdigit():
            parser.error(f"--deck ids:N needs a whole number of cards, not {count!r}")
        if int(count) > MAX_DREAM_SIZE:
            parser.error(f"--deck ids:N takes at most {MAX_DREAM_SIZE:,} cards (as a dream deck "
                         f"does), not {int(count):,}")
        deck = list(range(int(count)))

    try:  # bad input (edition, players, deck) is refused here, with the rules' message
        env = dixit_v0.env(edition=args.edition, n_players=args.players, deck=deck,
                           clue_mode=args.clue_mode, max_rounds=args.max_rounds,
                           render_mode="ansi")
        env.reset(seed=args.seed)
    except ValueError as error:
        parser.error(str(error))
    for agent in env.agents:  # the agents' own samplers, seeded from the game's seed
        env.action_space(agent).seed(args.seed + env.possible_agents.index(agent))

    totals: dict[str, float] = defaultdict(float)
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if "illegal_action" in info:
            print(f"{agent} acted illegally: {info['illegal_action']}")
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(observation["action_mask"])
        env.step(action)
        steps += 1

    table = env.unwrapped
    state = table.core.state
    print(env.render())
    print(f"{args.edition}, {args.players} players, seed {args.seed}: {state.round} rounds, "
          f"{steps} steps, illegal actions: {len(table.illegal_actions)}")
    for agent in env.possible_agents:
        print(f"  {agent}: total reward {totals[agent]:g}")


if __name__ == "__main__":
    main()
