"""Many learning environments stepped at once on the compiled core (numba), for ``kseri.rl``.

Each environment is one match of kseri seen by one learning seat; the other seats follow the
compiled ``random``, ``greedy`` or ``expert`` policies (the same choices as those agents).
:class:`EnvBatch` keeps every environment's state in one record of
:data:`~kseri.fast.flat.STATE` each; :meth:`EnvBatch.step` plays one card face per environment
for its learner, lets the other seats play up to the learner's next turn (or the episode's
end), and writes each learner's observation, action mask, reward and end flag in place. The
observation fills the slots of ``kseri.agents.encoding``'s layout: this floor does not import
that module, so the caller passes the layout in (:class:`Layout`: where each field of
:data:`ENCODED` starts, the rule constants, the scales), and ``tests/rl`` proves the vectors
equal to ``encode_vector(Match.view(seat))``.

The rules of play are the compiled core's one step (:func:`kseri.fast.kernels.play_card`),
and the policies its ``greedy_choice`` and ``expert_choice``; rounds are dealt by
:func:`kseri.fast.kernels.deal` from each environment's own SplitMix64 stream.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from kseri.cards import ALL_CARDS, Card
from kseri.fast.flat import (
    BATCH_SIZE,
    BATCHES,
    COUNTS,
    DECK_SIZE,
    DOUBLE_KSERI,
    EXPERT,
    FACE_DOWN,
    FACES,
    JACK_KSERI,
    JACKS_TABLE,
    JACKS_WILD,
    KSERI,
    LAST_OK,
    MARKS,
    NUMBERS,
    OPEN_POINTS,
    PER_RANK,
    PLAYERS,
    POINTS,
    RANDOM,
    SIDES,
    TARGET,
    TOTALS,
    TWO_CLUBS_BONUS,
    flatten,
    new_states,
    numbers_view,
    policy_codes,
)
from kseri.fast.kernels import (
    JACK,
    RANK_OF,
    TWO,
    TWO_CLUBS,
    FlatRules,
    State,
    compiled,
    deal,
    draw,
    expert_choice,
    greedy_choice,
    play_card,
    score_round,
    shown_card,
    start_round,
    stream,
)
from kseri.rules import Rules

ENCODED: Final = (
    "hand", "centre_top", "centre_cards", "centre_size", "centre_face_down", "centre_points", "seen",
    "seen_ranks", "seen_suits", "unseen_points", "captured", "captured_points", "marks_points", "totals",
    "target", "stock_size", "hand_sizes", "turn", "dealer", "last_capturer", "partner", "shown",
    "lone_after_kseri", "plays_made", "round_index", "captures", "capture_points", "kseri", "lay_points",
    "rank_unseen", "held_jack",
)
"""The fields of ``kseri.agents.encoding`` this module fills per step, in the order of
:attr:`Layout.offsets` (the rule fields come in :attr:`Layout.constants`)."""
(_HAND, _TOP, _CENTRE_CARDS, _CENTRE_SIZE, _FACE_DOWN_LEFT, _CENTRE_POINTS, _SEEN, _SEEN_RANKS, _SEEN_SUITS,
 _UNSEEN_POINTS, _CAPTURED, _CAPTURED_POINTS, _MARKS_POINTS, _TOTALS, _TARGET, _STOCK, _HAND_SIZES, _TURN,
 _DEALER, _LAST_CAPTURER, _PARTNER, _SHOWN, _LONE, _PLAYS_MADE, _ROUND_INDEX, _CAPTURES, _CAPTURE_POINTS,
 _KSERI_FACES, _LAY_POINTS, _RANK_UNSEEN, _HELD_JACK) = range(len(ENCODED))

# the columns of :attr:`EnvBatch.numbers` (the state's numbers, :data:`~kseri.fast.flat.NUMBERS`)
SEAT: Final = NUMBERS.index("learner")
"""The learner's seat."""
DEALER: Final = NUMBERS.index("dealer")
BATCH: Final = NUMBERS.index("batch")
"""Batches dealt this round."""
PILE_LEN: Final = NUMBERS.index("pile_len")
PILE_POINTS: Final = NUMBERS.index("pile_points")
PILE_PLAIN: Final = NUMBERS.index("pile_plain")
"""Cards in the centre that are not Jacks."""
HIDDEN: Final = NUMBERS.index("hidden")
"""Face-down cards still in the centre."""
HIDDEN_POINTS: Final = NUMBERS.index("hidden_points")
FIRST_CAPTURER: Final = NUMBERS.index("first_capturer")
ROUND: Final = NUMBERS.index("round")
DONE: Final = NUMBERS.index("done")
"""1 when the episode is over and the next step resets the environment."""


