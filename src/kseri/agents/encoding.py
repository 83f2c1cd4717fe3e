"""One seat's :class:`~kseri.engine.View` as named fields and as one flat vector, the action
space over card faces, and the action mask: the observation the research environments
(``kseri.rl``) share and the ``learned`` level reads.

Everything here is read from ``Match.view(seat)`` only, so an observation holds exactly what
that seat may know. Seats and sides are *relative*: index 0 is the observing seat (its side),
index 1 the next seat in play order (the next side), and so on, padded with zeros to
:data:`MAX_SEATS`, so that one layout serves every preset. ``docs/rl.md`` lists the fields.

The layout is fixed data (:data:`FIELDS`: name, length, scale): a vectorised environment on
another engine core fills the same slots and reuses :data:`VECTOR_SIZE` and the offsets.

>>> from kseri import Match
>>> match = Match(seed=3)
>>> view = match.view(match.turn)
>>> vector = encode_vector(view)
>>> vector.shape == (VECTOR_SIZE,)
True
>>> int(action_mask(view).sum()) == len(view.hand)
True
>>> card_for_action(view, int(action_mask(view).argmax())) in view.hand
True
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from kseri.cards import CARDS_PER_DECK, JACK, RANK_OF, TWO, Card
from kseri.engine import KSERI_KINDS, View
from kseri.rules import CentreDeal, MajorityTie, Rules, TargetRule

MAX_SEATS: Final = 6
"""Seats (and sides) the layout has room for: the most any rule set allows."""
ACTIONS: Final = CARDS_PER_DECK
"""Discrete actions: action ``a`` plays the card of face ``a`` (``rank * 4 + suit``); in a
two-deck game either copy held (the copies are alike in play)."""

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


class Field(NamedTuple):
    """One named part of the observation: its length, and the scale dividing it in the vector."""

    name: str
    size: int
    scale: float
    doc: str


FIELDS: Final = (
    Field("hand", 52, 1.0, "own hand: copies held of each card face (0-2)"),
    Field("centre_top", 52, 1.0, "the centre's top card, one-hot by face (all 0 when the centre is empty)"),
    Field("centre_cards", 52, 1.0, "face-up cards in the centre by face (the pile as remembered)"),
    Field("centre_size", 1, 10.0, "cards in the centre, face-down ones included"),
    Field("centre_face_down", 1, 4.0, "face-down cards still in the centre (Pisti)"),
    Field("centre_points", 1, 10.0, "card points of the face-up centre cards"),
    Field("seen", 52, 1.0, "cards seen out of the hand by face: played, dealt face up, shown, or face-down "
                           "cards this seat took"),
    Field("seen_ranks", 13, 4.0, "the same counts summed per rank (2 to A)"),
    Field("seen_suits", 4, 13.0, "the same counts summed per suit (C D H S)"),
    Field("unseen_points", 1, 10.0, "card points among the cards this seat has not seen"),
    Field("captured", MAX_SEATS, 52.0, "cards captured this round per relative side"),
    Field("captured_points", MAX_SEATS, 10.0, "card points captured this round per relative side "
                                              "(unseen face-down cards count 0)"),
    Field("marks_points", MAX_SEATS, 10.0, "kseri and bonus points marked this round per relative side"),
    Field("totals", MAX_SEATS, 100.0, "match points per relative side"),
    Field("target", 1, 100.0, "the match target now"),
    Field("stock_size", 1, 52.0, "cards not yet dealt"),
    Field("hand_sizes", MAX_SEATS, 6.0, "cards in hand per relative seat"),
    Field("turn", MAX_SEATS, 1.0, "the seat to play, one-hot by relative seat (all 0: none)"),
    Field("dealer", MAX_SEATS, 1.0, "the dealer, one-hot by relative seat"),
    Field("last_capturer", MAX_SEATS, 1.0, "the round's last capturer, one-hot by relative seat "
                                                  "(all 0: none)"),
    Field("partner", MAX_SEATS, 1.0, "1 for the relative seats on the observer's side "
                                            "(the observer included)"),
    Field("shown", 52, 1.0, "Pisti's shown stock-bottom card, one-hot by face"),
    Field("lone_after_kseri", 1, 1.0, "1 when the centre is one card led right after a kseri (double kseri)"),
    Field("plays_made", 1, 52.0, "plays made this round"),
    Field("round_index", 1, 10.0, "the round's number in the match, from 0"),
    Field("players", 1, 6.0, "rule: seats at the table"),
    Field("sides", 1, 6.0, "rule: scoring sides"),
    Field("decks", 1, 2.0, "rule: decks"),
    Field("batch_size", 1, 6.0, "rule: cards per hand per batch"),
    Field("centre_deal", 3, 1.0, "rule: centre deal one-hot (redeal, replace-jacks, pisti)"),
    Field("kseri_value", 1, 10.0, "rule: kseri points"),
    Field("jack_kseri", 2, 10.0, "rule: jack kseri (on 0/1, points)"),
    Field("double_kseri", 2, 10.0, "rule: double kseri (on 0/1, points)"),
    Field("kseri_on_last_card", 1, 1.0, "rule: a kseri on the round's last play counts"),
    Field("jacks_capture_all", 1, 1.0, "rule: a Jack captures any pile"),
    Field("majority_bonus", 1, 10.0, "rule: majority bonus"),
    Field("majority_tie_every", 1, 1.0, "rule: every tied side gets the majority bonus"),
    Field("jacks_table_bonus", 1, 10.0, "rule: bonus for capturing a pile of Jacks only"),
    Field("last_capture_bonus", 1, 10.0, "rule: bonus for the round's last capture"),
    Field("two_clubs_match_bonus", 1, 10.0, "rule: bonus for capturing the 2C with a two"),
    Field("target_escalates", 1, 1.0, "rule: the target escalates when several sides reach it"),
    Field("card_points", 52, 3.0, "rule: points of each card face"),
    Field("captures", 52, 1.0, "per held face: 1 if playing it now captures the centre"),
    Field("capture_points", 52, 10.0, "per held face: points playing it now scores at once (the known "
                                      "centre's card points, its own, kseri and bonuses; 0 if no capture)"),
    Field("kseri", 52, 1.0, "per held face: 1 if playing it now is a kseri of any kind"),
    Field("lay_points", 52, 10.0, "per held face that does not capture: card points of the centre "
                                  "after laying it (what the next seat may take)"),
    Field("rank_unseen", 52, 4.0, "per held face: cards of its rank this seat has neither seen nor holds"),
    Field("held_jack", 52, 1.0, "per held face: 1 for a Jack"),
)
"""The observation's fields in vector order."""
ACTION_FIELDS: Final = ("hand", "card_points", "captures", "capture_points", "kseri", "lay_points",
                        "rank_unseen", "held_jack")
