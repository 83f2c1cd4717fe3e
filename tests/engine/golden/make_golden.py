"""Write ``rounds.json``: golden rounds that ``test_golden.py`` replays (the engine's perft file).

Each round holds its rules (all options), its deal, its plays and the expected result. Most
are random rounds of every preset generated from seeds (their deals also pin the shuffle: the
seed must still give the same deal); a handful are hand-checked: built as scripted deals and
scored below by hand, in comments, before the engine is asked.

Run from the repository root: ``PYTHONPATH=src python tests/engine/golden/make_golden.py``.
Regenerate only when a rule or the shuffle changes on purpose, and say so in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from builders import cards, no_capture_order, scripted_deal

from kseri import PRESETS, Card, Deal, Match, Rules
from kseri.cards import CARDS_PER_DECK
from kseri.engine import RoundResult

OUT = Path(__file__).with_name("rounds.json")
SEEDED_PER_PRESET = 4
MARK_KINDS = ("kseri", "jack-kseri", "double-kseri", "jacks-table", "two-clubs-match")


def card_text(card: Card) -> str:
    """``TD``; a second-deck copy is marked with a star, ``TD*``."""
    return str(card) + ("*" if card >= CARDS_PER_DECK else "")


def text_card(text: str) -> Card:
    """The inverse of :func:`card_text`."""
    return Card(Card(text.rstrip("*")) + (CARDS_PER_DECK if text.endswith("*") else 0))


def cards_text(items: Any) -> str:
    return " ".join(card_text(card) for card in items)


def deal_to_json(deal: Deal) -> dict[str, Any]:
    return {
        "dealer": deal.dealer,
        "centre": cards_text(deal.centre),
        "face_down": deal.face_down,
        "hands": [[cards_text(hand) for hand in batch] for batch in deal.hands],
        "shown": None if deal.shown is None else card_text(deal.shown),
    }


def result_to_json(result: RoundResult, centre_left: tuple[Card, ...]) -> dict[str, Any]:
    return {
        "points": list(result.points),
        "kseri": list(result.kseri),
        "captured": [len(cards) for cards in result.captured],
        "last_capturer": result.last_capturer,
        "marks": [[f"{m.kind} {card_text(m.card)} {m.points}" for m in items if m.kind in MARK_KINDS]
                  for items in result.breakdown],
        "centre_left": cards_text(centre_left),
    }


def play_round(rules: Rules, deal: Deal, plays: list[Card]) -> Match:
    match = Match(rules, deal=deal)
    for card in plays:
        match.play(card)
    assert match.is_round_over()
    return match


def seeded_round(preset: str, index: int) -> dict[str, Any]:
    rules = Rules.preset(preset)
    seed = f"golden:{preset}:{index}"
    match, rng = Match(rules, seed=seed), random.Random(seed)
    while match.turn is not None:
        match.play(rng.choice(match.legal_plays()))
    return {
        "name": f"{preset} from seed {index}",
        "seed": seed,
        "rules": rules.options(),
        "deal": deal_to_json(match.deals[0]),
        "plays": cards_text(play.card for play in match.plays[0]),
        "expected": result_to_json(match.round_results[0], match.centre_left),
    }


def hand_checked(name: str, rules: Rules, deal: Deal, plays: list[Card], expected: dict[str, Any],
                 by_hand: str) -> dict[str, Any]:
    match = play_round(rules, deal, plays)
    got = result_to_json(match.round_results[0], match.centre_left)
    if got != expected:
        raise SystemExit(f"{name}: the engine says {got}, the hand count says {expected}")
    return {"name": name, "seed": None, "rules": rules.options(), "deal": deal_to_json(deal),
            "plays": cards_text(plays), "expected": expected, "checked_by_hand": by_hand}


def play_order(deal: Deal, players: int) -> list[Card]:
    """The plays of a scripted deal: each seat plays its hand in order, from the dealer's left."""
    order = []
    for batch in deal.hands:
        for step in range(len(batch[0]) * players):
            order.append(batch[(deal.dealer + 1 + step) % players][step // players])
    return order


def hand_checked_rounds() -> list[dict[str, Any]]:
    rounds = []
    centre = "2C 3C 4C 5C"

    # 1. Greek, dealer 0, so seat 1 plays first. The 44 other non-Jacks go down in suit and
    # rank order (no two neighbours share a rank: no capture), then JC (seat 1) takes all 48
    # cards on the table, JD (seat 0) is led on the empty table, JH (seat 1) takes it: a jack
    # kseri, 20. JS (seat 0) is the last card and stays: seat 1, the last capturer, sweeps it.
    # Seat 1 holds all 52 cards: 20 for A K Q J 10, 1 more for 10♦, 1 for 2♣, 3 for the
    # majority, 20 for the jack kseri = 45. Seat 0: nothing.
    greek = Rules.preset("greek")
    order = no_capture_order(cards(centre)) + cards("JC JD JH JS")
    deal = scripted_deal(greek, 0, centre, order)
    rounds.append(hand_checked(
        "greek: one Jack takes everything, then a jack kseri", greek, deal, play_order(deal, 2),
        {"points": [0, 45], "kseri": [0, 20], "captured": [0, 52], "last_capturer": 1,
         "marks": [[], ["jack-kseri JH 20"]], "centre_left": ""},
        "seat 1: 20 (A K Q J 10) + 1 (10♦) + 1 (2♣) + 3 (52 cards) + 20 (jack kseri) = 45; seat 0: 0",
    ))

    # 2. Greek, 26-26. Seat 0 takes 4 + 21 cards with JC (26 cards: 2C 1, TC QC KC AC JC 5,
    # TD 2, QD KD AD 3 = 11). Seat 1 leads JH, later takes it and 23 more with JD and sweeps
    # seat 0's last card, JS (26 cards: JH, TH QH KH AH, TS QS KS AS, JD, JS = 11). No kseri;
    # the count ties, so nobody gets the 3: 11 each, 22 in all.
    rest = no_capture_order(cards(centre))
    order = rest[:21] + cards("JC JH") + rest[21:] + cards("JD JS")
    deal = scripted_deal(greek, 0, centre, order)
    rounds.append(hand_checked(
        "greek: 26 cards each, no majority", greek, deal, order,
        {"points": [11, 11], "kseri": [0, 0], "captured": [26, 26], "last_capturer": 1,
         "marks": [[], []], "centre_left": ""},
        "11 each (see make_golden.py); 26-26 gives the majority to nobody: 22 in all",
    ))

    # 3. Pisti, dealer 1, so seat 0 plays first. 2C 3C 4C lie face down under 5C. Seat 0 takes
    # the four with 5D (no pisti: four cards); seat 1 leads 6C, seat 0 takes it with 6D (pisti
    # 10); seat 1 leads JC, seat 0 takes it with JD (a Jack on a lone Jack: 20);
    # seat 1 leads 7C, seat 0 takes it with JS (no pisti). Then no capture until seat 1's JH
    # takes the 38 cards on the table; seat 0 leads 9H, seat 1's last card 9S takes it: a pisti
    # on the last card, which does not count in pisti.
    # Seat 0: 11 cards: 2♣ 2, JC JD JS 3, pisti 10 + 20 = 35. Seat 1: 41 cards: 10♦ 3, four
    # aces 4, JH 1, majority 3 = 11.
    pisti = Rules.preset("pisti")
    opening = cards("5D 6C 6D JC JD 7C JS")
    closing = cards("JH 9H 9S")
    order = opening + no_capture_order(cards(centre) + opening + closing) + closing
    deal = scripted_deal(pisti, 1, centre, order, face_down=3)
    rounds.append(hand_checked(
        "pisti: face-down cards, pisti, jack pisti, no pisti on the last card", pisti, deal, order,
        {"points": [35, 11], "kseri": [30, 0], "captured": [11, 41], "last_capturer": 1,
         "marks": [["kseri 6D 10", "jack-kseri JD 20"], []], "centre_left": ""},
        "seat 0: 2 (2♣) + 3 (three Jacks) + 10 + 20 = 35; seat 1: 3 (10♦) + 4 (aces) + 1 (JH) + 3 = 11",
    ))

    # 4. Guide 003 (classic), dealer 0, seat 1 first. Seat 1 takes the centre with 5D; seat 0
    # leads 6C, seat 1 takes it with 6D (kseri 10); seat 0 leads 7C, seat 1 takes it with 7D:
    # a kseri on the card led right after a kseri, double, 20; the same again with 8C/8D: 20.
    # Seat 0 leads JC, seat 1's JD takes it: no kseri with Jacks in guide 003. Seat 0 leads 9C,
    # JH takes it; seat 0 leads JS, and the rest goes down without a capture: seat 1, the last
    # capturer, sweeps it. Seat 1 holds all 52: 10♦ 2, 2♣ 2, aces 4, Jacks 4, majority 3, kseris
    # 10 + 20 + 20 = 65.
    classic = Rules.preset("classic")
    opening = cards("5D 6C 6D 7C 7D 8C 8D JC JD 9C JH JS")
    order = opening + no_capture_order(cards(centre) + opening)
    deal = scripted_deal(classic, 0, centre, order)
    rounds.append(hand_checked(
        "classic: kseri then double kseris; Jacks make no kseri", classic, deal, order,
        {"points": [0, 65], "kseri": [0, 50], "captured": [0, 52], "last_capturer": 1,
         "marks": [[], ["kseri 6D 10", "double-kseri 7D 20", "double-kseri 8D 20"]], "centre_left": ""},
        "seat 1: 2 + 2 + 4 + 4 + 3 + 10 + 20 + 20 = 65",
    ))

    # 5. Children's Kseri: Jacks capture only by rank. Every card goes down in suit and rank
    # order, so no card ever matches the top: nobody captures, the 52 cards stay in the centre
    # and go to nobody; no majority without cards: 0-0.
    children = Rules.preset("children")
    order = no_capture_order(cards(centre), jacks=True)
    deal = scripted_deal(children, 0, centre, order)
    rounds.append(hand_checked(
        "children: nobody captures, the centre goes to nobody", children, deal, order,
        {"points": [0, 0], "kseri": [0, 0], "captured": [0, 0], "last_capturer": None,
         "marks": [[], []], "centre_left": cards_text(cards(centre) + order)},
        "no capture at all: 0-0 and 52 cards left in the centre",
    ))
    return rounds


def main() -> None:
    rounds = hand_checked_rounds()
    for preset in PRESETS:
        rounds.extend(seeded_round(preset, index) for index in range(SEEDED_PER_PRESET))
    OUT.write_text(json.dumps({"rounds": rounds}, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(rounds)} rounds to {OUT}")


if __name__ == "__main__":
    main()