class Layout(NamedTuple):
    """Where the observation's fields go (``kseri.agents.encoding``'s layout, passed in)."""

    offsets: NDArray[np.int64]
    """Where each field of :data:`ENCODED` starts in the vector."""
    constants: NDArray[np.float32]
    """The unscaled vector with only the rule fields filled (they never change)."""
    scales: NDArray[np.float32]
    """What each slot is multiplied by (one over its field's scale)."""


class Episode(NamedTuple):
    """How the environments' episodes go (one argument of the kernels)."""

    policies: NDArray[np.int64]
    """Each seat's policy code (the learner's is not used)."""
    whole_match: bool
    match_reward: float
    fixed_seat: int
    """The learner's seat, or -1 for a random seat each episode."""
    illegal_reward: float


@compiled
def _deal_round(rules: FlatRules, state: State, deck: NDArray[np.int64]) -> None:
    """Deal and start a round for the state's dealer (``Match._start``)."""
    deal(rules.options, state.dealer, state.rng, deck, state.centre, state.dealt)
    start_round(rules, state)


@compiled
def _play(rules: FlatRules, state: State, position: int) -> None:
    """The seat to play plays the card at ``position`` of its hand; after the round's last
    play, its points go to the match totals and the match is settled (``Match._settle``)."""
    play_card(rules, state, position)
    if state.turn < 0:
        score_round(rules, state)


@compiled
def _play_features(rules: FlatRules, layout: Layout, state: State, out: NDArray[np.float32], top: int,
                   centre_points: int, all_jacks: bool, cards_held: int) -> None:
    """What each held face would do if played now (``encoding._play_features``), into ``out``
    (the hand, the cards seen by rank and the centre's ``top``, points and Jacks filled)."""
    cfg = rules.options
    table = rules.table
    offsets = layout.offsets
    hand = offsets[_HAND]
    ranks = offsets[_SEEN_RANKS]
    decks = cfg[PER_RANK] // 4
    pile_len = state.pile_len
    lone = state.chain == 2
    last_play = state.batch == cfg[BATCHES] and cards_held == 1
    for face in range(FACES):
        if out[hand + face] == 0:
            continue
        rank = face // 4
        first = hand + 4 * rank
        held = out[first] + out[first + 1] + out[first + 2] + out[first + 3]
        out[offsets[_RANK_UNSEEN] + face] = (4 * decks - out[ranks + rank]) - held
        out[offsets[_HELD_JACK] + face] = 1 if rank == JACK else 0
        takes = top >= 0 and (rank == RANK_OF[top] or (rank == JACK and cfg[JACKS_WILD] == 1))
        if not takes:
            out[offsets[_LAY_POINTS] + face] = centre_points + table[face]
            continue
        gain = centre_points + table[face]
        if pile_len == 1 and rank == RANK_OF[top]:
            bonus = cfg[JACK_KSERI] if rank == JACK else (
                cfg[DOUBLE_KSERI] if cfg[DOUBLE_KSERI] >= 0 and lone else cfg[KSERI])
            if bonus >= 0 and (cfg[LAST_OK] == 1 or not last_play):
                gain += bonus
                out[offsets[_KSERI_FACES] + face] = 1
        if cfg[JACKS_TABLE] > 0 and all_jacks:
            gain += cfg[JACKS_TABLE]
        if cfg[TWO_CLUBS_BONUS] > 0 and rank == TWO and top % FACES == TWO_CLUBS:
            gain += cfg[TWO_CLUBS_BONUS]
        out[offsets[_CAPTURES] + face] = 1
        out[offsets[_CAPTURE_POINTS] + face] = gain


