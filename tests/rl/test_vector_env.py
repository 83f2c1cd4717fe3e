"""The vectorised environment (compiled core) against ``KseriEnv`` (the engine's ``Match``):
the same deals, seats and actions give the same observations, masks, rewards, ends and
scores, for every preset; its observations hold only what the learner's view holds; and
Gymnasium's checks that apply to a vector environment pass."""

import numpy as np
import pytest

from kseri import PRESETS, Deal, Rules
from kseri.agents.encoding import FIELDS, VECTOR_SIZE
from kseri.fast.env import ENCODED
from kseri.rl.gym_env import KseriEnv
from kseri.rl.vector_env import KseriVectorEnv

ENVS = 3


def lockstep(preset: str, opponents: str, episode: str, seat: int | None, steps: int, seed: int) -> int:
    """Step the vector environment and one ``KseriEnv`` per sub-environment (on the same
    deals) with the same random legal actions; assert every result equal. Returns the number
    of episodes that ended."""
    rules = Rules.preset(preset)
    vector = KseriVectorEnv(ENVS, rules, opponents=opponents, seat=seat, episode=episode, match_reward=30)
    singles = [KseriEnv(rules, opponents=opponents, seat=0, episode=episode, match_reward=30)
               for _ in range(ENVS)]
    deals: list[Deal] = []
    rng = np.random.default_rng(seed)

    def start(index: int, info: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, object]]:
        single = singles[index]
        single.fixed_seat = int(info["seat"][index])
        return single.reset(seed=index, options={"deals": lambda _round: deals[index]})

    observations, info = vector.reset(seed=seed)
    deals[:] = [vector.deal(index) for index in range(ENVS)]
    expected = [start(index, info)[0] for index in range(ENVS)]
    restart = [False] * ENVS
    ended = 0
    for _ in range(steps):
        for index in range(ENVS):
            assert np.array_equal(observations["observation"][index], expected[index]["observation"])
            assert np.array_equal(observations["action_mask"][index], expected[index]["action_mask"])
        masks = vector.action_masks()
        actions = np.where(masks.any(axis=1), (rng.random(masks.shape) * masks).argmax(axis=1), 0)
        observations, rewards, terminated, truncated, info = vector.step(actions)
        assert not truncated.any() and not info["illegal"].any()
        deals[:] = [vector.deal(index) for index in range(ENVS)]
        for index, single in enumerate(singles):
            if restart[index]:
                expected[index], _ = start(index, info)
                assert rewards[index] == 0.0 and not terminated[index]
                restart[index] = False
                continue
            expected[index], reward, over, _, single_info = single.step(int(actions[index]))
            assert rewards[index] == reward
            assert terminated[index] == over
            assert tuple(info["totals"][index]) == single_info["totals"]
            assert info["round"][index] == single_info["round"]
            restart[index] = over
            ended += over
    return ended


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("opponents", ["greedy", "expert"])
def test_rounds_match_the_engine(preset: str, opponents: str) -> None:
    rules = Rules.preset(preset)
    steps = 3 * rules.deck_size // rules.players
    assert lockstep(preset, opponents, "round", None, steps, seed=len(preset)) >= ENVS * 2


@pytest.mark.parametrize("preset", list(PRESETS))
def test_matches_match_the_engine(preset: str) -> None:
    assert lockstep(preset, "greedy", "match", 0, 400, seed=7) >= 1


def test_the_compiled_encoder_fills_every_field_but_the_rules() -> None:
    rules_fields = {field.name for field in FIELDS if field.doc.startswith("rule:")}
    assert set(ENCODED) | rules_fields == {field.name for field in FIELDS}
    assert not set(ENCODED) & rules_fields
    assert sum(field.size for field in FIELDS) == VECTOR_SIZE
