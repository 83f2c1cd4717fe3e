"""A PettingZoo AEC environment: every seat an agent, for every preset.

Agents are ``player_0`` ... ``player_{n-1}`` by seat. Each agent's observation is
:func:`kseri.rl.gym_env.observe` of its own view, so it holds only what that seat may know,
with the action mask (non-zero only on its turn). At the end of each round every agent is
rewarded its side's round points less the mean of the other sides' (partners alike).

>>> environment = env(rules="partnership")
>>> environment.reset(seed=3)
>>> environment.agent_selection in environment.possible_agents
True
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from kseri.agents.encoding import ACTIONS, card_for_action
from kseri.bench.duplicate import side_difference
from kseri.engine import Match
from kseri.rl.gym_env import Observation, as_rules, observation_space, observe
from kseri.rules import Rules


def env(**kwargs: Any) -> AECEnv[str, Observation, int]:
    """The environment with PettingZoo's usual guards: an illegal action ends the game with
    reward -1 for the agent that made it (``TerminateIllegalWrapper``), an action outside
    the space raises, and the calls' order is enforced."""
    wrapped: AECEnv[str, Observation, int] = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """Kseri for all seats; ``episode`` is one round or a whole match; ``match_reward`` is
    added for the winning side and taken off for the others at a match's end."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"], "name": "kseri_v0", "is_parallelizable": False,
    }

    def __init__(self, rules: Rules | str = "greek", *, episode: Literal["round", "match"] = "round",
                 match_reward: float = 0.0, observation_format: Literal["vector", "dict"] = "vector",
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = as_rules(rules)
        if episode not in ("round", "match"):
            raise ValueError(f"episode must be 'round' or 'match', not {episode!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.episode = episode
        self.match_reward = match_reward
        self.observation_format = observation_format
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.players)]
        self.agents = self.possible_agents[:]
        self._observation_space = observation_space(observation_format)
        self._action_space = spaces.Discrete(ACTIONS)
        self.match: Match | None = None
        self._seed_rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same space for every agent (:func:`kseri.rl.gym_env.observation_space`)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Card faces, 0 to 51."""
        return self._action_space

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match, seeded from ``seed`` (or ``options["match_seed"]``)."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        match_seed = (options or {}).get("match_seed", int(self._seed_rng.integers(2**63)))
        self.match = Match(self.rules, seed=match_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        assert self.match.turn is not None
        self.agent_selection = self.possible_agents[self.match.turn]

    def observe(self, agent: str) -> Observation:
        """What ``agent``'s seat may know, and its action mask."""
        assert self.match is not None, "call reset() first"
        return observe(self.match.view(self._seat(agent)), self.observation_format)

    def step(self, action: int | None) -> None:
        """The selected agent plays the card of face ``action`` (``None`` once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self.match
        assert match is not None and action is not None
        seat = self._seat(agent)
        match.play(card_for_action(match.view(seat), int(action)))
        self._clear_rewards()
        if match.turn is None:
            rules = self.rules
            points = match.round_results[-1].points
            for other, name in enumerate(self.possible_agents):
                self.rewards[name] = side_difference(points, rules.side_of(other))
            if match.is_over():
                for other, name in enumerate(self.possible_agents):
                    won = match.winner == rules.side_of(other)
                    self.rewards[name] += self.match_reward if won else -self.match_reward
            if match.is_over() or self.episode == "round":
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                match.next_round()
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()
        if match.turn is not None:
            self.agent_selection = self.possible_agents[match.turn]
        else:
            self.agent_selection = self._deads_step_first()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.match is None:
            return None
        view = self.match.view(0)
        top = view.centre_top.pretty() if view.centre_top is not None else "-"
        return (f"round {view.round_index} turn {view.turn} centre {top} ({view.centre_size}) "
                f"hands {list(view.hand_sizes)} totals {list(view.totals)}")

    def close(self) -> None:
        """Nothing to release."""
