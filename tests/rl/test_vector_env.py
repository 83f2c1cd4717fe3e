"""The vectorised environment (compiled core) against ``KseriEnv`` (the engine's ``Match``):
the same deals, seats and actions give the same observations, masks, rewards, ends and
scores, for every preset; its observations hold only what the learner's view holds; and
Gymnasium's checks that apply to a vector environment pass."""

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers.vector import DictInfoToList, RecordEpisodeStatistics

from kseri import PRESETS, Deal, Rules
from kseri.agents.encoding import FIELDS, OFFSETS, VECTOR_SIZE
from kseri.cards import ALL_CARDS, JACK, RANK_OF
from kseri.engine import View
from kseri.fast import kernels
from kseri.fast.env import (
    BATCH,
    DONE,
    ENCODED,
    FIRST_CAPTURER,
    HIDDEN,
    HIDDEN_POINTS,
    PILE_LEN,
    PILE_PLAIN,
    PILE_POINTS,
    POINTS,
    SEAT,
    EnvBatch,
)
from kseri.fast.flat import flatten as compiled_rules
from kseri.rl.gym_env import KseriEnv, observation_space
from kseri.rl.vector_env import KseriVectorEnv
from kseri.rules import CentreDeal

ENVS = 3


def lockstep(preset: str, opponents: str | list[str], episode: str, seat: int | None, steps: int,
             seed: int) -> int:
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


@pytest.mark.parametrize("preset", ["partnership", "three-player", "faro"])
def test_mixed_opponents_and_random_seats_over_matches_match_the_engine(preset: str) -> None:
    players = Rules.preset(preset).players
    opponents = [("expert", "greedy")[seat % 2] for seat in range(players)]
    assert lockstep(preset, opponents, "match", None, 300, seed=5) >= 1


def test_the_compiled_encoder_fills_every_field_but_the_rules() -> None:
    rules_fields = {field.name for field in FIELDS if field.doc.startswith("rule:")}
    assert set(ENCODED) | rules_fields == {field.name for field in FIELDS}
    assert not set(ENCODED) & rules_fields
    assert sum(field.size for field in FIELDS) == VECTOR_SIZE


def hidden_places(batch: EnvBatch, index: int) -> list[tuple[str, tuple[int, ...]]]:
    """Where environment ``index`` holds cards its learner cannot know: the other seats' hands,
    the batches still to be dealt, face-down centre cards it did not take (the shown card,
    known to all, stays)."""
    numbers = batch.numbers[index]
    me = int(numbers[SEAT])
    rules = batch.rules
    shown = batch.deal(index)[4]
    places: list[tuple[str, tuple[int, ...]]] = []
    for seat in range(rules.players):
        if seat != me:
            places += [("hands", (index, seat, k)) for k in range(batch.lengths[index, seat])]
    for later in range(int(numbers[BATCH]), rules.batches):
        for seat in range(rules.players):
            places += [("dealt", (index, later, seat, k)) for k in range(rules.batch_size)]
    if numbers[FIRST_CAPTURER] != me:
        places += [("centre", (index, k)) for k in range(batch.deal(index)[3])]
    return [(name, place) for name, place in places if int(getattr(batch, name)[place]) != shown]


def face_down_points(batch: EnvBatch, index: int) -> int:
    """The card points of environment ``index``'s face-down centre cards."""
    table = batch.rules.points_table
    return sum(table[card] for card in batch.centre[index, :batch.deal(index)[3]].tolist())


def resettle(batch: EnvBatch, index: int, before: int) -> None:
    """Make environment ``index``'s own counts agree with its shuffled hidden cards: the
    face-down cards in the centre, the centre's points and Jacks, the points of the side that
    took the face-down cards (worth ``before`` points before the shuffle)."""
    numbers = batch.numbers[index]
    table = batch.rules.points_table
    hidden = int(numbers[HIDDEN])
    batch.pile[index, :hidden] = batch.centre[index, :hidden]
    pile = batch.pile[index, :numbers[PILE_LEN]].tolist()
    numbers[PILE_POINTS] = sum(table[card] for card in pile)
    numbers[PILE_PLAIN] = sum(RANK_OF[card] != JACK for card in pile)
    numbers[HIDDEN_POINTS] = sum(table[card] for card in pile[:hidden])
    taker = int(numbers[FIRST_CAPTURER])
    if taker >= 0:
        batch.per_side[index, POINTS, batch.rules.side_of(taker)] += face_down_points(batch, index) - before