"""The fields with one value per card face, aligned with the actions (``card_points`` is the
rule's value of each face, ``hand`` the copies held)."""

OFFSETS: Final = {field.name: offset for field, offset in zip(
    FIELDS, np.cumsum([0] + [field.size for field in FIELDS])[:-1].tolist(), strict=True)}
"""Where each field starts in the vector."""
VECTOR_SIZE: Final = sum(field.size for field in FIELDS)
"""Length of the flat vector."""
SCALES: Final = np.concatenate([np.full(field.size, 1.0 / field.scale, np.float32) for field in FIELDS])
"""What each slot of the unscaled vector is multiplied by in the flat vector (one over its scale)."""
_CENTRE_DEALS: Final = (CentreDeal.REDEAL, CentreDeal.REPLACE_JACKS, CentreDeal.PISTI)


def rule_constants(rules: Rules) -> Vector:
    """The unscaled vector with only the rule fields filled (they change only with the rules)."""
    raw = np.zeros(VECTOR_SIZE, np.float32)

    def put(name: str, *values: float) -> None:
        raw[OFFSETS[name]: OFFSETS[name] + len(values)] = values

    put("players", rules.players)
    put("sides", rules.sides)
    put("decks", rules.decks)
    put("batch_size", rules.batch_size)
    put("centre_deal", *[float(rules.centre_deal is deal) for deal in _CENTRE_DEALS])
    put("kseri_value", rules.kseri_value)
    put("jack_kseri", float(rules.jack_kseri is not None), rules.jack_kseri or 0)
    put("double_kseri", float(rules.double_kseri is not None), rules.double_kseri or 0)
    put("kseri_on_last_card", rules.kseri_on_last_card)
    put("jacks_capture_all", rules.jacks_capture_all)
    put("majority_bonus", rules.majority_bonus)
    put("majority_tie_every", rules.majority_tie is MajorityTie.EVERY_TIED_SIDE)
    put("jacks_table_bonus", rules.jacks_table_bonus)
    put("last_capture_bonus", rules.last_capture_bonus)
    put("two_clubs_match_bonus", rules.two_clubs_match_bonus)
    put("target_escalates", rules.target_rule is TargetRule.ESCALATE)
    put("card_points", *rules.points_table[:CARDS_PER_DECK])
    return raw