@compiled
def _encode(rules: FlatRules, layout: Layout, state: State, out: NDArray[np.float32],
            mask: NDArray[np.int8]) -> None:
    """The learner's observation (``encoding.encode_vector`` of its view) into ``out`` and its
    action mask into ``mask``."""
    cfg = rules.options
    table = rules.table
    side_of = rules.side_of
    offsets = layout.offsets
    constants = layout.constants
    scales = layout.scales
    hands = state.hands
    lengths = state.lengths
    pile = state.pile
    centre = state.centre
    public_face = state.public_face
    per_side = state.per_side
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    decks = cfg[PER_RANK] // 4
    me = state.learner
    my_side = side_of[me]
    for i in range(out.shape[0]):
        out[i] = constants[i]
    mask[:] = 0
    hand = offsets[_HAND]
    seen = offsets[_SEEN]
    my_turn = state.turn == me
    for k in range(lengths[me]):
        face = hands[me, k] % FACES
        out[hand + face] += 1
        if my_turn:
            mask[face] = 1
    for face in range(FACES):
        out[seen + face] = public_face[face]
    hidden_points = 0
    if state.first_capturer == me:
        for i in range(cfg[FACE_DOWN]):
            out[seen + centre[i] % FACES] += 1
            hidden_points += table[centre[i]]
    shown = shown_card(rules, state)
    if shown >= 0:
        held = False
        for k in range(lengths[me]):
            if hands[me, k] == shown:
                held = True
        if out[seen + shown % FACES] == 0 and not held:
            out[seen + shown % FACES] += 1
        out[offsets[_SHOWN] + shown % FACES] = 1
    pile_len = state.pile_len
    in_centre = pile_len > 0 and state.swept == 0
    top = pile[pile_len - 1] if in_centre else -1
    if in_centre:
        out[offsets[_TOP] + top % FACES] = 1
    centre_points = 0
    all_jacks = pile_len > 0 and state.hidden == 0
    for i in range(state.hidden, pile_len):
        out[offsets[_CENTRE_CARDS] + pile[i] % FACES] += 1
        centre_points += table[pile[i]]
        if RANK_OF[pile[i]] != JACK:
            all_jacks = False
    ranks = offsets[_SEEN_RANKS]
    suits = offsets[_SEEN_SUITS]
    unseen_points = np.float32(0.0)
    for face in range(FACES):
        count = out[seen + face]
        out[ranks + face // 4] += count
        out[suits + face % 4] += count
        unseen_points += np.float32(table[face]) * (np.float32(decks) - out[hand + face] - count)
    out[offsets[_UNSEEN_POINTS]] = unseen_points
    out[offsets[_CENTRE_SIZE]] = 0 if state.swept else pile_len
    out[offsets[_FACE_DOWN_LEFT]] = state.hidden
    out[offsets[_CENTRE_POINTS]] = centre_points
    for side in range(sides):
        relative = (side - my_side) % sides
        out[offsets[_CAPTURED] + relative] = per_side[COUNTS, side]
        out[offsets[_CAPTURED_POINTS] + relative] = per_side[OPEN_POINTS, side] + (
            hidden_points if relative == 0 else 0)
        out[offsets[_MARKS_POINTS] + relative] = per_side[MARKS, side]
        out[offsets[_TOTALS] + relative] = per_side[TOTALS, side]
    out[offsets[_TARGET]] = state.goal
    out[offsets[_STOCK]] = (cfg[BATCHES] - state.batch) * players * cfg[BATCH_SIZE]
    cards_held = 0
    for seat in range(players):
        relative = (seat - me) % players
        out[offsets[_HAND_SIZES] + relative] = lengths[seat]
        cards_held += lengths[seat]
        if side_of[seat] == my_side:
            out[offsets[_PARTNER] + relative] = 1
    if state.turn >= 0:
        out[offsets[_TURN] + (state.turn - me) % players] = 1
    out[offsets[_DEALER] + (state.dealer - me) % players] = 1
    if state.last_capturer >= 0:
        out[offsets[_LAST_CAPTURER] + (state.last_capturer - me) % players] = 1
    out[offsets[_LONE]] = 1 if state.chain == 2 else 0
    _play_features(rules, layout, state, out, top, centre_points, all_jacks, cards_held)
    out[offsets[_PLAYS_MADE]] = state.index
    out[offsets[_ROUND_INDEX]] = state.round
    for i in range(out.shape[0]):
        out[i] *= scales[i]



@compiled
def _advance(rules: FlatRules, episode: Episode, state: State, deck: NDArray[np.int64]) -> tuple[float, bool]:
    """Let the other seats play up to the learner's next turn (``KseriEnv._advance``): the
    reward on the way, and whether the episode is over."""
    cfg = rules.options
    players = cfg[PLAYERS]
    sides = cfg[SIDES]
    me = state.learner
    per_side = state.per_side
    reward = 0.0
    while True:
        while state.turn >= 0 and state.turn != me:
            policy = episode.policies[state.turn]
            if policy == RANDOM:
                state.rng[0], position = draw(state.rng[0], state.lengths[state.turn])
            elif policy == EXPERT:
                position = expert_choice(rules, state, True)
            else:
                position = greedy_choice(rules, state)
            _play(rules, state, position)
        if state.turn == me:
            return reward, False
        side = rules.side_of[me]
        others = 0
        for other in range(sides):
            if other != side:
                others += per_side[POINTS, other]
        reward += per_side[POINTS, side] - others / (sides - 1)
        if state.winner >= 0:
            reward += episode.match_reward if state.winner == side else -episode.match_reward
            return reward, True
        if not episode.whole_match:
            return reward, True
        state.round += 1
        state.dealer = state.dealer + 1 if state.dealer + 1 < players else 0
        _deal_round(rules, state, deck)


@compiled
def _reset(rules: FlatRules, episode: Episode, state: State, deck: NDArray[np.int64]) -> None:
    """Start an episode: a new match (the learner's seat, when not fixed, and the first dealer
    drawn from the environment's stream), played up to the learner's first turn."""
    players = rules.options[PLAYERS]
    for field in range(TOTALS + 1):
        state.per_side[field, :] = 0
    state.round = 0
    state.done = 0
    state.memory = 1
    if episode.fixed_seat >= 0:
        state.learner = episode.fixed_seat
    else:
        state.rng[0], seat = draw(state.rng[0], players)
        state.learner = seat
    state.rng[0], dealer = draw(state.rng[0], players)
    state.dealer = dealer
    state.goal = rules.options[TARGET]
    state.winner = -1
    _deal_round(rules, state, deck)
    _advance(rules, episode, state, deck)


@compiled
def reset_envs(rules: FlatRules, episode: Episode, layout: Layout, states: NDArray[np.void],
               which: NDArray[np.bool_], observations: NDArray[np.float32], masks: NDArray[np.int8]) -> None:
    """Reset the environments where ``which`` is true and write their observations."""
    deck = np.zeros(rules.options[DECK_SIZE], np.int64)
    for i in range(states.shape[0]):
        if not which[i]:
            continue
        _reset(rules, episode, states[i], deck)
        _encode(rules, layout, states[i], observations[i], masks[i])


@compiled
def step_envs(rules: FlatRules, episode: Episode, layout: Layout, states: NDArray[np.void],
              actions: NDArray[np.int64], observations: NDArray[np.float32], masks: NDArray[np.int8],
              rewards: NDArray[np.float64], terminated: NDArray[np.bool_], illegal: NDArray[np.bool_],
              ) -> None:
    """One step of every environment (next-step autoreset): an environment whose episode
    ended at the last step starts a new one, reward 0; otherwise its learner plays the card of
    face ``actions[i]`` (the first deck's copy when it holds two; an action it cannot play
    changes nothing and earns the episode's ``illegal_reward``) and the other seats play on."""
    deck = np.zeros(rules.options[DECK_SIZE], np.int64)
    for i in range(states.shape[0]):
        state = states[i]
        rewards[i] = 0.0
        terminated[i] = False
        illegal[i] = False
        if state.done == 1:
            _reset(rules, episode, state, deck)
        else:
            me = state.learner
            action = actions[i]
            position = -1
            if state.turn == me and 0 <= action < FACES:
                for k in range(state.lengths[me]):
                    card = state.hands[me, k]
                    if card % FACES == action and (position < 0 or card < state.hands[me, position]):
                        position = k
            if position < 0:
                rewards[i] = episode.illegal_reward
                illegal[i] = True
            else:
                _play(rules, state, position)
                reward, over = _advance(rules, episode, state, deck)
                rewards[i] = reward
                terminated[i] = over
                state.done = 1 if over else 0
        _encode(rules, layout, state, observations[i], masks[i])


class EnvBatch:
    """``count`` environments under ``rules``, their state in records, stepped by compiled code.

    ``policies`` names a policy (``random``, ``greedy``, ``expert``) for every seat or one per
    seat (the learner's entry is not used); ``seat`` is the learner's seat, or ``None`` for a
    random seat each episode; ``whole_match`` makes an episode a match instead of a round.
    After :meth:`reset` or :meth:`step`, :attr:`observations`, :attr:`masks`,
    :attr:`rewards`, :attr:`terminated` and :attr:`illegal` hold each environment's result.
    :attr:`states` holds every environment's :data:`~kseri.fast.flat.STATE`; :attr:`numbers`,
    :attr:`per_side`, :attr:`hands`, :attr:`lengths`, :attr:`pile`, :attr:`dealt`,
    :attr:`centre` and :attr:`rng` are views of its fields at the rules' shapes.
    """

    def __init__(self, rules: Rules, count: int, layout: Layout, *, policies: str | list[str] = "greedy",
                 seat: int | None = 0, whole_match: bool = False, match_reward: float = 0.0,
                 illegal_reward: float = -1.0) -> None:
        if count < 1:
            raise ValueError(f"the number of environments must be at least 1, not {count}")
        players = rules.players
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1} or None, not {seat}")
        codes = policy_codes(rules, policies)
        if (codes > EXPERT).any():
            raise ValueError("the other seats follow a policy: random, greedy or expert")
        self.rules = rules
        self.count = count
        self._flat = flatten(rules)
        self._rules = self._flat.packed
        self._episode = Episode(codes, whole_match, float(match_reward), -1 if seat is None else seat,
                                float(illegal_reward))
        self._layout = layout
        self.states = new_states(count)
        self.observations = np.zeros((count, int(layout.constants.shape[0])), np.float32)
        self.masks = np.zeros((count, FACES), np.int8)
        self.rewards = np.zeros(count, np.float64)
        self.terminated = np.zeros(count, np.bool_)
        self.illegal = np.zeros(count, np.bool_)

    @property
    def illegal_reward(self) -> float:
        """The reward of an action the learner cannot play."""
        return self._episode.illegal_reward

    @property
    def numbers(self) -> NDArray[np.int64]:
        """Each environment's round numbers (columns :data:`~kseri.fast.flat.NUMBERS`; a view)."""
        return numbers_view(self.states)

    @property
    def per_side(self) -> NDArray[np.int64]:
        """``per_side[env, row, side]`` (rows ``COUNTS`` to ``TOTALS`` of :mod:`kseri.fast.flat`)."""
        return self.states["per_side"][:, :, :self.rules.sides]

    @property
    def hands(self) -> NDArray[np.int64]:
        """``hands[env, seat, k]``, the first ``lengths[env, seat]`` held."""
        return self.states["hands"][:, :self.rules.players, :self.rules.batch_size]

    @property
    def lengths(self) -> NDArray[np.int64]:
        """The cards each seat holds."""
        return self.states["lengths"][:, :self.rules.players]

    @property
    def pile(self) -> NDArray[np.int64]:
        """The centre bottom to top, the first ``numbers[env, PILE_LEN]``."""
        return self.states["pile"][:, :self.rules.deck_size]

    @property
    def dealt(self) -> NDArray[np.int8]:
        """``dealt[env, batch, seat, k]``: the round's deal."""
        rules = self.rules
        total = rules.batches * rules.players * rules.batch_size
        shape = (self.count, rules.batches, rules.players, rules.batch_size)
        view = self.states["dealt"][:, :total].reshape(shape)
        assert np.may_share_memory(view, self.states)  # a view: writes reach the states
        return view

    @property
    def centre(self) -> NDArray[np.int8]:
        """The centre as dealt, bottom to top."""
        return self.states["centre"][:, :self.rules.centre_size]

    @property
    def rng(self) -> NDArray[np.uint64]:
        """Each environment's random stream."""
        return self.states["rng"][:, 0]

    def reset(self, which: NDArray[np.bool_], seeds: list[int | None] | None = None) -> None:
        """Start new episodes where ``which`` is true; ``seeds[i]`` (an int), where given,
        restarts environment ``i``'s random stream first (its deals, random seats and random
        policies); otherwise the stream goes on."""
        if seeds is not None:
            rng = self.rng
            for index, seed in enumerate(seeds):
                if seed is not None:
                    rng[index] = stream(np.uint64(seed % 2**64), 0)
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.illegal[:] = False
        reset_envs(self._rules, self._episode, self._layout, self.states,
                   np.ascontiguousarray(which, np.bool_), self.observations, self.masks)

    def step(self, actions: NDArray[np.integer]) -> None:
        """One step of every environment (see :func:`step_envs`)."""
        step_envs(self._rules, self._episode, self._layout, self.states,
                  np.ascontiguousarray(actions, np.int64), self.observations, self.masks, self.rewards,
                  self.terminated, self.illegal)

    def deal(self, index: int) -> tuple[int, list[list[list[Card]]], list[Card], int, Card | None]:
        """Environment ``index``'s current round as dealt: the dealer, ``hands[batch][seat]``,
        the centre bottom to top, how many of its cards are face down, and the shown card (for
        replays and tests: the whole deal, hidden cards included)."""
        dealt = self.dealt[index].tolist()
        hands = [[[ALL_CARDS[card] for card in hand] for hand in batch] for batch in dealt]
        shown = int(shown_card(self._rules, self.states[index]))
        face_down = int(self._flat.options[FACE_DOWN])
        centre = [ALL_CARDS[card] for card in self.centre[index].tolist()]
        dealer = int(self.states[index]["dealer"])
        return dealer, hands, centre, face_down, None if shown < 0 else ALL_CARDS[shown]

    def seats(self) -> NDArray[np.int64]:
        """Each environment's learning seat."""
        return self.states["learner"].copy()

    def rounds(self) -> NDArray[np.int64]:
        """Each environment's round number in its match, from 0."""
        return self.states["round"].copy()

    def totals(self) -> NDArray[np.int64]:
        """Each environment's match points per side."""
        return self.per_side[:, TOTALS, :].copy()


__all__ = ["ENCODED", "EnvBatch", "Episode", "Layout", "reset_envs", "step_envs"]