@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_observation_changes_when_only_hidden_cards_change(preset: str) -> None:
    rules = Rules.preset(preset)
    vector = KseriVectorEnv(8, rules, opponents="expert", seat=None, episode="match")
    batch = vector.batch
    observations, _ = vector.reset(seed=3)
    rng = np.random.default_rng(3)
    changed = 0
    for step in range(60):
        masks = vector.action_masks()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        observations, *_ = vector.step(actions)
        if step % 5:
            continue
        playing = batch.numbers[:, DONE] == 0
        for index in np.flatnonzero(playing):
            places = hidden_places(batch, int(index))
            before = face_down_points(batch, int(index))
            cards = [int(getattr(batch, name)[place]) for name, place in places]
            shuffled = rng.permutation(cards)
            changed += bool(len(cards)) and not np.array_equal(shuffled, cards)
            for (name, place), card in zip(places, shuffled, strict=True):
                getattr(batch, name)[place] = card
            resettle(batch, int(index), before)
        before = observations
        observations, rewards, _, _, info = vector.step(np.full(vector.num_envs, -1))  # changes nothing
        assert info["illegal"][playing].all() and (rewards[playing] == -1).all()
        assert np.array_equal(observations["observation"][playing], before["observation"][playing])
        assert np.array_equal(observations["action_mask"][playing], before["action_mask"][playing])
    assert changed >= 60


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def test_make_vec_builds_it_with_batched_spaces_and_next_step_autoreset() -> None:
    envs = gymnasium.make_vec("kseri/Kseri-v0", num_envs=4, rules="pisti", opponents=["greedy", "expert"])
    assert isinstance(envs, KseriVectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.observation_space == batch_space(observation_space("vector"), 4)
    assert envs.action_space == batch_space(gymnasium.spaces.Discrete(52), 4)
    observations, info = envs.reset(seed=2)
    assert envs.observation_space.contains(observations)
    assert set(info) == {"seat", "round", "totals", "illegal", "_seat", "_round", "_totals", "_illegal"}
    rng = np.random.default_rng(2)
    for _ in range(40):
        actions = random_actions(envs.action_masks(), rng)
        observations, rewards, terminated, truncated, info = envs.step(actions)
        assert envs.observation_space.contains(observations)
        assert rewards.dtype == np.float64 and terminated.dtype == truncated.dtype == np.bool_
    envs.close()


def test_an_ended_episode_restarts_on_the_next_step() -> None:
    envs = KseriVectorEnv(6, "classic", opponents="random", seat=1)
    observations, _ = envs.reset(seed=4)
    rng = np.random.default_rng(4)
    ended = np.zeros(6, np.bool_)
    while not ended.any():
        observations, _, ended, _, _ = envs.step(random_actions(envs.action_masks(), rng))
    assert not observations["action_mask"][ended].any(), "nothing to play once the episode is over"
    observations, rewards, terminated, _, info = envs.step(np.full(6, 99))  # ignored where restarting
    assert (rewards[ended] == 0).all() and not terminated[ended].any() and not info["illegal"][ended].any()
    assert info["illegal"][~ended].all(), "elsewhere 99 is no card"
    assert observations["action_mask"][ended].any(axis=1).all()
    fresh = observations["observation"][ended]
    assert set((fresh[:, OFFSETS["plays_made"]] * 52).tolist()) <= {0, 1}, "the first play or the second"
    assert (fresh[:, OFFSETS["hand"]:OFFSETS["hand"] + 52].sum(axis=1) == 4).all()
    assert (info["round"][ended] == 0).all() and (info["totals"][ended] == 0).all()


def test_seeds_reproduce_episodes_and_reset_mask_resets_only_some() -> None:
    def run(envs: KseriVectorEnv, seed: int | list[int | None]) -> list[np.ndarray]:
        observations, _ = envs.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = [observations["observation"]]
        for _ in range(30):
            observations, rewards, *_ = envs.step(random_actions(envs.action_masks(), rng))
            trace += [observations["observation"], rewards]
        return trace

    envs = KseriVectorEnv(3, "three-player", opponents="random", seat=None)
    first = run(envs, 11)
    assert all(np.array_equal(a, b) for a, b in zip(first, run(envs, 11), strict=True))
    assert not np.array_equal(first[0], run(envs, 12)[0])
    assert not np.array_equal(first[0][0], first[0][1]), "each environment has its own stream"
    by_list = run(envs, [5, None, 5])
    assert np.array_equal(by_list[0][0], by_list[0][2])
    observations, _ = envs.reset(seed=1)
    mask = np.array([False, True, False])
    again, _ = envs.reset(options={"reset_mask": mask})
    assert np.array_equal(again["observation"][~mask], observations["observation"][~mask])
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.array([1, 0, 1])})


