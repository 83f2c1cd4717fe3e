"""Kseri as an OpenSpiel Python game, registered as ``kseri`` (one round of any rule set).

>>> import pyspiel
>>> game = pyspiel.load_game("kseri", {"preset": "pisti"})
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True

Parameters: ``preset`` (a name of ``kseri.rules.PRESETS``) and ``options``, option overrides
as ``name:value`` separated by ``;`` (``"jack_kseri:25;target:101"``; values as in
``Rules.from_spec``). A game is one round: chance deals first (the dealer, then the centre
from the top down, then every hand batch by batch and seat by seat, one card per chance node,
uniformly among the cards left; the centre's face-up cards are drawn among those the preset
allows there, which gives every allowed deal the same chance), then the seats play card
faces (52 actions; in a two-deck game either copy). A seat's return is its side's round
points less the mean of the other sides'.

Information states are a seat's :class:`~kseri.engine.View` (which holds the round's plays,
so it has perfect recall); observations are the shared encoding (:mod:`kseri.agents.encoding`).
:meth:`KseriState.resample_from_infostate` draws hidden cards with the bots' world sampler,
so OpenSpiel's IS-MCTS bot runs on the game.
"""

from __future__ import annotations

import random
from typing import Any, Final

import numpy as np
import pyspiel

from kseri.agents.encoding import ACTIONS, MAX_SEATS, VECTOR_SIZE, encode_vector
from kseri.agents.sampler import Sampler
from kseri.bench.duplicate import side_difference
from kseri.cards import ALL_CARDS, CARDS_PER_DECK, JACK, RANK_OF, Card, format_cards
from kseri.engine import Deal, Match, View
from kseri.rules import CentreDeal, Rules

GAME_NAME: Final = "kseri"
_MAX_PLAYERS: Final = 5
_PLAY_SLOT: Final = MAX_SEATS + CARDS_PER_DECK + 1
"""Information-state tensor, per play of the round: relative seat, card face, whether it captured."""

_GAME_TYPE: Final = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Kseri",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"preset": "greek", "options": ""},
)


def rules_from_parameters(preset: str, options: str) -> Rules:
    """The rules of the game parameters (``options`` as ``name:value;name:value``)."""
    overrides: dict[str, Any] = {}
    for entry in filter(None, (part.strip() for part in options.split(";"))):
        name, sep, value = entry.partition(":")
        if not sep:
            raise ValueError(f"options are name:value separated by ';', not {entry!r}")
        overrides[name.strip()] = value.strip()
    return Rules.preset(preset, **overrides)


def max_round_points(rules: Rules) -> float:
    """A bound on the points one side can score in a round."""
    plays = rules.deck_size - rules.centre_size
    per_capture = (max(rules.kseri_value, rules.jack_kseri or 0, rules.double_kseri or 0)
                   + rules.jacks_table_bonus + rules.two_clubs_match_bonus)
    bonuses = rules.majority_bonus + rules.last_capture_bonus
    return float(sum(rules.points_table) + bonuses + plays * per_capture)


class KseriGame(pyspiel.Game):  # type: ignore[misc]
    """One round of kseri under the rules of the parameters."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {"preset": "greek", "options": ""} | dict(params or {})
        rules = rules_from_parameters(str(values["preset"]), str(values["options"]))
        if rules.players > _MAX_PLAYERS:
            raise ValueError(f"the OpenSpiel game takes 2 to {_MAX_PLAYERS} players, not {rules.players}")
        self.rules = rules
        self.total_plays = rules.deck_size - rules.centre_size
        bound = max_round_points(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTIONS,
            max_chance_outcomes=rules.deck_size,
            num_players=rules.players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=self.total_plays,
        )
        super().__init__(_GAME_TYPE, info, values)

    def new_initial_state(self) -> KseriState:
        """The state before the deal."""
        return KseriState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> KseriObserver:
        """Information states (perfect recall) or observations, as tensors and strings."""
        if params:
            raise ValueError(f"observation parameters are not supported, not {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return KseriObserver(self, perfect_recall)


class _Round:
    """A state's data, copied quickly (OpenSpiel clones a Python state by deep-copying it)."""

    __slots__ = ("dealer", "dealt", "match", "rules")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.dealer: int | None = None
        self.dealt: list[Card] = []
        """Cards dealt so far: the centre from its top down, then the hands in order."""
        self.match: Match | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Round:
        other = _Round(self.rules)
        other.dealer, other.dealt = self.dealer, self.dealt[:]
        other.match = None if self.match is None else self.match.copy()
        return other