_RULE_CACHE: dict[Rules, Vector] = {}


def encode_raw(view: View) -> Vector:
    """The observation of ``view`` as one vector of unscaled values (counts, points)."""
    rules = view.rules
    constants = _RULE_CACHE.get(rules)
    if constants is None:
        constants = _RULE_CACHE[rules] = rule_constants(rules)
    raw = constants.copy()
    players, sides, me = rules.players, rules.sides, view.seat
    my_side = rules.side_of(me)
    table = rules.points_table
    hand, top = OFFSETS["hand"], OFFSETS["centre_top"]
    centre_cards, seen = OFFSETS["centre_cards"], OFFSETS["seen"]
    for card in view.hand:
        raw[hand + card % CARDS_PER_DECK] += 1
    # Replay the round's public plays: the centre as remembered, each side's captured points.
    pile: list[Card | None] = list(view.centre_dealt)
    captured_points = [0] * sides
    lone_after_kseri = after_kseri = False
    for dealt in view.centre_dealt:
        if dealt is not None:
            raw[seen + dealt % CARDS_PER_DECK] += 1
    for play in view.plays:
        raw[seen + play.card % CARDS_PER_DECK] += 1
        if play.taken:
            side = (rules.side_of(play.seat) - my_side) % sides
            captured_points[side] += table[play.card] + sum(table[c] for c in pile if c is not None)
            pile = []
        else:
            pile.append(play.card)
        lone_after_kseri = after_kseri and len(pile) == 1
        after_kseri = any(mark.kind in KSERI_KINDS for mark in play.marks)
    for card in view.face_down_seen:
        raw[seen + card % CARDS_PER_DECK] += 1
        if not view.face_down:  # this seat took them with the round's first capture
            captured_points[0] += table[card]
    if view.shown is not None and not raw[seen + view.shown % CARDS_PER_DECK] and view.shown not in view.hand:
        raw[seen + view.shown % CARDS_PER_DECK] += 1
    if view.shown is not None:
        raw[OFFSETS["shown"] + view.shown % CARDS_PER_DECK] = 1
    if view.centre_top is not None:
        raw[top + view.centre_top % CARDS_PER_DECK] = 1
    centre_points = 0
    for remembered in pile:
        if remembered is not None:
            raw[centre_cards + remembered % CARDS_PER_DECK] += 1
            centre_points += table[remembered]
    seen_faces = raw[seen: seen + CARDS_PER_DECK]
    raw[OFFSETS["seen_ranks"]: OFFSETS["seen_ranks"] + 13] = seen_faces.reshape(13, 4).sum(axis=1)
    raw[OFFSETS["seen_suits"]: OFFSETS["seen_suits"] + 4] = seen_faces.reshape(13, 4).sum(axis=0)
    points = np.asarray(table[:CARDS_PER_DECK], np.float32)
    held = raw[hand: hand + CARDS_PER_DECK]
    raw[OFFSETS["unseen_points"]] = float(points @ (rules.decks - held - seen_faces))
    raw[OFFSETS["centre_size"]] = view.centre_size
    raw[OFFSETS["centre_face_down"]] = view.face_down
    raw[OFFSETS["centre_points"]] = centre_points
    for side in range(sides):
        relative = (side - my_side) % sides
        raw[OFFSETS["captured"] + relative] = view.captured_sizes[side]
        raw[OFFSETS["captured_points"] + relative] = captured_points[relative]
        raw[OFFSETS["marks_points"] + relative] = sum(mark.points for mark in view.marks[side])
        raw[OFFSETS["totals"] + relative] = view.totals[side]
    raw[OFFSETS["target"]] = view.target
    raw[OFFSETS["stock_size"]] = view.stock_size
    for seat in range(players):
        relative = (seat - me) % players
        raw[OFFSETS["hand_sizes"] + relative] = view.hand_sizes[seat]
        if rules.side_of(seat) == my_side:
            raw[OFFSETS["partner"] + relative] = 1
    if view.turn is not None:
        raw[OFFSETS["turn"] + (view.turn - me) % players] = 1
    raw[OFFSETS["dealer"] + (view.dealer - me) % players] = 1
    if view.last_capturer is not None:
        raw[OFFSETS["last_capturer"] + (view.last_capturer - me) % players] = 1
    raw[OFFSETS["lone_after_kseri"]] = lone_after_kseri
    _play_features(raw, view, pile, centre_points, lone_after_kseri)
    raw[OFFSETS["plays_made"]] = len(view.plays)
    raw[OFFSETS["round_index"]] = view.round_index
    return raw


