"""A vectorised Gymnasium environment: many kseri games stepped at once on the compiled core.

:class:`KseriVectorEnv` is :class:`~kseri.rl.gym_env.KseriEnv` ``num_envs`` times over, run by
``kseri.fast.env`` (numba) instead of one ``Match`` each: the same observations (the encoding
of the learner's view, and its action mask), rewards and episode ends, batched. The other
seats follow the compiled built-in policies (``random``, ``greedy``, ``expert``).
Sub-environments reset themselves on the step after their episode ends (Gymnasium's
next-step autoreset).

>>> import numpy as np
>>> envs = KseriVectorEnv(4, "pisti", opponents="greedy")
>>> observations, infos = envs.reset(seed=1)
>>> observations["observation"].shape, observations["action_mask"].shape
((4, 724), (4, 52))
>>> actions = envs.action_masks().argmax(axis=1)
>>> observations, rewards, terminated, truncated, infos = envs.step(actions)
>>> bool(infos["illegal"].any())
False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from kseri.agents.encoding import ACTIONS, FIELDS, OFFSETS, SCALES, rule_constants
from kseri.engine import Deal
from kseri.fast.env import ENCODED, EnvBatch, Layout
from kseri.rl.gym_env import as_rules, observation_space
from kseri.rules import Rules

VectorObservation = dict[str, NDArray[Any]]
COMPILED_OPPONENTS = ("random", "greedy", "expert")
"""The bot levels the compiled core plays for the other seats."""
INFO_KEYS = ("seat", "round", "totals", "illegal")
"""What ``info`` holds for each environment."""


def layout(rules: Rules) -> Layout:
    """``kseri.agents.encoding``'s layout as the compiled encoder takes it."""
    names = {field.name for field in FIELDS}
    missing = set(ENCODED) - names
    if missing:
        raise RuntimeError(f"the encoding has no fields {sorted(missing)}")
    return Layout(np.array([OFFSETS[name] for name in ENCODED], np.int64), rule_constants(rules),
                  np.ascontiguousarray(SCALES, np.float32))