def test_gymnasiums_vector_wrappers_run_on_it() -> None:
    envs = RecordEpisodeStatistics(KseriVectorEnv(4, "greek", opponents="greedy"))
    listed = DictInfoToList(envs)
    observations, infos = listed.reset(seed=0)
    assert len(infos) == 4 and {"seat", "round", "totals", "illegal"} <= set(infos[0])
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        observations, _, _, _, infos = listed.step(random_actions(observations["action_mask"], rng))
        episodes += sum("episode" in info for info in infos)
    assert episodes >= 4
    assert len(envs.return_queue) == episodes


def test_bad_arguments_are_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="compiled policies"):
        KseriVectorEnv(2, "greek", opponents="master")
    with pytest.raises(ValueError, match="at least 1"):
        KseriVectorEnv(0, "greek")
    with pytest.raises(ValueError, match="seat must be"):
        KseriVectorEnv(2, "greek", seat=2)
    with pytest.raises(ValueError, match="episode"):
        KseriVectorEnv(2, "greek", episode="game")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="autoreset_mode"):
        KseriVectorEnv(2, "greek", autoreset_mode=AutoresetMode.DISABLED)
    envs = KseriVectorEnv(2, "greek")
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(2, np.int64))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="one action per environment"):
        envs.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="one seed"):
        envs.reset(seed=[1, 2, 3])


def test_same_step_autoreset_gives_the_next_step_runs_episodes() -> None:
    """The same seed and policy in both modes: each same-step run's step that ends an episode
    carries the next-step run's terminal observation in ``final_obs`` and its following reset
    observation as the observation."""
    def run(mode: str, steps: int) -> list[list[tuple[np.ndarray, float, bool, np.ndarray | None]]]:
        envs = KseriVectorEnv(3, "partnership", opponents="greedy", seat=None, autoreset_mode=mode)
        assert envs.metadata["autoreset_mode"] is AutoresetMode(mode)
        observations, _ = envs.reset(seed=8)
        trace: list[list[tuple[np.ndarray, float, bool, np.ndarray | None]]] = [[] for _ in range(3)]
        for _ in range(steps):
            observations, rewards, terminated, _, info = envs.step(observations["action_mask"].argmax(axis=1))
            for index in range(3):
                final = None
                if "final_obs" in info and terminated[index]:
                    final = info["final_obs"][index]["observation"]
                step = (observations["observation"][index], rewards[index], terminated[index], final)
                trace[index].append(step)
        return trace

    next_step, same_step = run("NextStep", 120), run("SameStep", 100)
    for nexts, sames in zip(next_step, same_step, strict=True):
        folded = []
        position = 0
        while position + 1 < len(nexts):
            observation, reward, ended, _ = nexts[position]
            if ended:
                folded.append((nexts[position + 1][0], reward, True, observation))
                position += 2
            else:
                folded.append((observation, reward, False, None))
                position += 1
        assert sum(ended for _, _, ended, _ in sames) >= 3
        for (a, reward_a, end_a, final_a), (b, reward_b, end_b, final_b) in zip(folded, sames, strict=False):
            assert np.array_equal(a, b) and reward_a == reward_b and end_a == end_b
            assert (final_a is None) == (final_b is None)
            assert final_a is None or np.array_equal(final_a, final_b)


