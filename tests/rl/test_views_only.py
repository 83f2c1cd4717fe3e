"""No observation changes when only cards hidden from the observing seat change.

At a random point of a random round, the cards a seat cannot know (the other hands' unplayed
cards, every later batch, face-down centre cards it did not take) are shuffled among their
places; the same plays are replayed on the new deal. Every environment's observation of that
seat (the encoding, the Gymnasium/PettingZoo observation, OpenSpiel's information state and
observation, tensors and strings) must be the same as before.
"""

import random

import numpy as np
import pyspiel
import pytest

from kseri import PRESETS, Deal, Match, Rules
from kseri.agents.encoding import encode_dict, encode_vector
from kseri.cards import ALL_CARDS
from kseri.engine import PublicPlay
from kseri.rl.gym_env import observe
from kseri.rl.openspiel_game import GAME_NAME, KseriState, deal_actions
from kseri.rules import CentreDeal


def hidden_shuffled(rules: Rules, deal: Deal, plays: list[PublicPlay], seat: int, rng: random.Random) -> Deal:
    """``deal`` with the cards hidden from ``seat`` after ``plays`` shuffled among their places."""
    per_batch = rules.players * rules.batch_size
    batch = len(plays) // per_batch
    played = {play.card for play in plays}
    took_face_down = next((play.seat for play in plays if play.taken), None) == seat
    places: list[tuple[int, ...]] = []
    for position in range(deal.face_down):
        if not took_face_down:
            places.append((-1, position))
    for index, hands in enumerate(deal.hands):
        for owner, hand in enumerate(hands):
            for position, card in enumerate(hand):
                if deal.shown is not None and card == deal.shown and index == len(deal.hands) - 1:
                    continue  # the shown card: everyone knows the dealer receives it last
                if index > batch or (index == batch and owner != seat and card not in played):
                    places.append((index, owner, position))
    hands = [[list(hand) for hand in hands] for hands in deal.hands]
    centre = list(deal.centre)

    def card_at(place: tuple[int, ...]) -> int:
        return centre[place[1]] if place[0] == -1 else hands[place[0]][place[1]][place[2]]

    cards = [card_at(place) for place in places]
    rng.shuffle(cards)
    for place, card in zip(places, cards, strict=True):
        if place[0] == -1:
            centre[place[1]] = card
        else:
            hands[place[0]][place[1]][place[2]] = card
    dealt = tuple(tuple(tuple(ALL_CARDS[c] for c in hand) for hand in batch_hands) for batch_hands in hands)
    return Deal(deal.dealer, tuple(ALL_CARDS[c] for c in centre), deal.face_down, dealt, deal.shown)


def openspiel_state(preset: str, deal: Deal, plays: list[PublicPlay]) -> KseriState:
    game = pyspiel.load_game(GAME_NAME, {"preset": preset})
    state: KseriState = game.new_initial_state()
    for action in deal_actions(game.rules, deal):
        state.apply_action(action)
    for play in plays:
        state.apply_action(play.card % 52)
    return state


def observations(preset: str, match: Match, deal: Deal, plays: list[PublicPlay], seat: int) -> list[object]:
    view = match.view(seat)
    gym = observe(view)
    fields = encode_dict(view)
    state = openspiel_state(preset, deal, plays)
    return [encode_vector(view).tolist(), gym["observation"].tolist(), gym["action_mask"].tolist(),
            {name: values.tolist() for name, values in fields.items()},
            state.information_state_string(seat), state.information_state_tensor(seat),
            state.observation_string(seat), state.observation_tensor(seat)]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_observation_changes_when_only_hidden_cards_change(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(preset)
    changed = 0
    for trial in range(12):
        match = Match(rules, seed=f"{preset}/{trial}")
        deal = match.deals[0]
        stop = rng.randrange(rules.deck_size - rules.centre_size)
        plays: list[PublicPlay] = []
        for _ in range(stop):
            match.play(rng.choice(match.legal_plays()))
            plays.append(match.plays[-1][-1])
        for seat in range(rules.players):
            other = hidden_shuffled(rules, deal, plays, seat, rng)
            changed += other != deal
            replay = Match(rules, deal=other)
            for play in plays:
                replay.play(play.card)
            assert replay.plays[-1] == tuple(plays)
            before = observations(preset, match, deal, plays, seat)
            assert before == observations(preset, replay, other, plays, seat)
    assert changed >= 12 * rules.players * 3 // 4, "the test must change hidden cards in most trials"


def test_a_shown_card_and_face_down_cards_follow_the_rules() -> None:
    rules = Rules.preset("pisti")
    assert rules.centre_deal is CentreDeal.PISTI
    match = Match(rules, seed=9)
    view = match.view(match.turn)
    assert view.face_down == rules.centre_size - 1 and view.shown is not None
    assert encode_dict(view)["shown"][view.shown % 52] == 1
    assert np.isclose(encode_dict(view)["centre_face_down"][0], view.face_down)