class KseriState(pyspiel.State):  # type: ignore[misc]
    """A round being dealt (chance nodes), then played through a :class:`Match`."""

    def __init__(self, game: KseriGame) -> None:
        super().__init__(game)
        self.round = _Round(game.rules)

    @property
    def rules(self) -> Rules:
        """The game's rules."""
        return self.round.rules

    @property
    def match(self) -> Match | None:
        """The round in play, once dealt."""
        return self.round.match

    @property
    def dealer(self) -> int | None:
        """The dealer, once drawn."""
        return self.round.dealer

    @property
    def dealt(self) -> list[Card]:
        """Cards dealt so far: the centre from its top down, then the hands in order."""
        return self.round.dealt

    # -- chance ---------------------------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to play, chance while dealing, or terminal."""
        if self.match is None:
            return int(pyspiel.PlayerId.CHANCE)
        turn = self.match.turn
        return int(pyspiel.PlayerId.TERMINAL) if turn is None else turn

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (uniform), then the next card among those left that may lie there."""
        rules = self.rules
        if self.dealer is None:
            return [(seat, 1.0 / rules.players) for seat in range(rules.players)]
        dealt = set(self.dealt)
        cards = [card for card in ALL_CARDS[: rules.deck_size] if card not in dealt]
        position = len(self.dealt)
        face_down = rules.centre_size - 1 if rules.centre_deal is CentreDeal.PISTI else 0
        if position < rules.centre_size - face_down:  # a face-up centre card, top first
            if rules.centre_deal is CentreDeal.REPLACE_JACKS or position == 0:
                cards = [card for card in cards if RANK_OF[card] != JACK]
            if rules.centre_deal is CentreDeal.REDEAL and position == 1:
                cards = [card for card in cards if RANK_OF[card] != RANK_OF[self.dealt[0]]]
        return [(int(card), 1.0 / len(cards)) for card in cards]

    def _legal_actions(self, player: int) -> list[int]:
        """The card faces in the seat's hand, in order."""
        assert self.match is not None
        return sorted({card % CARDS_PER_DECK for card in self.match.legal_plays()})

    def _apply_action(self, action: int) -> None:
        data = self.round
        if data.match is not None:
            data.match.play(action)
        elif data.dealer is None:
            data.dealer = int(action)
        else:
            data.dealt.append(ALL_CARDS[action])
            if len(data.dealt) == data.rules.deck_size:
                data.match = Match(data.rules, seed="openspiel", deal=self.deal())

    def deal(self) -> Deal:
        """The round's deal, once every card is dealt."""
        rules = self.rules
        assert self.dealer is not None and len(self.dealt) == rules.deck_size
        centre = tuple(reversed(self.dealt[: rules.centre_size]))
        cards = iter(self.dealt[rules.centre_size:])
        size = rules.batch_size
        hands = tuple(tuple(tuple(next(cards) for _ in range(size)) for _ in range(rules.players))
                      for _ in range(rules.batches))
        pisti = rules.centre_deal is CentreDeal.PISTI
        shown = hands[-1][self.dealer][-1] if pisti else None
        return Deal(self.dealer, centre, rules.centre_size - 1 if pisti else 0, hands, shown)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.dealer is None:
                return f"Dealer:{action}"
            copy = "'" if action >= CARDS_PER_DECK else ""  # the second deck's copy
            return f"Deal:{ALL_CARDS[action]}{copy}"
        return str(ALL_CARDS[action])

    # -- the end ----------------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        """Whether the round is over."""
        return self.match is not None and self.match.turn is None

    def returns(self) -> list[float]:
        """Each seat's side's round points less the mean of the other sides' (0 until the end)."""
        rules = self.rules
        if not self.is_terminal():
            return [0.0] * rules.players
        assert self.match is not None
        points = self.match.round_results[-1].points
        return [side_difference(points, rules.side_of(seat)) for seat in range(rules.players)]

    # -- views, copies, samples ---------------------------------------------------------------

    def view(self, seat: int) -> View | None:
        """What ``seat`` may know, once the deal is done."""
        return None if self.match is None else self.match.view(seat)

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> KseriState:
        """A state the seat ``player`` cannot tell from this one: its hidden cards drawn by
        the bots' world :class:`~kseri.agents.sampler.Sampler` (``probability_sampler`` seeds it)."""
        view = self.view(player)
        if view is None or view.turn is None:
            raise ValueError("a state can be resampled only while the round is being played")
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        sampler = Sampler(view)
        deal = sampler.deal(sampler.sample(rng))
        game: KseriGame = self.get_game()
        other = KseriState(game)
        for action in deal_actions(game.rules, deal):
            other.apply_action(action)
        assert self.match is not None
        for play in self.match.plays[-1]:
            other.apply_action(play.card % CARDS_PER_DECK)
        return other

    def __str__(self) -> str:
        if self.match is None:
            return f"dealer {self.dealer} dealt {format_cards(self.dealt)}"
        deal = self.match.deals[-1]
        hands = " | ".join(format_cards(self.match.view(seat).hand) for seat in range(self.rules.players))
        plays = " ".join(str(play.card) for play in self.match.plays[-1])
        return f"dealer {deal.dealer} centre {format_cards(deal.centre)} hands {hands} plays {plays}"


