"""Words for what happens at the table, shared by the full-screen and the plain modes.

>>> from kseri.cards import Card
>>> from kseri.engine import Mark
>>> event = PlayEvent(1, Card("7S"), Card("7H"), 2, (Mark("kseri", Card("7S"), 10),), False, False)
>>> describe_play(event, ("You", "Expert"))
'Expert plays 7♠ on 7♥ and takes 2 cards: kseri +10'
>>> describe_play(PlayEvent(0, Card("TD"), None, 0, (), False, False), ("You", "Expert"))
'You play 10♦ on the empty table'
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from kseri.agents import centre_cards
from kseri.cards import DIAMONDS, HEARTS, JACK, RANK_NAMES, SUIT_SYMBOLS, TEN, Card
from kseri.engine import KSERI_KINDS, Mark, RoundResult, View
from kseri.tui.session import PlayEvent

MARK_LABELS = {
    "kseri": "kseri",
    "jack-kseri": "jack kseri",
    "double-kseri": "double kseri",
    "jacks-table": "table of Jacks",
    "two-clubs-match": "2♣ taken by a two",
    "majority": "majority",
    "last-capture": "last capture",
}
"""How each bonus is named on screen."""

SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")


def is_red(card: Card) -> bool:
    """Whether the card's suit is red (♦ ♥)."""
    return card.suit in (DIAMONDS, HEARTS)


def card_text(card: Card | None, *, bold: bool = False) -> Text:
    """A card's name with its suit symbol, red for ♦ and ♥."""
    if card is None:
        return Text("—")
    style = ("red" if is_red(card) else "") + (" bold" if bold else "")
    return Text(card.pretty(), style=style.strip())


def rank_text(rank: int) -> str:
    """A rank's screen name (``10`` for the ten)."""
    return "10" if rank == TEN else RANK_NAMES[rank]


def does(who: str, verb: str) -> str:
    """``You play``, ``Expert plays``: a seat's name with the verb agreeing.

    >>> does("You", "deal"), does("Expert", "deal")
    ('You deal', 'Expert deals')
    """
    return f"{who} {verb if who == 'You' else verb + 's'}"


def winner_sentence(view: View, side_names: Sequence[str]) -> str:
    """Who won the match, from the player's side: ``You win the match``, ``Expert wins the
    match``, ``Greedy & Expert win the match``."""
    assert view.winner is not None, "the match is not over"
    who = "You" if view.winner == view.side else side_names[view.winner]
    return f"{who} {'wins' if who != 'You' and ' & ' not in who else 'win'} the match"


def describe_play(event: PlayEvent, names: Sequence[str]) -> str:
    """One sentence for a play: who, what, on what, and what it took and scored."""
    who = names[event.seat]
    where = "on the empty table" if event.on is None else f"on {event.on.pretty()}"
    text = f"{does(who, 'play')} {event.card.pretty()} {where}"
    if event.taken:
        text += f" and {'take' if who == 'You' else 'takes'} {event.taken} cards"
    if event.marks:
        text += ": " + ", ".join(f"{MARK_LABELS[m.kind]} +{m.points}" for m in event.marks)
    return text


def marks_summary(marks: Sequence[Mark]) -> str:
    """Kseri markers on a capture pile, e.g. ``kseri 7♠ +10, jack kseri J♥ +20``."""
    return ", ".join(f"{MARK_LABELS[m.kind]} {m.card.pretty()} +{m.points}" for m in marks)


def kseri_count(marks: Sequence[Mark]) -> int:
    """How many of ``marks`` are kseris of any kind."""
    return sum(1 for m in marks if m.kind in KSERI_KINDS)


def seen_this_round(view: View) -> list[Card]:
    """Every card this seat has seen played or laid face up this round, by suit then rank.

    The rules let a player remember these, not look at them again: this is the memory aid.
    """
    seen = {c for c in view.centre_dealt if c is not None}
    seen.update(view.face_down_seen)
    seen.update(play.card for play in view.plays)
    if view.shown is not None:
        seen.add(view.shown)
    return sorted(seen, key=lambda c: (c.suit, c.rank, int(c)))


def memory_lines(view: View) -> list[Text]:
    """The memory aid: the cards seen this round by suit, and the centre pile as remembered."""
    seen = seen_this_round(view)
    lines = [Text(f"Seen this round ({len(seen)} cards):", style="bold")]
    for suit, symbol in enumerate(SUIT_SYMBOLS):
        ranks = " ".join(rank_text(c.rank) for c in seen if c.suit == suit) or "—"
        lines.append(Text(f" {symbol} {ranks}", style="red" if suit in (DIAMONDS, HEARTS) else ""))
    jacks = sum(1 for c in seen if c.rank == JACK)
    lines.append(Text(f"Jacks seen: {jacks} of {4 * view.rules.decks}"))
    pile = centre_cards(view)
    line = Text("Centre, bottom to top: ", style="bold")
    if not pile:
        line.append("empty", style="")
    for index, card in enumerate(pile):
        if index:
            line.append(" ")
        line.append_text(card_text(card) if card is not None else Text("▒▒"))
    lines.append(line)
    return lines


def breakdown_rows(result: RoundResult, sides: int) -> list[tuple[str, list[str]]]:
    """The rows of a round's score table, one cell per side: point cards (listed), cards
    captured, majority, kseris, other bonuses, the round's total."""
    point_cards: list[str] = []
    card_points: list[str] = []
    majority: list[str] = []
    kseris: list[str] = []
    bonuses: list[str] = []
    for side in range(sides):
        items = result.breakdown[side]
        cards = [item for item in items if item.kind == "card"]
        card_points.append(str(sum(item.points for item in cards)))
        point_cards.append(
            " ".join(
                f"{item.card.pretty()}" + (f"({item.points})" if item.points > 1 else "")
                for item in cards
                if item.card is not None
            )
            or "—"
        )
        majority.append(str(sum(i.points for i in items if i.kind == "majority")))
        found = [i for i in items if i.kind in KSERI_KINDS]
        kseris.append(f"{sum(i.points for i in found)} ({len(found)}×)" if found else "0")
        others = [i for i in items if i.kind not in KSERI_KINDS | {"card", "majority"}]
        bonuses.append(", ".join(f"{MARK_LABELS[i.kind]} +{i.points}" for i in others) or "0")
    rows = [
        ("Cards captured", [str(len(cards)) for cards in result.captured]),
        ("Point cards", card_points),
        ("  which", point_cards),
        ("Majority", majority),
        ("Kseris", kseris),
    ]
    if any(b != "0" for b in bonuses):
        rows.append(("Bonuses", bonuses))
    rows.append(("Round", [str(p) for p in result.points]))
    return rows


def breakdown_sentence(result: RoundResult, side: int) -> str:
    """A side's round score in one sentence, for the plain mode and screen readers."""
    cells = {label.strip(): values[side] for label, values in breakdown_rows(result, len(result.points))}
    text = (f"{cells['Round']} points: point cards {cells['Point cards']} ({cells['which']}), "
            f"majority {cells['Majority']}, kseris {cells['Kseris']}")
    if "Bonuses" in cells:
        text += f", bonuses {cells['Bonuses']}"
    return text + f"; {cells['Cards captured']} cards captured"


def plural(count: int, word: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def standings(view: View, side_names: Sequence[str]) -> str:
    """The match score against the target, e.g. ``You 40 · Expert 62 (target 151)``."""
    scores = " · ".join(f"{name} {total}" for name, total in zip(side_names, view.totals, strict=True))
    return f"{scores} (target {view.target})"
