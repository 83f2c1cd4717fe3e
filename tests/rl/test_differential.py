"""The same seeds and plays through each environment and through ``Match`` give the same
rewards and the same terminal scores."""

import numpy as np
import pyspiel
import pytest

from kseri import PRESETS, Match, Rules
from kseri.agents.encoding import action_for_card
from kseri.bench.duplicate import side_difference
from kseri.engine import View
from kseri.rl.gym_env import KseriEnv
from kseri.rl.openspiel_game import GAME_NAME, KseriState, deal_actions
from kseri.rl.pettingzoo_env import raw_env


def policy(view: View) -> int:
    """A fixed policy of the view that still varies its choices: a card face (an action)."""
    faces = sorted({action_for_card(card) for card in view.legal_plays()})
    return faces[(len(view.plays) * 7 + view.seat * 3 + view.round_index) % len(faces)]


def reference(rules: Rules, seed: str, rounds: int | None) -> Match:
    """``Match`` played with :func:`policy` for ``rounds`` rounds (``None``: to its winner)."""
    match = Match(rules, seed=seed)
    while True:
        while (seat := match.turn) is not None:
            match.play(policy(match.view(seat)))  # a card number: the first deck's copy if held
        if match.is_over() or len(match.round_results) == rounds:
            return match
        match.next_round()


def round_rewards(rules: Rules, match: Match, seat: int, match_reward: float = 0.0) -> list[float]:
    side = rules.side_of(seat)
    rewards = [side_difference(result.points, side) for result in match.round_results]
    if match.is_over():
        rewards[-1] += match_reward if match.winner == side else -match_reward
    return rewards


@pytest.mark.parametrize("preset", list(PRESETS))
def test_gymnasium_matches_the_engine(preset: str) -> None:
    rules = Rules.preset(preset)
    for seat in range(rules.players):
        seed = f"gym/{preset}/{seat}"
        for episode, rounds in (("round", 1), ("match", None)):
            environment = KseriEnv(rules, opponents=policy, seat=seat, episode=episode, match_reward=100)
            observation, info = environment.reset(options={"match_seed": seed})
            rewards = []
            terminated = False
            while not terminated:
                view = environment.match.view(seat)  # type: ignore[union-attr]
                action = policy(view)
                assert observation["action_mask"][action] == 1
                observation, reward, terminated, _, info = environment.step(action)
                if reward:
                    rewards.append(reward)
            match = reference(rules, seed, rounds)
            expected = round_rewards(rules, match, seat, 100)
            assert sum(rewards) == pytest.approx(sum(expected))
            assert info["totals"] == match.totals
            assert environment.match.round_results == match.round_results  # type: ignore[union-attr]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_pettingzoo_matches_the_engine(preset: str) -> None:
    rules = Rules.preset(preset)
    for episode, rounds in (("round", 1), ("match", None)):
        seed = f"pettingzoo/{preset}/{episode}"
        environment = raw_env(rules, episode=episode, match_reward=100)
        environment.reset(options={"match_seed": seed})
        totals = dict.fromkeys(environment.possible_agents, 0.0)
        for agent in environment.agent_iter():
            observation, reward, terminated, truncated, _ = environment.last()
            totals[agent] += reward
            if terminated or truncated:
                environment.step(None)
                continue
            seat = environment.possible_agents.index(agent)
            action = policy(environment.match.view(seat))  # type: ignore[union-attr]
            assert observation["action_mask"][action] == 1
            environment.step(action)
        match = reference(rules, seed, rounds)
        for seat, agent in enumerate(environment.possible_agents):
            assert totals[agent] == pytest.approx(sum(round_rewards(rules, match, seat, 100)))
        assert environment.match.totals == match.totals  # type: ignore[union-attr]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_openspiel_matches_the_engine(preset: str) -> None:
    rules = Rules.preset(preset)
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    for trial in range(3):
        match = reference(rules, f"openspiel/{preset}/{trial}", 1)
        state: KseriState = game.new_initial_state()
        for action in deal_actions(rules, match.deals[0]):
            assert state.is_chance_node()
            assert action in dict(state.chance_outcomes()), "the engine's deal is a possible chance outcome"
            state.apply_action(action)
        for play in match.plays[-1]:
            assert state.current_player() == play.seat
            view = state.view(play.seat)
            assert view is not None
            action = policy(view)
            assert action == action_for_card(play.card)
            state.apply_action(action)
        assert state.is_terminal()
        expected = [round_rewards(rules, match, seat)[0] for seat in range(rules.players)]
        assert np.allclose(state.returns(), expected)
        assert sum(state.returns()) == pytest.approx(0.0)
        assert state.match is not None and state.match.round_results == match.round_results
