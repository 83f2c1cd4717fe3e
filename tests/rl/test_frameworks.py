"""The frameworks' own checks pass for every preset: Gymnasium's check_env, PettingZoo's
api_test and seed_test, OpenSpiel's random simulation test with serialization."""

import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from kseri import PRESETS, Match, Rules
from kseri.agents.encoding import (
    ACTIONS,
    FIELDS,
    OFFSETS,
    VECTOR_SIZE,
    action_mask,
    card_for_action,
    encode_dict,
    encode_vector,
)
from kseri.rl.gym_env import KseriEnv
from kseri.rl.openspiel_game import GAME_NAME, KseriGame, max_round_points
from kseri.rl.pettingzoo_env import env as pettingzoo_env


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_gymnasium_environment_passes_check_env(preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(KseriEnv(preset, opponents="greedy", seat=None), skip_render_check=True)


def test_the_dict_observation_and_whole_matches_pass_check_env() -> None:
    check_env(KseriEnv("classic", observation_format="dict", episode="match", match_reward=50,
                       opponents=["random", "expert"], seat=1), skip_render_check=True)


def test_the_registered_environment_passes_check_env_with_its_render_mode() -> None:
    environment = gymnasium.make("kseri/Kseri-v0", rules="pisti", render_mode="ansi")
    check_env(environment.unwrapped)
    environment.reset(seed=1)
    assert "hand" in environment.render()


# PettingZoo's api_test warns about every observation that is a dict with an action mask, as its
# own card games' observations are.
DICT_OBSERVATION_WARNINGS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


@pytest.mark.parametrize("preset", list(PRESETS))
@DICT_OBSERVATION_WARNINGS[0]
@DICT_OBSERVATION_WARNINGS[1]
def test_the_pettingzoo_environment_passes_api_and_seed_tests(preset: str) -> None:
    api_test(pettingzoo_env(rules=preset), num_cycles=300)
    seed_test(lambda: pettingzoo_env(rules=preset), num_cycles=300)


@DICT_OBSERVATION_WARNINGS[0]
@DICT_OBSERVATION_WARNINGS[1]
def test_a_pettingzoo_match_passes_the_api_test() -> None:
    api_test(pettingzoo_env(rules="classic", episode="match", observation_format="dict"), num_cycles=2000)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_openspiel_game_passes_the_random_simulation_test(preset: str) -> None:
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_openspiel_parameters_set_the_options() -> None:
    game = pyspiel.load_game("kseri(preset=greek,options=jack_kseri:25;target:101;card_points:TD:2/2C:2)")
    assert isinstance(game, KseriGame)
    rules = game.rules
    assert (rules.jack_kseri, rules.target, rules.card_points) == (25, 101, (("TD", 2), ("2C", 2)))
    assert game.num_players() == 2 and game.num_distinct_actions() == ACTIONS
    assert game.max_utility() == max_round_points(game.rules) == -game.min_utility()
    with pytest.raises(ValueError, match="unknown option 'jack'"):
        pyspiel.load_game("kseri(options=jack:25)")
    with pytest.raises(ValueError, match="options are name:value"):
        pyspiel.load_game("kseri(options=jack_kseri)")
    with pytest.raises(ValueError, match="unknown preset"):
        pyspiel.load_game("kseri(preset=bridge)")


def test_the_encoding_has_its_documented_layout() -> None:
    match = Match(Rules.preset("faro"), seed=5)
    view = match.view(match.turn)
    fields = encode_dict(view)
    assert list(fields) == [field.name for field in FIELDS]
    assert sum(len(values) for values in fields.values()) == VECTOR_SIZE == encode_vector(view).size
    assert fields["hand"].sum() == len(view.hand) and fields["turn"][0] == 1
    assert fields["players"][0] == 5 and fields["decks"][0] == 2
    mask = action_mask(view)
    assert mask.sum() == len({card % 52 for card in view.hand})
    for action in np.flatnonzero(mask):
        assert card_for_action(view, int(action)) in view.hand
    with pytest.raises(ValueError, match="is not a card seat"):
        card_for_action(view, int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="is not a card face"):
        card_for_action(view, 52)


def test_an_illegal_gym_action_changes_nothing() -> None:
    environment = KseriEnv("greek")
    observation, _ = environment.reset(seed=2)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    again, reward, terminated, truncated, info = environment.step(illegal)
    assert reward == -1.0 and not terminated and not truncated
    assert "is not a card seat 0 may play" in info["illegal"]
    assert np.array_equal(again["observation"], observation["observation"])


def test_the_environments_refuse_bad_options() -> None:
    with pytest.raises(ValueError, match="seat must be 0 to 1"):
        KseriEnv("greek", seat=2)
    with pytest.raises(ValueError, match="one per seat"):
        KseriEnv("partnership", opponents=["greedy", "greedy"])
    with pytest.raises(ValueError, match="episode must be"):
        KseriEnv("greek", episode="game")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation_format must be"):
        KseriEnv("greek", observation_format="text")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="reset"):
        KseriEnv("greek").step(0)


def test_docs_list_every_field_of_the_encoding() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text()
    rows = [line.split("|")[1:6] for line in text.splitlines()
            if line.count("|") == 6 and line.startswith("| `")]
    documented = [(name.strip(" `"), int(offset), int(size), float(scale))
                  for name, offset, size, scale, _ in rows]
    assert documented == [(field.name, OFFSETS[field.name], field.size, field.scale) for field in FIELDS]