class KseriVectorEnv(VectorEnv[VectorObservation, NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` kseri games, each seen by one learning seat, stepped together by compiled code.

    The arguments are :class:`~kseri.rl.gym_env.KseriEnv`'s, except that ``opponents`` names
    compiled policies only (``random``, ``greedy``, ``expert``: one for every other seat, or
    one per seat, the learner's entry ignored) and the observation is the flat vector. An
    observation is ``{"observation": float32[num_envs, 724], "action_mask": int8[num_envs,
    52]}``; :meth:`action_masks` gives the masks as booleans. ``info`` holds each
    environment's ``seat``, ``round`` and match ``totals`` and whether its action was
    ``illegal`` (it then changed nothing and earned ``illegal_reward``).
    ``reset(seed=s)`` seeds environment ``i`` with stream ``i`` of ``s`` (or give one seed per
    environment); ``options={"reset_mask": mask}`` resets only some. ``autoreset_mode`` is
    Gymnasium's next-step mode (the default: the step after an episode's end starts the next
    episode, its action ignored, reward 0) or its same-step mode (the step that ends an episode
    returns the next episode's first observation; ``info["final_obs"]`` and
    ``info["final_info"]`` hold the ended one's last).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 (Gymnasium's class attribute)

    def __init__(self, num_envs: int = 1024, rules: Rules | str = "greek", *,
                 opponents: str | Sequence[str] = "greedy", seat: int | None = 0,
                 episode: Literal["round", "match"] = "round", match_reward: float = 0.0,
                 illegal_reward: float = -1.0,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP) -> None:
        self.rules = as_rules(rules)
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NextStep or SameStep, not {mode.value}")
        self.metadata = {"autoreset_mode": mode}
        if episode not in ("round", "match"):
            raise ValueError(f"episode must be 'round' or 'match', not {episode!r}")
        names = [opponents] * self.rules.players if isinstance(opponents, str) else list(opponents)
        for name in names:
            if name not in COMPILED_OPPONENTS:
                raise ValueError(f"the vectorised environment's opponents are compiled policies "
                                 f"({', '.join(COMPILED_OPPONENTS)}), not {name!r}; for other opponents, "
                                 "vectorise KseriEnv (gymnasium.make_vec(..., vectorization_mode='sync'))")
        self.batch = EnvBatch(self.rules, num_envs, layout(self.rules), policies=names, seat=seat,
                              whole_match=episode == "match", match_reward=match_reward,
                              illegal_reward=illegal_reward)
        self.num_envs = num_envs
        self.episode = episode
        self.single_observation_space = observation_space("vector")
        self.single_action_space = spaces.Discrete(ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._started = False

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[VectorObservation, dict[str, Any]]:
        """Start new episodes in every environment (or those of ``options["reset_mask"]``)."""
        count = self.num_envs
        if seed is None:
            seeds: list[int | None] = [None] * count
            if not self._started:  # no seed at all: fresh entropy
                seeds = [int(value) for value in np.random.SeedSequence().generate_state(count, np.uint64)]
        elif isinstance(seed, int):
            super().reset(seed=seed)
            seeds = [seed * 2**32 + index for index in range(count)]
        else:
            seeds = list(seed)
            if len(seeds) != count:
                raise ValueError(f"give one seed, or one per environment ({count}), not {len(seeds)}")
        which = np.ones(count, np.bool_)
        if options is not None and "reset_mask" in options:
            which = np.asarray(options["reset_mask"])
            if which.shape != (count,) or which.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({count},)")
        self.batch.reset(which, seeds)
        self._started = True
        return self._observations(), self._info(self.batch.illegal.copy())

    def step(self, actions: NDArray[np.integer] | Sequence[int]) -> tuple[
            VectorObservation, NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        """Each environment's learner plays the card of face ``actions[i]``; see the class."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"give one action per environment: shape ({self.num_envs},), not {array.shape}")
        batch = self.batch
        batch.step(array)
        rewards, terminated, illegal = batch.rewards.copy(), batch.terminated.copy(), batch.illegal.copy()
        truncated = np.zeros(self.num_envs, np.bool_)
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and terminated.any():
            ended = np.flatnonzero(terminated)
            last, last_info = self._observations(), self._info(illegal)
            final_obs = np.full(self.num_envs, None, object)
            final_info = np.full(self.num_envs, None, object)
            for index in ended:
                final_obs[index] = {key: value[index] for key, value in last.items()}
                final_info[index] = {key: last_info[key][index] for key in INFO_KEYS}
            batch.reset(terminated)
            finals = {"final_obs": final_obs, "final_info": final_info, "_final_obs": terminated,
                      "_final_info": terminated}
            return self._observations(), rewards, terminated, truncated, self._info(illegal) | finals
        return self._observations(), rewards, terminated, truncated, self._info(illegal)

    def action_masks(self) -> NDArray[np.bool_]:
        """Each environment's legal actions now (all false on the step after its episode ended)."""
        return self.batch.masks.astype(np.bool_)

    def deal(self, index: int) -> Deal:
        """Environment ``index``'s current round as dealt (hidden cards included: for replays
        with ``Match(rules, deal=...)`` and tests, not for the learner)."""
        dealer, hands, centre, face_down, shown = self.batch.deal(index)
        dealt = tuple(tuple(tuple(hand) for hand in batch) for batch in hands)
        return Deal(dealer, tuple(centre), face_down, dealt, shown)

    def _observations(self) -> VectorObservation:
        return {"observation": self.batch.observations.copy(), "action_mask": self.batch.masks.copy()}

    def _info(self, illegal: NDArray[np.bool_]) -> dict[str, Any]:
        batch = self.batch
        everywhere = np.ones(self.num_envs, np.bool_)
        values = dict(zip(INFO_KEYS, (batch.seats(), batch.rounds(), batch.totals(), illegal), strict=True))
        return values | {f"_{key}": everywhere for key in values}