def compiled_deal(rules: Rules, dealer: int, state: np.ndarray) -> Deal:
    """The compiled core's deal for ``dealer`` from the random stream ``state`` (advanced)."""
    options = compiled_rules(rules).options
    centre = np.zeros(rules.centre_size, np.int8)
    hands = np.zeros((rules.batches, rules.players, rules.batch_size), np.int8)
    kernels.deal(options, dealer, state, np.zeros(rules.deck_size, np.int64), centre, hands)
    dealt = tuple(tuple(tuple(ALL_CARDS[card] for card in hand) for hand in batch)
                  for batch in hands.tolist())
    pisti = rules.centre_deal is CentreDeal.PISTI
    return Deal(dealer, tuple(ALL_CARDS[card] for card in centre.tolist()),
                rules.centre_size - 1 if pisti else 0, dealt, dealt[-1][dealer][-1] if pisti else None)


def replay_random(single: KseriEnv, state: np.ndarray) -> dict[str, np.ndarray]:
    """Reset ``single`` as the compiled core resets an environment whose stream is at
    ``state``: the learner's seat, the first dealer, the deals and the random opponents' cards
    all drawn from ``state`` in the kernels' order. Returns the first observation."""
    rules = single.rules
    state[0], seat = kernels.draw(state[0], rules.players)
    state[0], dealer = kernels.draw(state[0], rules.players)

    def deals(round_index: int) -> Deal:
        return compiled_deal(rules, (dealer + round_index) % rules.players, state)

    def draw(view: View) -> int:
        state[0], position = kernels.draw(state[0], len(view.hand))
        return view.hand[position]

    single.opponents = [draw] * rules.players
    single.fixed_seat = seat
    observation, _ = single.reset(options={"deals": deals})
    return observation


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("episode", ["round", "match"])
def test_random_opponents_match_the_engine_on_the_same_random_stream(preset: str, episode: str) -> None:
    """The compiled ``random`` policy, replayed on ``KseriEnv`` by a policy drawing from a copy
    of each environment's stream (a seat, the dealer, the deals, then each opponent's card by
    its place in the hand), gives the same deals, plays, observations and rewards."""
    rules = Rules.preset(preset)
    count = 3
    seeds = [21, 22, 23]
    vector = KseriVectorEnv(count, rules, opponents="random", seat=None, episode=episode, match_reward=10)
    singles = [KseriEnv(rules, episode=episode, match_reward=10) for _ in range(count)]
    streams = [np.array([kernels.stream(np.uint64(seed), 0)], np.uint64) for seed in seeds]
    observations, _ = vector.reset(seed=seeds)
    expected = [replay_random(single, state) for single, state in zip(singles, streams, strict=True)]
    rng = np.random.default_rng(21)
    ended = next_rounds = 0
    last_round = np.zeros(count, np.int64)
    for _ in range(150):
        for index, state in enumerate(streams):
            assert state[0] == vector.batch.rng[index], "the streams stay in step"
            assert vector.deal(index) == singles[index].match.deals[-1]  # type: ignore[union-attr]
            assert np.array_equal(observations["observation"][index], expected[index]["observation"])
            assert np.array_equal(observations["action_mask"][index], expected[index]["action_mask"])
        before = vector.batch.rng.copy()
        restarting = vector.batch.numbers[:, DONE] == 1
        masks = vector.action_masks()
        actions = np.where(masks.any(axis=1), (rng.random(masks.shape) * masks).argmax(axis=1), 0)
        observations, rewards, terminated, _, info = vector.step(actions)
        for index, single in enumerate(singles):
            if restarting[index]:
                streams[index][0] = before[index]
                expected[index] = replay_random(single, streams[index])
                continue
            expected[index], reward, over, _, single_info = single.step(int(actions[index]))
            assert rewards[index] == reward and terminated[index] == over
            assert tuple(info["totals"][index]) == single_info["totals"]
            ended += over
        next_rounds += int((info["round"] > last_round).sum())
        last_round = info["round"]
    assert ended >= (count * 3 if episode == "round" else 0)
    assert next_rounds >= (0 if episode == "round" else count * 3), "rounds dealt within matches"