def deal_actions(rules: Rules, deal: Deal) -> list[int]:
    """The chance actions that deal ``deal`` (the inverse of :meth:`KseriState.deal`)."""
    actions = [deal.dealer, *map(int, reversed(deal.centre))]
    actions += [int(card) for batch in deal.hands for hand in batch for card in hand]
    return actions


class KseriObserver:
    """OpenSpiel's observer interface: ``tensor``, ``dict``, ``set_from`` and ``string_from``."""

    def __init__(self, game: KseriGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        pieces: list[tuple[str, int, tuple[int, ...]]] = [("observation", VECTOR_SIZE, (VECTOR_SIZE,))]
        if perfect_recall:
            plays = game.total_plays
            pieces.append(("plays", plays * _PLAY_SLOT, (plays, _PLAY_SLOT)))
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        start = 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[start: start + size].reshape(shape)
            start += size

    def set_from(self, state: KseriState, player: int) -> None:
        """Fill :attr:`tensor` with what ``player`` knows in ``state``."""
        self.tensor.fill(0)
        view = state.view(player)
        if view is None:
            return
        self.dict["observation"][:] = encode_vector(view)
        if self.perfect_recall:
            players = view.rules.players
            for index, play in enumerate(view.plays):
                row = self.dict["plays"][index]
                row[(play.seat - player) % players] = 1
                row[MAX_SEATS + play.card % CARDS_PER_DECK] = 1
                row[-1] = 1 if play.taken else 0

    def string_from(self, state: KseriState, player: int) -> str:
        """What ``player`` knows as text (the round's plays too, for information states)."""
        view = state.view(player)
        if view is None:
            return f"p{player} dealing"
        top = str(view.centre_top) if view.centre_top is not None else "-"
        text = (f"p{player} dealer {view.dealer} hand {format_cards(sorted(view.hand))} "
                f"centre {top}/{view.centre_size} down {view.face_down} stock {view.stock_size} "
                f"captured {list(view.captured_sizes)} turn {view.turn}")
        if view.shown is not None:
            text += f" shown {view.shown}"
        if not self.perfect_recall:
            return text
        dealt = " ".join("?" if card is None else str(card) for card in view.centre_dealt)
        plays = " ".join(f"{play.seat}:{play.card}{'x' if play.taken else ''}" for play in view.plays)
        seen = f" took {format_cards(view.face_down_seen)}" if view.face_down_seen else ""
        return f"{text} dealt {dealt}{seen} plays {plays}"


pyspiel.register_game(_GAME_TYPE, KseriGame)