def _play_features(raw: Vector, view: View, pile: list[Card | None], centre_points: int,
                   lone_after_kseri: bool) -> None:
    """Fill the per-face fields of the cards in hand (what each play would do now)."""
    rules = view.rules
    table = rules.points_table
    top = view.centre_top
    last_play = view.stock_size == 0 and sum(view.hand_sizes) == 1
    all_jacks = bool(pile) and all(card is not None and RANK_OF[card] == JACK for card in pile)
    unseen = rules.decks * 4 - raw[OFFSETS["seen_ranks"]: OFFSETS["seen_ranks"] + 13]
    held = raw[OFFSETS["hand"]: OFFSETS["hand"] + CARDS_PER_DECK].reshape(13, 4).sum(axis=1)
    for face in {card % CARDS_PER_DECK for card in view.hand}:
        rank = RANK_OF[face]
        raw[OFFSETS["rank_unseen"] + face] = unseen[rank] - held[rank]
        raw[OFFSETS["held_jack"] + face] = rank == JACK
        takes = top is not None and (rank == RANK_OF[top] or (rank == JACK and rules.jacks_capture_all))
        if not takes:
            raw[OFFSETS["lay_points"] + face] = centre_points + table[face]
            continue
        assert top is not None
        gain = centre_points + table[face]
        if len(pile) == 1 and rank == RANK_OF[top]:
            bonus = (rules.jack_kseri if rank == JACK else
                     rules.double_kseri if rules.double_kseri is not None and lone_after_kseri else
                     rules.kseri_value)
            if bonus is not None and (rules.kseri_on_last_card or not last_play):
                gain += bonus
                raw[OFFSETS["kseri"] + face] = 1
        if rules.jacks_table_bonus and all_jacks:
            gain += rules.jacks_table_bonus
        if rules.two_clubs_match_bonus and rank == TWO and top % CARDS_PER_DECK == TWO * 4:
            gain += rules.two_clubs_match_bonus
        raw[OFFSETS["captures"] + face] = 1
        raw[OFFSETS["capture_points"] + face] = gain


def encode_vector(view: View) -> Vector:
    """The observation of ``view`` as the flat vector: each field divided by its scale."""
    vector: Vector = encode_raw(view) * SCALES
    return vector


def encode_dict(view: View) -> dict[str, Vector]:
    """The observation of ``view`` as named fields of unscaled values (:data:`FIELDS`)."""
    raw = encode_raw(view)
    return {field.name: raw[OFFSETS[field.name]: OFFSETS[field.name] + field.size] for field in FIELDS}


def action_mask(view: View) -> Mask:
    """1 for each action (card face) the seat may play now, else 0."""
    mask = np.zeros(ACTIONS, np.int8)
    for card in view.legal_plays():
        mask[card % CARDS_PER_DECK] = 1
    return mask


def card_for_action(view: View, action: int) -> Card:
    """The card of the hand that ``action`` plays (of two copies the first deck's, as
    ``Match.play(action)`` takes); raises ``ValueError`` naming the problem."""
    if not 0 <= action < ACTIONS:
        raise ValueError(f"action {action} is not a card face (0 to {ACTIONS - 1})")
    copies = [card for card in view.legal_plays() if card % CARDS_PER_DECK == action]
    if copies:
        return min(copies)
    raise ValueError(f"action {action} ({Card(action)}) is not a card seat {view.seat} may play now")


def action_for_card(card: int) -> int:
    """The action that plays ``card`` (its face)."""
    return card % CARDS_PER_DECK


__all__ = [
    "ACTIONS", "FIELDS", "MAX_SEATS", "OFFSETS", "SCALES", "VECTOR_SIZE", "Field", "action_for_card",
    "action_mask", "card_for_action", "encode_dict", "encode_raw", "encode_vector", "rule_constants",
]
