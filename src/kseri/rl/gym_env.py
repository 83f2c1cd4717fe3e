"""A Gymnasium environment: one seat learns, built-in bots (or any policy) play the others.

>>> import numpy as np
>>> env = KseriEnv("pisti", opponents="greedy")
>>> observation, info = env.reset(seed=1)
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((724,), 4)
>>> action = int(np.flatnonzero(observation["action_mask"])[0])
>>> observation, reward, terminated, truncated, info = env.step(action)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces

from kseri.agents.base import Agent, make_agent
from kseri.agents.encoding import (
    ACTIONS,
    FIELDS,
    VECTOR_SIZE,
    Mask,
    Vector,
    action_mask,
    card_for_action,
    encode_dict,
    encode_vector,
)
from kseri.bench.duplicate import side_difference
from kseri.cards import Card
from kseri.engine import Deal, Match, View
from kseri.rules import Rules

Policy = Callable[[View], int]
"""Any policy: a view in, a card (or card number) out."""
Opponent = str | Agent | Policy
"""A bot level's name (``kseri.agents.make_agent``), an agent, or a policy."""
Observation = dict[str, Any]


HIGH = 1e6
"""Upper bound of every observation value (counts and points stay far below it)."""


def observation_space(observation_format: Literal["vector", "dict"] = "vector") -> spaces.Dict:
    """The space of one seat's observation: the encoding (a flat vector, or its named fields)
    and ``action_mask`` (1 for each card face the seat may play)."""
    mask = spaces.Box(0, 1, (ACTIONS,), np.int8)
    if observation_format == "vector":
        return spaces.Dict({"observation": spaces.Box(0, HIGH, (VECTOR_SIZE,), np.float32),
                            "action_mask": mask})
    if observation_format == "dict":
        fields: dict[str, spaces.Space[Any]] = {
            field.name: spaces.Box(0, HIGH, (field.size,), np.float32) for field in FIELDS
        }
        return spaces.Dict({"observation": spaces.Dict(fields), "action_mask": mask})
    raise ValueError(f"observation_format must be 'vector' or 'dict', not {observation_format!r}")


def observe(view: View, observation_format: Literal["vector", "dict"] = "vector") -> Observation:
    """One seat's observation of ``view`` in the shape of :func:`observation_space`."""
    encoded: Vector | dict[str, Vector] = (
        encode_vector(view) if observation_format == "vector" else encode_dict(view)
    )
    mask: Mask = action_mask(view)
    return {"observation": encoded, "action_mask": mask}


def as_rules(rules: Rules | str) -> Rules:
    """``rules`` itself, or the rules of a spec like ``greek`` or ``greek,jack_kseri=25``."""
    return rules if isinstance(rules, Rules) else Rules.from_spec(rules)


def opponent_policy(opponent: Opponent, seed: int) -> Policy:
    """A policy for one seat: a level's name becomes the built-in bot seeded with ``seed``."""
    if isinstance(opponent, str):
        return make_agent(opponent, seed=seed).choose
    if isinstance(opponent, Agent):
        return opponent.choose
    if callable(opponent):
        return opponent
    raise TypeError(f"an opponent is a bot level, an agent or a callable, not {opponent!r}")


