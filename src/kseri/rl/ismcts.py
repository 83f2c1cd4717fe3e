"""OpenSpiel's information-set MCTS bot as a kseri agent, for the bench.

The adapter rebuilds an OpenSpiel state from the seat's view alone: a world the view allows
(hidden cards from the bots' :class:`~kseri.agents.sampler.Sampler`), dealt by the game's
chance actions, then the round's plays. IS-MCTS searches from there, resampling the hidden
cards on every simulation (:meth:`~kseri.rl.openspiel_game.KseriState.resample_from_infostate`),
with random rollouts.

>>> from kseri import Match, Rules
>>> match = Match(Rules.preset("pisti"), seed=2)
>>> agent = ISMCTSAgent(seed=1, simulations=20)
>>> agent.choose(match.view(match.turn)) in match.legal_plays()
True
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kseri.agents.encoding import card_for_action
from kseri.agents.sampler import Sampler
from kseri.cards import CARDS_PER_DECK, Card
from kseri.engine import View
from kseri.rl.openspiel_game import GAME_NAME, KseriGame, KseriState, deal_actions
from kseri.rules import PRESETS, Rules

DEFAULT_SIMULATIONS = 200
"""Simulations per move by default."""


def state_from_view(game: KseriGame, view: View, rng: random.Random) -> KseriState:
    """An OpenSpiel state that ``view``'s seat cannot tell from the real one."""
    sampler = Sampler(view)
    state: KseriState = game.new_initial_state()
    for action in deal_actions(game.rules, sampler.deal(sampler.sample(rng))):
        state.apply_action(action)
    for play in view.plays:
        state.apply_action(play.card % CARDS_PER_DECK)
    return state


class ISMCTSAgent:
    """OpenSpiel's ``ISMCTSBot`` (UCT, random rollouts) playing from views."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, *, simulations: int = DEFAULT_SIMULATIONS,
                 uct_c: float = 10.0) -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.simulations = simulations
        self.uct_c = uct_c
        self._rng = random.Random(seed)
        self._numpy_rng = np.random.RandomState(self._rng.randrange(2**31))
        self._games: dict[str, KseriGame] = {}

    def _game(self, view: View) -> KseriGame:
        rules = view.rules
        spec = ";".join(f"{name}:{value}" for name, value in _overrides(rules).items())
        game = self._games.get(spec + rules.name)
        if game is None:
            game = self._games[spec + rules.name] = pyspiel.load_game(
                GAME_NAME, {"preset": rules.name, "options": spec})
        return game

    def choose(self, view: View) -> Card:
        """The card IS-MCTS picks after :attr:`simulations` simulations."""
        game = self._game(view)
        state = state_from_view(game, view, self._rng)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._numpy_rng)
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               random_state=self._numpy_rng,
                               final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
        # the worlds drawn from this agent's stream: OpenSpiel's own sampler seeds itself
        # from the clock, and the same seed would not replay alike
        bot.set_resampler(lambda other, player: other.resample_from_infostate(player, self._rng.random))
        return card_for_action(view, int(bot.step(state)))


def _overrides(rules: Rules) -> dict[str, str]:
    """The options of ``rules`` that differ from its preset's, as ``name: value`` text."""
    if rules.name not in PRESETS:
        raise ValueError(f"the OpenSpiel game starts from a preset ({', '.join(PRESETS)}), "
                         f"not {rules.name!r}")
    base = PRESETS[rules.name].options()
    result: dict[str, str] = {}
    for name, value in rules.options().items():
        if name != "name" and value != base[name]:
            text = "/".join(f"{key}:{points}" for key, points in value) if name == "card_points" else value
            result[name] = "none" if text is None else str(text).lower()
    return result