class KseriEnv(gymnasium.Env[Observation, np.int64]):
    """One seat of a kseri game; the other seats are played by ``opponents``.

    An episode is one round (``episode="round"``) or a whole match (``"match"``); the seat
    learning is ``seat``, or a random seat each episode when ``None``. Actions are card faces
    (:data:`~kseri.agents.encoding.ACTIONS`); the observation's ``action_mask`` marks the legal
    ones. An illegal action changes nothing: it earns ``illegal_reward`` and ``info["illegal"]``
    says why. The reward at the end of each round is the learner's side's round points less the
    mean of the other sides' (``side_difference``); in a match, ``match_reward`` is added for a
    win and taken off for a loss at the end.
    ``opponents`` is one opponent for every other seat (partners included) or one per seat
    (the learner's entry is ignored).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's instance attribute)

    def __init__(self, rules: Rules | str = "greek", *, opponents: Opponent | Sequence[Opponent] = "greedy",
                 seat: int | None = 0, episode: Literal["round", "match"] = "round",
                 match_reward: float = 0.0, illegal_reward: float = -1.0,
                 observation_format: Literal["vector", "dict"] = "vector",
                 render_mode: str | None = None) -> None:
        self.rules = as_rules(rules)
        players = self.rules.players
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1} or None, not {seat}")
        if episode not in ("round", "match"):
            raise ValueError(f"episode must be 'round' or 'match', not {episode!r}")
        if isinstance(opponents, str) or not isinstance(opponents, Sequence):
            opponents = [opponents] * players
        elif len(opponents) != players:
            raise ValueError(f"give one opponent, or one per seat ({players}), not {len(opponents)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.opponents = list(opponents)
        self.fixed_seat = seat
        self.episode = episode
        self.match_reward = match_reward
        self.illegal_reward = illegal_reward
        self.observation_format = observation_format
        self.render_mode = render_mode
        self.observation_space = observation_space(observation_format)
        self.action_space = spaces.Discrete(ACTIONS)
        self.seat = seat or 0
        self.match: Match | None = None
        self._policies: list[Policy] = []
        self._deals: Callable[[int], Deal] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode: a new match (seeded from the environment's random generator, or
        ``options["match_seed"]``); the opponents play until the learner's turn.
        ``options["deals"]``, a function of the round's number, gives each round's
        :class:`~kseri.engine.Deal` instead of the match's shuffle (to replay deals)."""
        super().reset(seed=seed)
        rng = self.np_random
        match_seed = (options or {}).get("match_seed", int(rng.integers(2**63)))
        self._deals = (options or {}).get("deals")
        players = self.rules.players
        self.seat = int(rng.integers(players)) if self.fixed_seat is None else self.fixed_seat
        self._policies = [opponent_policy(opponent, int(rng.integers(2**31)))
                          for opponent in self.opponents]
        self.match = Match(self.rules, seed=match_seed, deal=self._deals(0) if self._deals else None)
        reward, over = self._advance()
        assert reward == 0.0 and not over, "every seat plays in every round"
        return self._observe(), self._info()

    def step(self, action: np.int64 | int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the card of face ``action``; the opponents then play until the learner's turn
        or the episode's end."""
        match = self._require_match()
        if match.turn != self.seat:
            raise RuntimeError("the episode is over: call reset()")
        try:
            card = card_for_action(match.view(self.seat), int(action))
        except ValueError as error:
            return self._observe(), self.illegal_reward, False, False, self._info() | {"illegal": str(error)}
        match.play(card)
        reward, terminated = self._advance()
        return self._observe(), reward, terminated, False, self._info()

    def _advance(self) -> tuple[float, bool]:
        """Let the opponents play up to the learner's next turn; the rewards on the way, and
        whether the episode is over."""
        match = self._require_match()
        reward = 0.0
        while True:
            while (turn := match.turn) is not None and turn != self.seat:
                match.play(Card(self._policies[turn](match.view(turn))))
            if turn == self.seat:
                return reward, False
            side = self.rules.side_of(self.seat)
            reward += side_difference(match.round_results[-1].points, side)
            if match.is_over():
                reward += self.match_reward if match.winner == side else -self.match_reward
                return reward, True
            if self.episode == "round":
                return reward, True
            match.next_round(deal=self._deals(match.round_index + 1) if self._deals else None)

    def _require_match(self) -> Match:
        if self.match is None:
            raise RuntimeError("call reset() before step()")
        return self.match

    def _observe(self) -> Observation:
        return observe(self._require_match().view(self.seat), self.observation_format)

    def _info(self) -> dict[str, Any]:
        match = self._require_match()
        return {"seat": self.seat, "round": match.round_index, "totals": match.totals}

    def render(self) -> str | None:
        """The learner's view as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.match is None:
            return None
        view = self.match.view(self.seat)
        top = view.centre_top.pretty() if view.centre_top is not None else "-"
        hand = " ".join(card.pretty() for card in view.hand)
        return (f"seat {self.seat} round {view.round_index} centre {top} ({view.centre_size}) "
                f"hand {hand} totals {list(view.totals)}")


gymnasium.register(id="kseri/Kseri-v0", entry_point="kseri.rl.gym_env:KseriEnv",
                   vector_entry_point="kseri.rl.vector_env:KseriVectorEnv")
